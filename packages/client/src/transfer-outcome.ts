// The provider's retry-outcome table for transfer creation (section 3), as a function: what a result or an
// error means for the payment, and so what the caller does with its key. Errors are sorted by the two
// answers every PaymentsError carries (mayRetrySameKey, newKeySafe) and by the codes that say the key
// already started something (next-step.ts).
import type { components } from '@payments/types';
import { ApiError, PaymentsError } from './errors.ts';
import { keyInUseBy } from './next-step.ts';

type Transfer = components['schemas']['Transfer'];

export type TransferOutcome =
  /** 201 pending/completed: keep the key, track this transfer, do not submit again. */
  | { kind: 'resolved'; transfer: Transfer; idempotencyKey: string | undefined }
  /** 201 failed/cancelled: the attempt is closed; a new attempt needs a new key. */
  | { kind: 'closed'; transfer: Transfer; idempotencyKey: string | undefined }
  /** 409 banking_transfer_attempt_pending_review: never a new key; ask again later with the SAME key, contact support if it persists. */
  | { kind: 'pending_review'; error: ApiError<'createTransfer'>; idempotencyKey: string | undefined }
  /**
   * 409 banking_transfer_idempotency_conflict: this key was already used for ANOTHER request (a different
   * amount or recipient). That request may have paid (or been refused: its refusal is the key's result too, and
   * the answer does not say which): find out before paying again (a new key only for a genuinely new
   * payment); sending this request again, with either key, is a decision for a human.
   */
  | { kind: 'key_conflict'; error: ApiError<'createTransfer'>; idempotencyKey: string | undefined }
  /**
   * Not done yet, and a new key could pay twice: any 5xx (but a code the catalog marks not retryable), edge
   * 502/504, timeout, network, an abort after sending, an unreadable answer, a rate limit. Retry later with the SAME key.
   */
  | { kind: 'unresolved'; error: PaymentsError; idempotencyKey: string | undefined }
  /**
   * A definite refusal, the provider says nothing happened under this key (a 4xx other than a rate limit
   * or the two above, a 5xx code the catalog calls configuration, or refused before sending): the same
   * request would be refused again, and so would a corrected one under this key (the refusal is its result):
   * fix it, and send the corrected attempt with a new key (e.g. derived from `<order id>:attempt-<n + 1>`).
   */
  | { kind: 'rejected'; error: PaymentsError; idempotencyKey: string | undefined };

export function classifyTransfer(outcome: { data: Transfer; idempotencyKey: string | undefined } | unknown): TransferOutcome {
  if (outcome instanceof PaymentsError) {
    const kind = (outcome instanceof ApiError && keyInUseBy(outcome.code)) || (outcome.newKeySafe && !outcome.mayRetrySameKey ? 'rejected' : 'unresolved');
    return { kind, error: outcome, idempotencyKey: outcome.idempotencyKey } as TransferOutcome;
  }
  if (!('data' in Object(outcome))) throw outcome; // not a result: a primitive, null, or an object without data
  const { data, idempotencyKey } = outcome as { data: Transfer; idempotencyKey: string | undefined };
  const closed = data.status === 'failed' || data.status === 'cancelled';
  return { kind: closed ? 'closed' : 'resolved', transfer: data, idempotencyKey };
}
