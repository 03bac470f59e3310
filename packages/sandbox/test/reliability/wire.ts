// Raw HTTP for the reliability tests, bounded: every request has a timeout, and a request that gets no
// answer (connection refused or reset, timeout) is a value, not an exception, so a load generator can count
// what was acknowledged and what was not.
export interface Answer {
  status: number;
  /** The body exactly as received (compared byte for byte on replays). */
  text: string;
  body: any;
  headers: Headers;
}

export interface NoAnswer {
  status: undefined;
  error: string;
}

export interface SendOptions {
  key?: string;
  idem?: string;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export async function send(base: string, method: string, path: string, opts: SendOptions = {}): Promise<Answer | NoAnswer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.idem) headers['idempotency-key'] = opts.idem;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body, headers: res.headers };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: undefined, error: cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err)) };
  }
}

/** Like `send`, but a missing answer throws: for setup steps that must work. */
export async function must(base: string, method: string, path: string, opts: SendOptions = {}): Promise<Answer> {
  const reply = await send(base, method, path, opts);
  if (reply.status === undefined) throw new Error(`${method} ${path}: no answer (${reply.error})`);
  return reply;
}

/** Runs `count` tasks with at most `concurrency` at once; resolves with their results in order. */
export async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

/** The admin API (Bearer token), bounded like `send`; a missing answer or a status ≥ 300 throws. */
export function adminApi(sandbox: { url: string; adminToken: string }, timeoutMs = 30_000) {
  const raw = async (method: string, path: string, body?: unknown): Promise<Answer> =>
    must(sandbox.url, method, `/admin${path}`, { ...(body === undefined ? {} : { body }), headers: { authorization: `Bearer ${sandbox.adminToken}` }, timeoutMs });
  return {
    /** The reply whatever its status (e.g. a 404 that is an expected answer). */
    raw,
    async req(method: string, path: string, body?: unknown): Promise<any> {
      const reply = await raw(method, path, body);
      if (reply.status >= 300) throw new Error(`admin ${method} ${path} → ${reply.status} ${reply.text}`);
      return reply.body;
    },
  };
}
