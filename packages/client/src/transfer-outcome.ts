// The provider's retry-outcome table for transfer creation (section 3), as a function: what a result or an
// error means for the payment, and so what the caller does with its key.
import type { components } from '@payments/types';
import { PaymentsError, ApiError } from './errors.ts';

export type TransferOutcome =
  /** 201 pending/completed: keep the key, track this transfer, do not submit again. */
  | { kind: 'resolved'; transfer: components['schemas']['Transfer']; idempotencyKey: string | undefined }
  /** 201 failed/cancelled: the attempt is closed; a new attempt needs a new key. */
  | { kind: 'closed'; transfer: components['schemas']['Transfer']; idempotencyKey: string | undefined }
  /** 409 banking_transfer_attempt_pending_review: do not use a new key; contact support if it persists. */
  | { kind: 'pending_review'; error: ApiError; idempotencyKey: string | undefined }
  /** Temporary 503, edge 502/504, timeout, network: still unresolved; retry later with the SAME key. */
  | { kind: 'unresolved'; error: PaymentsError; idempotencyKey: string | undefined }
  /** A definite refusal (4xx, not sent): nothing was paid under this key. */
  | { kind: 'rejected'; error: PaymentsError; idempotencyKey: string | undefined };

export function classifyTransfer(
  outcome: { data: components['schemas']['Transfer']; idempotencyKey: string | undefined } | unknown,
): TransferOutcome {
  if (outcome instanceof PaymentsError) {
    const key = outcome.idempotencyKey;
    if (outcome instanceof ApiError && outcome.code === 'banking_transfer_attempt_pending_review') return { kind: 'pending_review', error: outcome, idempotencyKey: key };
    return outcome.retryable ? { kind: 'unresolved', error: outcome, idempotencyKey: key } : { kind: 'rejected', error: outcome, idempotencyKey: key };
  }
  if (typeof outcome !== 'object' || outcome === null || !('data' in outcome)) throw outcome;
  const { data, idempotencyKey } = outcome as { data: components['schemas']['Transfer']; idempotencyKey: string | undefined };
  const closed = data.status === 'failed' || data.status === 'cancelled';
  return { kind: closed ? 'closed' : 'resolved', transfer: data, idempotencyKey };
}
