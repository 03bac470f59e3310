// The retry loop, under openapi-fetch (its `fetch` option): openapi-fetch builds the Request once, with
// the Idempotency-Key already set, and this loop re-sends clones of it. So every attempt of a call carries
// the same key by construction; nothing here can mint a new one. Each attempt has its own timeout; waits
// are abortable through the caller's signal.
import { AbortError, NetworkError, TimeoutError, type ErrorContext } from './errors.ts';
import { retryDelay, type Attempt, type RetryPolicy } from './policy.ts';

export interface RetryEvent {
  operationId: string | undefined;
  idempotencyKey: string | undefined;
  /** Requests sent so far; the last one just failed. */
  attempts: number;
  delayMs: number;
  reason: 'network' | 'timeout' | number;
  code: string | undefined;
}

export interface Runtime {
  /** Gets the attempt's signal in `init`: the Request itself carries none (building one with a signal costs more). */
  fetch: (request: Request, init: { signal: AbortSignal }) => Promise<Response>;
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

/**
 * One attempt's signal: aborts on the caller's signal or after `timeoutMs`. A plain timer and listener,
 * released by dispose(): nothing outlives the attempt (AbortSignal.timeout/any hold memory until the
 * timeout fires, 30 s later).
 */
export interface AttemptSignal {
  signal: AbortSignal;
  timedOut: boolean;
  dispose(): void;
}

export function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined): AttemptSignal {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller?.reason);
  const timer = setTimeout(() => {
    attempt.timedOut = true;
    controller.abort(new DOMException('timeout', 'TimeoutError'));
  }, timeoutMs);
  (timer as { unref?: () => void }).unref?.();
  caller?.addEventListener('abort', onAbort, { once: true });
  const attempt: AttemptSignal = {
    signal: controller.signal,
    timedOut: false,
    dispose() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
  return attempt;
}

export interface CallState {
  /** The caller's signal (the Request carries the attempt's). */
  caller: AbortSignal | undefined;
  /** The first attempt's signal, already on the Request openapi-fetch built. */
  first: AttemptSignal;
  /** The serialized body, to rebuild the Request for a retry (the first attempt consumed it). */
  bodyText: () => string | undefined;
  /** The attempt whose response is returned: the caller disposes it once the body is read. */
  last?: AttemptSignal;
}

/** A `fetch` for one call: retries per `policy`, counting attempts into `context`. */
export function retryingFetch(runtime: Runtime, policy: RetryPolicy, context: ErrorContext & { attempts: number }, state: CallState) {
  return async (request: Request): Promise<Response> => {
    const started = runtime.now();
    const caller = state.caller;
    let unavailable = 0;
    let attempt = state.first;
    let toSend = request; // the first attempt sends openapi-fetch's Request as it is: no clone, no copy
    for (;;) {
      if (caller?.aborted) throw new AbortError(context);
      context.attempts++;
      let response: Response | undefined;
      let outcome: Attempt;
      let failure: unknown;
      try {
        response = await runtime.fetch(toSend, { signal: attempt.signal });
        if (response.ok) {
          state.last = attempt; // the common case: an answer, nothing to decide
          return response;
        }
        outcome = await inspect(response, runtime.now());
      } catch (err) {
        attempt.dispose();
        if (caller?.aborted) throw new AbortError(context);
        outcome = { kind: attempt.timedOut ? 'timeout' : 'network' };
        failure = err;
      }
      if (outcome.kind === 'response' && outcome.status === 503) unavailable++;
      const delay = retryDelay(policy, outcome, context.attempts, unavailable, runtime.random);
      const final =
        delay === undefined || context.attempts >= policy.maxAttempts || runtime.now() - started + delay > policy.deadlineMs;
      if (final) {
        if (response) {
          state.last = attempt; // still guards the body openapi-fetch is about to read
          return response;
        }
        throw outcome.kind === 'timeout' ? new TimeoutError(runtime.timeoutMs, context) : new NetworkError(failure, context);
      }
      runtime.onRetry?.({
        operationId: context.operationId,
        idempotencyKey: context.idempotencyKey,
        attempts: context.attempts,
        delayMs: delay,
        reason: outcome.kind === 'response' ? outcome.status : outcome.kind,
        code: outcome.kind === 'response' ? outcome.code : undefined,
      });
      await response?.body?.cancel().catch(() => {});
      attempt.dispose();
      try {
        await runtime.sleep(delay, caller ?? neverAborted);
      } catch (err) {
        if (caller?.aborted) throw new AbortError(context);
        throw err;
      }
      if (caller?.aborted) throw new AbortError(context);
      attempt = attemptSignal(runtime.timeoutMs, caller);
      // Same URL, method and headers (so the same Idempotency-Key) as the first attempt, by construction.
      const bodyText = state.bodyText();
      if (bodyText !== undefined) toSend = new Request(request, { body: bodyText });
    }
  };
}

const neverAborted = new AbortController().signal;
