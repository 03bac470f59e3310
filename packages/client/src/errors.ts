// One error hierarchy. Every error carries the Idempotency-Key of its call (store it: a later process can
// resume the same payment with it) and how many attempts were sent. No error holds the request, its
// headers or the API key: they are never enumerable, never in a message, never in JSON.

export interface ErrorContext {
  operationId?: string | undefined;
  idempotencyKey?: string | undefined;
  attempts?: number;
}

export class PaymentsError extends Error {
  override name = 'PaymentsError';
  declare operationId: string | undefined;
  /** The key every attempt of this call carried; reuse it to retry the same request later. */
  declare idempotencyKey: string | undefined;
  /** Requests sent for this call (0 when it was refused before sending). */
  declare attempts: number;
  /** Whether repeating the same request later, with the same key, may succeed. */
  declare retryable: boolean;

  constructor(message: string, retryable: boolean, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
    this.operationId = context.operationId;
    this.idempotencyKey = context.idempotencyKey;
    this.attempts = context.attempts ?? 0;
  }

  toJSON(): Record<string, unknown> {
    const { stack: _stack, cause: _cause, ...fields } = this as unknown as Record<string, unknown>;
    return { ...fields, message: this.message };
  }
}

/** The API answered with the shared error body (or a non-2xx without one that is not the edge's). */
export class ApiError<Code extends string = string> extends PaymentsError {
  override name = 'ApiError';
  declare status: number;
  /** Machine-readable code; unknown codes are passed through as they came. */
  declare code: Code;
  declare requestId: string | undefined;
  /** Seconds from a Retry-After header, when the response had one. */
  declare retryAfter: number | undefined;

  constructor(
    status: number,
    body: { error?: unknown; code?: unknown; requestId?: unknown } | undefined,
    retryable: boolean,
    context: ErrorContext & { retryAfter?: number | undefined },
  ) {
    const code = typeof body?.code === 'string' ? body.code : `http_${status}`;
    super(typeof body?.error === 'string' ? body.error : `HTTP ${status}`, retryable, context);
    this.status = status;
    this.code = code as Code;
    this.requestId = typeof body?.requestId === 'string' ? body.requestId : undefined;
    this.retryAfter = context.retryAfter;
  }
}

/** 502/504 without the JSON error body, from the edge network: the outcome is unknown. */
export class EdgeError extends PaymentsError {
  override name = 'EdgeError';
  declare status: number;
  constructor(status: number, context: ErrorContext) {
    super(`HTTP ${status} from the edge: outcome unknown, retry with the same Idempotency-Key`, true, context);
    this.status = status;
  }
}

/** An attempt got no answer within `timeoutMs`: the outcome is unknown. */
export class TimeoutError extends PaymentsError {
  override name = 'TimeoutError';
  constructor(timeoutMs: number, context: ErrorContext) {
    super(`no response in ${timeoutMs} ms: outcome unknown, retry with the same Idempotency-Key`, true, context);
  }
}

/** The connection failed: the outcome is unknown. */
export class NetworkError extends PaymentsError {
  override name = 'NetworkError';
  constructor(cause: unknown, context: ErrorContext) {
    super(`network error: outcome unknown, retry with the same Idempotency-Key`, true, context, { cause });
  }
}

/** The caller's AbortSignal fired (during an attempt or a wait). */
export class AbortError extends PaymentsError {
  override name = 'AbortError';
  constructor(context: ErrorContext) {
    super('aborted: if a request was sent, retry with the same Idempotency-Key', true, context);
  }
}

/** Refused before anything was sent: the request breaks a rule of the spec. */
export class ValidationError extends PaymentsError {
  override name = 'ValidationError';
  /** The code the API would answer with (`invalid_checkout_session_amount`, …). */
  declare code: string;
  declare field: string | undefined;
  constructor(code: string, message: string, field: string | undefined, context: ErrorContext) {
    super(message, false, context);
    this.code = code;
    this.field = field;
  }
}
