// The provider's retry-outcome table for transfer creation (section 3), as a function: what a result or an
// error means for the payment, and so what the caller does with its key.
import type { components } from '@payments/types';
import { ApiError, PaymentsError, isApiError } from './errors.ts';

export type TransferOutcome =
  /** 201 pending/completed: keep the key, track this transfer, do not submit again. */
  | { kind: 'resolved'; transfer: components['schemas']['Transfer']; idempotencyKey: string | undefined }
  /** 201 failed/cancelled: the attempt is closed; a new attempt needs a new key. */
  | { kind: 'closed'; transfer: components['schemas']['Transfer']; idempotencyKey: string | undefined }
  /** 409 banking_transfer_attempt_pending_review: do not use a new key; contact support if it persists. */
  | { kind: 'pending_review'; error: ApiError<'createTransfer'>; idempotencyKey: string | undefined }
  /** Any 5xx (but a code the catalog marks not retryable), edge 502/504, timeout, network, abort, an unreadable answer: unknown; retry later with the SAME key. */
  | { kind: 'unresolved'; error: PaymentsError; idempotencyKey: string | undefined }
  /** A definite refusal (a 4xx, a 5xx code the catalog calls configuration, or refused before sending): nothing was paid under this key. */
  | { kind: 'rejected'; error: PaymentsError; idempotencyKey: string | undefined };

export function classifyTransfer(
  outcome: { data: components['schemas']['Transfer']; idempotencyKey: string | undefined } | unknown,
): TransferOutcome {
  if (outcome instanceof PaymentsError) {
    // `retryable` is false only for a definite answer: a 4xx, a catalog code marked not retryable, or nothing sent.
    const kind = isApiError(outcome, 'createTransfer', 'banking_transfer_attempt_pending_review') ? 'pending_review' : outcome.retryable ? 'unresolved' : 'rejected';
    return { kind, error: outcome, idempotencyKey: outcome.idempotencyKey } as TransferOutcome;
  }
  if (typeof outcome !== 'object' || outcome === null || !('data' in outcome)) throw outcome;
  const { data, idempotencyKey } = outcome as { data: components['schemas']['Transfer']; idempotencyKey: string | undefined };
  const closed = data.status === 'failed' || data.status === 'cancelled';
  return { kind: closed ? 'closed' : 'resolved', transfer: data, idempotencyKey };
}
