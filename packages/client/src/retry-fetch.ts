// The retry loop, under openapi-fetch (its `fetch` option): openapi-fetch builds the Request once, with
// the Idempotency-Key already set, and this loop re-sends clones of it. So every attempt of a call carries
// the same key by construction; nothing here can mint a new one. Each attempt has its own timeout; waits
// are abortable through the caller's signal.
import { AbortError, NetworkError, TimeoutError, text } from './errors.ts';
import { TIMEOUT, type Deadlines } from './deadlines.ts';
import { retryDelay, type Attempt, type RetryPolicy } from './policy.ts';

/** One call's ids and attempt count: what every error, log and retry event of the call carries. */
export interface CallContext {
  operationId: string | undefined;
  idempotencyKey: string | undefined;
  /** Requests sent so far. */
  attempts: number;
}

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
  /** The client's one timer for every attempt's timeout. */
  deadlines: Deadlines;
  onRetry: (event: RetryEvent) => void;
}

/** An abortable setTimeout; the default `sleep`. Its timer is not unref'd either: the caller awaits the call. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal.aborted) done();
    else signal.addEventListener('abort', done);
  });
}

/**
 * Seconds (or an HTTP date) in Retry-After, as milliseconds; undefined when it is neither. Seconds are read as
 * a number, so `1.5` is a second and a half (RFC 9110 allows digits only; Date.parse would read `1.5`, `-5` or
 * `in 5` as a date in 2001, a wait of 0): a date is read only with a time of day, which every HTTP-date has.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value?.trim()) return undefined;
  const seconds = Number(value);
  const ms = seconds >= 0 ? seconds * 1000 : /\d:\d\d:\d/.test(value) ? Math.max(0, Date.parse(value) - now) : NaN;
  return ms < Infinity ? ms : undefined; // neither NaN (not a number, not a date) nor Infinity
}

/**
 * One attempt's signal: aborts after `timeoutMs` or when the caller's signal aborts. A deadline on the
 * client's one timer (deadlines.ts) and a listener, released by dispose(): nothing outlives the attempt
 * (AbortSignal.timeout/any hold memory until the timeout fires, 30 s later). On abort it also calls `interrupt`, the reject of whatever waits on the
 * attempt (its fetch, then the reading of its body): a fetch or a body that ignores the signal cannot
 * outlive the attempt. (A hook rather than a second abort listener: fewer objects per call. Keep this a
 * plain object: a getter in it made every call measurably slower, bench/client.)
 */
export interface AttemptSignal {
  signal: AbortSignal;
  interrupt: ((reason: unknown) => void) | undefined;
  dispose(): void;
}

export const timedOut = (attempt: AttemptSignal) => attempt.signal.reason === TIMEOUT;

export function attemptSignal(runtime: Runtime, caller: AbortSignal | undefined): AttemptSignal {
  const controller = new AbortController();
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return; // the first end wins (the timer and the caller may both fire)
    controller.abort(reason);
    attempt.interrupt?.(reason);
  };
  const onCallerAbort = () => abort(caller!.reason);
  runtime.deadlines.watch(abort); // called with TIMEOUT when the attempt's time is up
  caller?.addEventListener('abort', onCallerAbort); // removed by dispose(), which every call ends with
  const attempt: AttemptSignal = {
    signal: controller.signal,
    interrupt: undefined,
    dispose() {
      runtime.deadlines.release(abort);
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
  return attempt;
}

export interface CallState {
  /** The caller's signal (the Request carries the attempt's). */
  caller: AbortSignal | undefined;
  /**
   * The current attempt's signal (the first one's is already on the Request openapi-fetch built). The call
   * disposes it when it ends, whichever way it ends: its timer must not outlive the call.
   */
  attempt: AttemptSignal;
  /** The serialized body, to rebuild the Request for a retry (the first attempt consumed it). */
  bodyText?: string;
  /** Set when a response is handed to openapi-fetch: its body is then read under `attempt`. */
  status?: number;
  /** Ends the call with a reason: the reject of the call's wait on openapi-fetch, the attempt's `interrupt` while the body is read. */
  abandon?: (reason: unknown) => void;
}

/** A `fetch` for one call: retries per `policy`, counting attempts into `context`. */
export function retryingFetch(runtime: Runtime, policy: RetryPolicy, context: CallContext, state: CallState) {
  return async (request: Request): Promise<Response> => {
    const started = runtime.now();
    const caller = state.caller;
    const counts = { unavailableWait: 0 };
    let toSend = request; // the first attempt sends openapi-fetch's Request as it is: no clone, no copy
    for (;;) {
      context.attempts++;
      const attempt = state.attempt;
      let response: Response | undefined;
      let outcome: Attempt | undefined; // none for a 2xx: the common case, nothing to decide
      let failure: unknown;
      try {
        response = await new Promise<Response>((resolve, reject) => {
          attempt.interrupt = reject; // the attempt's end, even if the fetch ignores its signal
          runtime.fetch(toSend, { signal: attempt.signal }).then((late) => {
            if (attempt.signal.aborted) late.body?.cancel().catch(() => {}); // too late: free its connection
            resolve(late);
          }, reject);
        });
        if (!response.ok) {
          outcome = {
            kind: 'response',
            status: response.status,
            retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), runtime.now()),
            // Read from a clone (openapi-fetch reads the body itself afterwards): the policy may name any code.
            // No JSON body (the edge, a proxy): no code.
            code: text((await response.clone().json().catch(() => undefined))?.code),
          };
        }
      } catch (err) {
        if (caller?.aborted) throw new AbortError(context);
        outcome = { kind: timedOut(attempt) ? 'timeout' : 'network' };
        failure = err;
      }
      const delay = outcome && retryDelay(policy, outcome, context.attempts, counts, runtime.random);
      // Final: a 2xx (no outcome), an answer not retried, the last attempt, or a wait past the deadline.
      if (!outcome || delay === undefined || context.attempts >= policy.maxAttempts || runtime.now() - started + delay > policy.deadlineMs) {
        if (response) {
          // Handed to openapi-fetch: the attempt now guards the body it reads (`abandon` is set: the call
          // waits on openapi-fetch since before this fetch).
          state.status = response.status;
          attempt.interrupt = state.abandon;
          return response;
        }
        throw timedOut(attempt) ? new TimeoutError(runtime.timeoutMs, context) : new NetworkError(failure, context);
      }
      // The context holds exactly the ids and the count: nothing of the request, headers or API key.
      runtime.onRetry({
        ...context,
        delayMs: delay,
        // A response's status and code; a network or timeout outcome has neither, and its kind is the reason.
        reason: (outcome as { status?: number }).status ?? (outcome.kind as 'network' | 'timeout'),
        code: (outcome as { code?: string }).code,
      });
      await response?.body?.cancel().catch(() => {});
      attempt.dispose();
      await runtime.sleep(delay, caller ?? neverAborted).catch((err) => {
        if (!caller?.aborted) throw err;
      });
      if (caller?.aborted) throw new AbortError(context);
      state.attempt = attemptSignal(runtime, caller);
      // Same URL, method and headers (so the same Idempotency-Key) as the first attempt, by construction.
      if (state.bodyText !== undefined) toSend = new Request(request, { body: state.bodyText });
    }
  };
}

const neverAborted = new AbortController().signal;
