// The documented rate limits (x-rate-limit in the spec: 600 requests per 15 minutes per key, and a stricter
// one on card issuance), as fixed windows aligned to the clock: the provider does not say which kind it
// uses. Every authenticated request counts, refused ones included. Counting happens outside the request's
// data transaction (Store.hitRateLimit), so no request waits for another's COMMIT to be counted.
import type { Contract, OperationContract, RateLimit } from '../contract.ts';
import { Failure } from '../failure.ts';
import type { Store } from '../store/types.ts';

/** Counts the request against its key's limits; refuses it (429 with Retry-After) over either. */
export async function enforceRateLimits(store: Store, contract: Contract, keyId: string, op: OperationContract, now: number): Promise<void> {
  const overall = await hit(store, `key:${keyId}`, contract.defaultRateLimit, now);
  const retryAfter = overall ?? (op.rateLimit ? await hit(store, `key:${keyId}:${op.operationId}`, op.rateLimit, now) : undefined);
  if (retryAfter !== undefined) throw new Failure('rate_limit_exceeded', undefined, { 'retry-after': String(retryAfter) });
}

/** One hit on a bucket's window; the seconds until the window resets when the limit is exceeded. */
async function hit(store: Store, bucket: string, { limit, windowSeconds }: RateLimit, now: number): Promise<number | undefined> {
  const windowMs = windowSeconds * 1000;
  const windowStart = now - (now % windowMs);
  if ((await store.hitRateLimit(bucket, windowStart)) <= limit) return undefined;
  return Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
}
