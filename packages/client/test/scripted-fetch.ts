// A scripted fake server for the client's tests: each request gets the next scripted reply, and every
// request is recorded (method, path, headers, body), so a test can assert which attempt carried which key.
// Time is virtual: `sleep` records the wait and advances `now`, so the 60-second waits take microseconds.

export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | 'network-error'
  | 'hang'
  /** Headers of a 2xx at once, then a body that never ends (errored when the attempt's signal aborts, as undici does). */
  | { stall: number };

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export function scriptedServer(script: Reply[]) {
  const sent: Sent[] = [];
  let offset = 0; // where the current script started (see `load`)
  const sleeps: number[] = [];
  let now = 0;
  const fetch = async (request: Request, init?: { signal: AbortSignal }): Promise<Response> => {
    const signal = init?.signal ?? request.signal;
    const text = await request.text();
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers),
      body: text ? JSON.parse(text) : undefined,
    });
    const reply = script[Math.min(sent.length - 1 - offset, script.length - 1)]!;
    if (reply === 'network-error') throw new TypeError('fetch failed');
    if (reply === 'hang') {
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if ('stall' in reply) {
      const stalled = new ReadableStream({
        start(controller) {
          signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
        },
      });
      return new Response(stalled, { status: reply.stall, headers: { 'content-type': 'application/json' } });
    }
    const headers = { ...(reply.json !== undefined ? { 'content-type': 'application/json' } : {}), ...reply.headers };
    const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? null);
    return new Response(body, { status: reply.status, headers });
  };
  return {
    fetch,
    sent,
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    now: () => now,
    /** The replies for the next call (the requests already sent stay recorded). */
    load(next: Reply[]) {
      script = next;
      offset = sent.length;
    },
    keys: () => sent.map((s) => s.headers['idempotency-key']),
  };
}

export const errorBody = (code: string, error = code) => ({ error, code, requestId: '5b1f4c8e-2d7a-4e3b-9c6f-1a2b3c4d5e6f' });
export const transfer = (status: string) => ({ id: 'trf_1', recipientId: 'rcp_1', amount: '150.00', status, idempotencyKey: 'k' });
