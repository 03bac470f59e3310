// The documented rate limits (x-rate-limit in the spec: 600 requests per 15 minutes per key, and a stricter
// one on card issuance), as fixed windows aligned to the clock: the provider does not say which kind it
// uses. Every authenticated request counts, refused ones included (a request over the key's limit counts
// in the operation's stricter window too). The hits are made with the caller's lookup (Store.admit),
// outside the request's data transaction, so no request waits for another's COMMIT to be counted.
import type { Contract, OperationContract, RateLimit } from '../contract.ts';
import { Failure } from '../failure.ts';
import type { RateWindow } from '../store/types.ts';

type Limit = RateWindow & { limit: number };

/** The windows a request to `op` counts in: the key's overall limit, then the operation's own. */
export function rateWindows(contract: Contract, op: OperationContract): Limit[] {
  const window = (suffix: string, { limit, windowSeconds }: RateLimit): Limit => ({ suffix, windowMs: windowSeconds * 1000, limit });
  return [window('', contract.defaultRateLimit), ...(op.rateLimit ? [window(`:${op.operationId}`, op.rateLimit)] : [])];
}

/** Refuses the request (429 with Retry-After: until the first exceeded window resets) when a count is over its limit. */
export function enforceRateLimits(windows: readonly Limit[], counts: readonly number[], atMs: number): void {
  const over = windows.findIndex((w, i) => counts[i]! > w.limit);
  if (over < 0) return;
  const { windowMs } = windows[over]!;
  const windowStart = atMs - (atMs % windowMs);
  throw new Failure('rate_limit_exceeded', undefined, { 'retry-after': String(Math.max(1, Math.ceil((windowStart + windowMs - atMs) / 1000))) });
}
