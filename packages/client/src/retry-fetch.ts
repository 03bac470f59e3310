// The retry loop, under openapi-fetch (its `fetch` option): openapi-fetch builds the Request once, with
// the Idempotency-Key already set, and this loop re-sends clones of it. So every attempt of a call carries
// the same key by construction; nothing here can mint a new one. Each attempt has its own timeout; waits
// are abortable through the caller's signal.
import { AbortError, NetworkError, TimeoutError, type ErrorContext } from './errors.ts';
import { retryDelay, type Attempt, type RetryPolicy } from './policy.ts';

export interface RetryEvent {
  operationId: string | undefined;
  idempotencyKey: string | undefined;
  /** The attempt that just failed (1 = the first request). */
  attempt: number;
  delayMs: number;
  reason: 'network' | 'timeout' | number;
  code: string | undefined;
}

export interface Runtime {
  fetch: (request: Request) => Promise<Response>;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  now: () => number;
  random: () => number;
  timeoutMs: number;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

/** An abortable setTimeout; the default `sleep`. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Seconds (or an HTTP date) in Retry-After, as milliseconds. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

async function inspect(response: Response, now: number): Promise<Attempt> {
  const { status } = response;
  let code: string | undefined;
  if (status === 429 || status >= 500) {
    try {
      const body = (await response.clone().json()) as { code?: unknown };
      if (typeof body?.code === 'string') code = body.code;
    } catch {} // no JSON body: the edge, or a proxy
  }
  return { kind: 'response', status, code, retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now) };
}

/** A `fetch` for one call: retries per `policy`, counting attempts into `context`. */
export function retryingFetch(runtime: Runtime, policy: RetryPolicy, context: ErrorContext & { attempts: number }) {
  return async (request: Request): Promise<Response> => {
    const started = runtime.now();
    const caller = request.signal;
    let unavailable = 0;
    for (;;) {
      if (caller.aborted) throw new AbortError(context);
      context.attempts++;
      const timeout = AbortSignal.timeout(runtime.timeoutMs);
      let response: Response | undefined;
      let outcome: Attempt;
      let failure: unknown;
      try {
        response = await runtime.fetch(new Request(request.clone(), { signal: AbortSignal.any([caller, timeout]) }));
        outcome = await inspect(response, runtime.now());
      } catch (err) {
        if (caller.aborted) throw new AbortError(context);
        outcome = { kind: timeout.aborted ? 'timeout' : 'network' };
        failure = err;
      }
      if (outcome.kind === 'response' && outcome.status === 503) unavailable++;
      const delay = retryDelay(policy, outcome, context.attempts, unavailable, runtime.random);
      const final =
        delay === undefined || context.attempts >= policy.maxAttempts || runtime.now() - started + delay > policy.deadlineMs;
      if (final) {
        if (response) return response; // openapi-fetch parses it; the client turns a failure into its error
        throw outcome.kind === 'timeout' ? new TimeoutError(runtime.timeoutMs, context) : new NetworkError(failure, context);
      }
      runtime.onRetry?.({
        operationId: context.operationId,
        idempotencyKey: context.idempotencyKey,
        attempt: context.attempts,
        delayMs: delay,
        reason: outcome.kind === 'response' ? outcome.status : outcome.kind,
        code: outcome.kind === 'response' ? outcome.code : undefined,
      });
      await response?.body?.cancel().catch(() => {});
      try {
        await runtime.sleep(delay, caller);
      } catch (err) {
        if (caller.aborted) throw new AbortError(context);
        throw err;
      }
    }
  };
}
