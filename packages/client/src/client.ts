// createPaymentsClient: openapi-fetch with our layer. Per call it (1) fixes the Idempotency-Key of a POST
// (the caller's, or a new random one), (2) checks the request against the spec's rules and sends nothing
// when it breaks one, (3) sends through the retry loop, which re-sends the same Request, and (4) returns
// the typed data with the key and the attempt count, or throws one of our errors carrying both.
import createClient, { type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from '@payments/types';
import { AbortError, ApiError, EdgeError, PaymentsError, ResponseError, TimeoutError, text } from './errors.ts';
import { operationIds } from './generated/spec-rules.ts';
import { newIdempotencyKey } from './idempotency.ts';
import { nextStepAfter, REFUSED } from './next-step.ts';
import { inRange, policyFor, retryMode, specRetryOnFor, type RetryOptions, type RetryPolicy } from './policy.ts';
import { deadlines, type SetTimer } from './deadlines.ts';
import { attemptSignal, parseRetryAfter, retryingFetch, sleep, timedOut, type CallContext, type CallState, type RetryEvent, type Runtime } from './retry-fetch.ts';
import { checkBody, checkIdempotencyKey, HEADER_EXACT } from './validate.ts';

/** The spec's paths with the POSTs' Idempotency-Key header made optional: the client fills it in. */
type KeyOptional<Op> = Op extends { parameters: { header: infer H } }
  ? Omit<Op, 'parameters'> & { parameters: Omit<Op['parameters'], 'header'> & { header?: Partial<H> } }
  : Op;
export type ClientPaths = {
  [P in keyof paths]: { [M in keyof paths[P]]: M extends 'post' ? KeyOptional<paths[P][M]> : paths[P][M] };
};
type PathsWith<M extends 'get' | 'post'> = { [P in keyof ClientPaths]: ClientPaths[P] extends { [K in M]: {} } ? P : never }[keyof ClientPaths];
type Op<P extends keyof ClientPaths, M extends 'get' | 'post'> = ClientPaths[P][M & keyof ClientPaths[P]] & Record<string | number, any>;
type Data<P extends keyof ClientPaths, M extends 'get' | 'post'> = NonNullable<
  Extract<FetchResponse<Op<P, M>, {}, 'application/json'>, { error?: never }>['data']
>;

export interface CallOptions {
  /** The key for this call (left out: a new random one; given as undefined or null: refused). Derive it with deriveIdempotencyKey() to make it resumable. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}
type Init<P extends keyof ClientPaths, M extends 'get' | 'post'> = NonNullable<MaybeOptionalInit<ClientPaths[P], M>> & CallOptions;

export interface Result<D> {
  data: D;
  response: Response;
  /** The key every attempt carried (POST only). */
  idempotencyKey: string | undefined;
  attempts: number;
}

/** What `logger` receives: ids, counts and codes only, never headers, bodies or the API key. */
export type LogEvent =
  | ({ event: 'retry' } & RetryEvent)
  | { event: 'success' | 'failure'; operationId: string | undefined; idempotencyKey: string | undefined; attempts: number; status?: number; code?: string };

export interface PaymentsClientOptions {
  apiKey: string;
  baseUrl: string;
  /**
   * A custom fetch (tests, proxies, instrumentation). It should honour `init.signal` (the attempt's timeout
   * and the caller's abort) to free its connection; the timeout and the abort end the attempt even if it does not.
   */
  fetch?: (request: Request, init: { signal: AbortSignal }) => Promise<Response>;
  retry?: RetryOptions;
  /** Per attempt (the answer and its body), not per call. Default 30 s; from 1 ms to 2^31-1 ms (a timer's range), else refused. */
  timeoutMs?: number;
  /** Injectable timer of the per-attempt timeout: `(ms, onTimeout) => cancel`, e.g. virtual time in tests (pair it with `sleep` and `now`). */
  setTimer?: SetTimer;
  /** Injectable wait, e.g. virtual time in tests. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Injectable clock for the retry deadline (pair it with `sleep`). */
  now?: () => number;
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
  /** Redacted events: never headers, bodies or the API key. */
  logger?: (event: LogEvent) => void;
  /** API keys are server-only; set this to run in a browser anyway. */
  dangerouslyAllowBrowser?: boolean;
}

// A page, or a browser's web worker (importScripts exists only there: not in Deno's or an edge runtime's workers).
const inBrowser = ({ document, importScripts } = globalThis as { document?: unknown; importScripts?: unknown }) =>
  document !== undefined || typeof importScripts === 'function';

export function createPaymentsClient(options: PaymentsClientOptions) {
  const { apiKey, baseUrl } = options;
  const timeoutMs = options.timeoutMs ?? 30_000;
  // Refused here, what would fail every call: Headers throws on a newline in the key; fetch fails on a URL
  // without http(s) (a NetworkError, retried for minutes); timers take a number of ms up to 2^31-1 (about
  // 24.8 days), else they fire at once (a string, 0, NaN, 2^31) or never.
  const refused =
    inBrowser() && !options.dangerouslyAllowBrowser
      ? 'API keys are server-only (see dangerouslyAllowBrowser)'
      : typeof apiKey !== 'string' || !HEADER_EXACT.test(apiKey)
        ? 'invalid apiKey: printable ASCII, without outer spaces'
        : !/^https?:$/.test(URL.parse(baseUrl)?.protocol!)
          ? 'invalid baseUrl: not an absolute http(s) URL'
          : !inRange(timeoutMs, 1)
            ? 'invalid timeoutMs'
            : undefined;
  if (refused) throw new PaymentsError(refused, REFUSED);
  const api = createClient<ClientPaths>({ baseUrl, headers: { 'x-api-key': apiKey } });
  const log = options.logger;
  const now = options.now ?? Date.now;
  const runtime: Runtime = {
    fetch: options.fetch ?? ((request, init) => globalThis.fetch(request, init)), // the global fetch, looked up per call
    sleep: options.sleep ?? sleep,
    now,
    random: options.random ?? Math.random,
    timeoutMs,
    deadlines: deadlines(timeoutMs, options.setTimer, now),
    onRetry: (event) => {
      options.onRetry?.(event);
      log?.({ event: 'retry', ...event });
    },
  };

  const policies = new Map<string | undefined, RetryPolicy>();
  /** The Idempotency-Key among headers of any HeadersInit form, in any spelling (Headers reads names without case). */
  const keyIn = (headers: any) => new Headers(headers).get('Idempotency-Key');


  async function call(method: 'GET' | 'POST', path: string, init: Record<string, any> = {}): Promise<Result<unknown>> {
    const { idempotencyKey, signal: caller, ...rest } = init;
    const operationId = (operationIds as Record<string, string>)[`${method} ${path}`];
    // Only a POST gets a key (and so its own header object); a GET passes its params through untouched.
    const header = method === 'POST' ? { ...rest.params?.header } : undefined;
    // A key the caller put in a header is theirs in any spelling (header names ignore case), in params.header or
    // in `headers`: a key not seen there would go out replaced by a new one, and make a retry a second payment.
    // An idempotencyKey given is the key, even undefined or null (a stored key not filled yet): refused below,
    // never replaced by a random one, which would make the application's own retry a second payment (QA).
    const key: string | undefined =
      header && ('idempotencyKey' in init ? idempotencyKey : (header['Idempotency-Key'] ?? keyIn(header) ?? keyIn(rest.headers) ?? newIdempotencyKey()));
    const context: CallContext = { operationId, idempotencyKey: key, attempts: 0 };
    if (header) {
      checkIdempotencyKey(operationId, key, context);
      header['Idempotency-Key'] = key;
    }
    const body = checkBody(operationId, rest.body, context); // undefined stays undefined
    if ((caller as AbortSignal | undefined)?.aborted) throw new AbortError(context);
    const state: CallState = { caller, attempt: attemptSignal(runtime, caller) };
    let policy = policies.get(operationId);
    if (!policy) policies.set(operationId, (policy = policyFor(operationId, options.retry)));
    let result;
    try {
      // Built by assignment: a GET spreads no empty objects (the per-call cost is measured, bench/client).
      const request: Record<string, unknown> = { ...rest, fetch: retryingFetch(runtime, policy, context, state) };
      if (header) request.params = { ...rest.params, header };
      if (body !== undefined) {
        request.body = body;
        request.bodySerializer = (value: unknown) => (state.bodyText = JSON.stringify(value));
      }
      const answered = api.request(method as 'get', path as never, request as never);
      // The body is read under the last attempt's timeout and the caller's signal even when the fetch's
      // Response ignores them: that attempt's signal calls `abandon` when it aborts.
      result = await new Promise<Awaited<typeof answered>>((resolve, reject) => {
        state.abandon = reject;
        answered.then(resolve, reject);
      });
      if (!result.response.ok) throw toError(result.response, result.error, context, runtime.now());
      // Every 2xx of this API has a JSON body: none (openapi-fetch's undefined) or null is no answer, like a cut-off one.
      if ((result.data as unknown) == null) throw new ResponseError(result.response.status, undefined, context);
    } catch (raw) {
      // Raised while openapi-fetch read the body of the answer the loop returned (timeout, abort, not JSON):
      // made one of ours, so the caller keeps the key of a payment that may have been made.
      const err =
        raw instanceof PaymentsError || state.status === undefined
          ? raw
          : caller?.aborted
            ? new AbortError(context)
            : timedOut(state.attempt)
              ? new TimeoutError(runtime.timeoutMs, context)
              : new ResponseError(state.status, raw, context);
      // An API error's status and code (other errors have none: both undefined, left out of JSON).
      log?.({ event: 'failure', ...context, status: (err as ApiError).status, code: (err as ApiError).code });
      throw err;
    } finally {
      state.attempt.dispose();
    }
    log?.({ event: 'success', ...context, status: result.response.status });
    return { data: result.data, response: result.response, idempotencyKey: key, attempts: context.attempts };
  }

  return {
    // The init is optional where the operation needs none (a rest parameter for the types only).
    GET: ((path: string, init?: Record<string, any>) => call('GET', path, init)) as <P extends PathsWith<'get'>>(
      path: P,
      ...init: {} extends Init<P, 'get'> ? [Init<P, 'get'>?] : [Init<P, 'get'>]
    ) => Promise<Result<Data<P, 'get'>>>,
    POST: <P extends PathsWith<'post'>>(path: P, init: Init<P, 'post'>) => call('POST', path, init) as Promise<Result<Data<P, 'post'>>>,
  };
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;

/** The next step follows the spec, not the caller's policy: a status the caller chose not to retry may still succeed later. */
function toError(response: Response, body: unknown, context: CallContext, now: number): PaymentsError {
  const { status } = response;
  const json = body instanceof Object ? (body as Record<string, unknown>) : undefined; // parsed here: never of another realm
  if (!json && retryMode(specRetryOnFor(context.operationId), status) === 'backoff') return new EdgeError(status, context);
  const code = text(json?.code) ?? `http_${status}`;
  return new ApiError(status, code, json, nextStepAfter(context.operationId, status, code), {
    ...context,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now),
  });
}
