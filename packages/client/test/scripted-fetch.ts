// A scripted fake server for the client's tests: each request gets the next scripted reply, and every
// request is recorded (method, path, headers, body), so a test can assert which attempt carried which key.
// Time is virtual: `sleep` records the wait and advances `now`, so the 60-second waits take microseconds;
// `setTimer` is a virtual per-attempt timer: while a reply hangs, the clock jumps to the next timer and fires it.
import { createPaymentsClient, type PaymentsClientOptions } from '../src/index.ts';

export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | 'network-error'
  /** No answer until the attempt's signal aborts (then rejected with its reason, as undici does). */
  | 'hang'
  /** No answer ever, whatever the signal: a custom fetch that ignores `init.signal`. */
  | 'hang-deaf'
  /** Headers at once, then a body that never ends (errored when the attempt's signal aborts, unless `deaf`). */
  | { stall: number; deaf?: boolean };

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
  const timers = new Set<{ at: number; fire: () => void }>();
  /** Time passes while a reply hangs: jump to the earliest virtual timer and fire it (after the client's current turn). */
  const passTime = () =>
    setImmediate(() => {
      const next = [...timers].sort((a, b) => a.at - b.at)[0];
      if (!next) return;
      timers.delete(next);
      now = Math.max(now, next.at);
      next.fire();
    });
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
    if (reply === 'hang' || reply === 'hang-deaf') {
      passTime();
      return new Promise((_resolve, reject) => {
        if (reply === 'hang') signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    }
    if ('stall' in reply) {
      passTime();
      const stalled = new ReadableStream({
        start(controller) {
          if (!reply.deaf) signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
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
    setTimer: (ms: number, fire: () => void) => {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    /** The replies for the next call (the requests already sent stay recorded). */
    load(next: Reply[]) {
      script = next;
      offset = sent.length;
    },
    keys: () => sent.map((s) => s.headers['idempotency-key']),
  };
}

/** A client on a scripted server, with its virtual clock and timers and no jitter: the tests' usual set-up. */
export function scriptedClient(script: Reply[], extra: Partial<PaymentsClientOptions> = {}) {
  const server = scriptedServer(script);
  const client = createPaymentsClient({
    apiKey: 'svc_live_scripted000001',
    baseUrl: 'http://127.0.0.1:1',
    fetch: server.fetch,
    sleep: server.sleep,
    now: server.now,
    setTimer: server.setTimer,
    random: () => 0.5,
    ...extra,
  });
  return { server, client };
}

/** The error a call fails with (a call that succeeds fails the test). */
export async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

export const errorBody = (code: string, error = code) => ({ error, code, requestId: '5b1f4c8e-2d7a-4e3b-9c6f-1a2b3c4d5e6f' });
export const transfer = (status: string) => ({ id: 'trf_1', recipientId: 'rcp_1', amount: '150.00', status, idempotencyKey: 'k' });
