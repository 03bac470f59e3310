// One error hierarchy. Every error carries the Idempotency-Key of its call (store it: a later process can
// resume the same payment with it) and how many attempts were sent. No error holds the request, its
// headers or the API key: they are never enumerable, never in a message, never in JSON.
import type { ErrorCode, OperationId } from '@payments/types';
import { OUTCOME_UNKNOWN, REFUSED, type NextStep } from './next-step.ts';

/** The codes the spec gives each operation; `CodeOf<Op>` also takes a union of operations. */
type Codes = { [Op in OperationId]: ErrorCode<Op> };
export type CodeOf<Op extends OperationId> = Codes[Op];

/** A string field of a body that may hold anything. */
export const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** How every error of an unknown outcome ends its message. */
const SAME_KEY = 'outcome unknown, retry with the same Idempotency-Key';

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
  /**
   * May this same request be sent again, later, with the same `idempotencyKey`? The service answers a
   * replay with the original result, so this is how an unknown outcome is learnt. False when the same
   * request would only be refused again.
   */
  declare mayRetrySameKey: boolean;
  /**
   * Can a new attempt start under a NEW key without paying twice? True only when the provider says nothing
   * happened under this key (a refusal, or nothing sent). False when the outcome is unknown (a 5xx, the
   * edge's 502/504, a timeout, a dropped connection), while the attempt is pending review, and on an
   * idempotency conflict (the key was already used for another request, which may have paid).
   */
  declare newKeySafe: boolean;

  constructor(message: string, next: NextStep, context?: ErrorContext, options?: { cause?: unknown }) {
    super(message, options);
    // mayRetrySameKey, newKeySafe; the call's ids and count (without a call, as when creation refuses an
    // option: no ids, 0 attempts). A context holds its ids, the count and retryAfterMs: nothing of the request.
    Object.assign(this, next, { operationId: undefined, idempotencyKey: undefined, attempts: 0 }, context);
  }

  /** The own enumerable fields (stack and cause are not: the cause may hold anything) and the message. */
  toJSON(): object {
    return { ...this, message: this.message };
  }
}

/**
 * The API answered with the shared error body (or a non-2xx without one that is not the edge's). Narrow it
 * to an operation, and so type its codes, with `isApiError(err, 'createTransfer')`.
 */
export class ApiError<Op extends OperationId = OperationId> extends PaymentsError {
  override name = 'ApiError';
  declare operationId: Op;
  declare status: number;
  /** Machine-readable code: one the spec gives the operation, or one it does not know yet (passed through as it came). */
  declare code: CodeOf<Op> | (string & {});
  declare requestId: string | undefined;
  /** The response's Retry-After (seconds or an HTTP date), in milliseconds like every option; undefined without one. */
  declare retryAfterMs: number | undefined;

  constructor(
    status: number,
    code: string,
    body: { error?: unknown; requestId?: unknown } | undefined,
    next: NextStep,
    context: ErrorContext & { retryAfterMs?: number | undefined },
  ) {
    super(text(body?.error) ?? `HTTP ${status}`, next, context);
    this.status = status;
    this.code = code;
    this.requestId = text(body?.requestId);
  }
}

/**
 * An ApiError of that operation (with one of those codes, when given). The codes are checked against the
 * operation's codes in the spec, so a misspelled or foreign code is a type error, and `err.code` narrows.
 */
export function isApiError<Op extends OperationId>(err: unknown, operationId: Op): err is ApiError<Op>;
export function isApiError<Op extends OperationId, const C extends CodeOf<Op>>(err: unknown, operationId: Op, ...codes: [C, ...C[]]): err is ApiError<Op> & { code: C };
export function isApiError(err: unknown, operationId: string, ...codes: string[]): boolean {
  return err instanceof ApiError && err.operationId === operationId && (!codes.length || codes.includes(err.code));
}

/** The edge's 502/504 (statuses marked x-origin: edge), without the JSON error body: the outcome is unknown. */
export class EdgeError extends PaymentsError {
  override name = 'EdgeError';
  declare status: number;
  constructor(status: number, context: ErrorContext) {
    super(`HTTP ${status} from the edge: ${SAME_KEY}`, OUTCOME_UNKNOWN, context);
    this.status = status;
  }
}

/** An attempt got no answer within `timeoutMs`: the outcome is unknown. */
export class TimeoutError extends PaymentsError {
  override name = 'TimeoutError';
  constructor(timeoutMs: number, context: ErrorContext) {
    super(`no response in ${timeoutMs} ms: ${SAME_KEY}`, OUTCOME_UNKNOWN, context);
  }
}

/** The connection failed: the outcome is unknown. */
export class NetworkError extends PaymentsError {
  override name = 'NetworkError';
  constructor(cause: unknown, context: ErrorContext) {
    super(`network error: ${SAME_KEY}`, OUTCOME_UNKNOWN, context, { cause });
  }
}

/** An answer came (`status`) but its body could not be read (not JSON, cut off): the outcome is unknown. */
export class ResponseError extends PaymentsError {
  override name = 'ResponseError';
  declare status: number;
  constructor(status: number, cause: unknown, context: ErrorContext) {
    super(`HTTP ${status} unreadable: ${SAME_KEY}`, OUTCOME_UNKNOWN, context, { cause });
    this.status = status;
  }
}

/** The caller's AbortSignal fired (during an attempt, a wait, or the reading of the answer). */
export class AbortError extends PaymentsError {
  override name = 'AbortError';
  constructor(context: ErrorContext) {
    // Before the first attempt nothing was sent: a new key is safe then, and only then.
    super('aborted: if sent, retry with the same Idempotency-Key', context.attempts ? OUTCOME_UNKNOWN : { mayRetrySameKey: true, newKeySafe: true }, context);
  }
}

/** Refused before anything was sent: the request breaks a rule of the spec. */
export class ValidationError extends PaymentsError {
  override name = 'ValidationError';
  /** The code the API would answer with (`invalid_checkout_session_amount`, …). */
  declare code: string;
  declare field: string | undefined;
  constructor(code: string, message: string, field: string | undefined, context: ErrorContext) {
    super(message, REFUSED, context);
    this.code = code;
    this.field = field;
  }
}
