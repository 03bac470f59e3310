// What an answer lets a payer do next, as the two questions a payer asks (every PaymentsError answers both):
//   mayRetrySameKey: may this same request be sent again, later, with the same Idempotency-Key?
//   newKeySafe:      can a new attempt start under a NEW key without paying twice? Only when the provider
//                    says nothing happened under this key (a refusal, or nothing sent).
// What the spec says is read from it (the catalog's x-retryable, the statuses retried); the two codes that
// say the key already started something are the provider's words (sections 3 and 7), typed by the spec's
// codes, so a code the spec drops or renames fails tsc.
import type { ErrorCode } from '@payments/types';
import { retryMode, specRetryOnFor } from './policy.ts';

export interface NextStep {
  mayRetrySameKey: boolean;
  newKeySafe: boolean;
}

/** No answer, or one that does not say what happened (a 5xx, the edge, a timeout): same key, never a new one. */
export const OUTCOME_UNKNOWN: NextStep = { mayRetrySameKey: true, newKeySafe: false };
/** A definite refusal, or nothing sent: the same request would be refused again; a corrected one takes a new key. */
export const REFUSED: NextStep = { mayRetrySameKey: false, newKeySafe: true };

type TransferCode = ErrorCode<'createTransfer'> & string;

/**
 * Whether this code says the key already started something, and what: never the same payment under a new
 * key then. (Codes mean one thing whatever the operation; typed by createTransfer's codes in the spec.)
 */
export const keyInUseBy = (code: string): 'pending_review' | 'key_conflict' | undefined =>
  // "An earlier request with this key started a payout still being confirmed": ask again with the SAME key.
  code === ('banking_transfer_attempt_pending_review' satisfies TransferCode)
    ? 'pending_review'
    : // "The key was already used with a different amount or recipient": the key paid that other request.
      code === ('banking_transfer_idempotency_conflict' satisfies TransferCode)
      ? 'key_conflict'
      : undefined;

/** The next step after an answer with the API's error body (or a non-2xx without one). */
export function nextStepAfter(operationId: string | undefined, status: number, code: string): NextStep {
  const inUse = keyInUseBy(code);
  const mode = retryMode(specRetryOnFor(operationId), status, code);
  // A 5xx leaves the outcome unknown (section 7: never a new key), unless the catalog marks its code not
  // retryable: a definite answer about configuration (checkout_pix_not_available: "No session was created").
  // A 4xx: "request rejected" (section 7), nothing happened; sent again only when the spec retries it (a rate limit).
  return {
    mayRetrySameKey: inUse ? inUse === 'pending_review' : status < 500 ? Boolean(mode) : mode !== false,
    newKeySafe: !inUse && (status < 500 || mode === false),
  };
}
