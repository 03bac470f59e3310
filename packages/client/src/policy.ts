// The retry policy, as data per operation. What is retried comes from the provider's document (design.md,
// "Retry and idempotency rules"); the waits are ours, except where the spec gives one (a transfer's
// temporary 503: at least 60 s, from `x-retry`). Every retry of a call carries the same Idempotency-Key.
import { nonTransient503Codes, unavailableMinDelayMs } from './generated/spec-rules.ts';

export interface RetryPolicy {
  /** Requests at most, the first included. */
  maxAttempts: number;
  /** No retry starts when it would end its wait later than this after the call started. */
  deadlineMs: number;
  /** First backoff after a network error, a timeout, a 502/504 or a 429 without Retry-After; doubles. */
  baseDelayMs: number;
  /** Cap of the doubling backoff (a Retry-After is honoured even when longer, within the deadline). */
  maxDelayMs: number;
  /** First wait after a temporary 503 (never below the spec's minimum for the operation); doubles. */
  unavailableMinDelayMs: number;
}

export type RetryOptions = Partial<RetryPolicy> & { operations?: Partial<Record<string, Partial<RetryPolicy>>> };

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  deadlineMs: 2 * 60_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  unavailableMinDelayMs: 1_000,
};

/** Transfers wait out provider outages: the spec's 60 s first, then up to 10 min between tries, 30 min in all. */
const operationDefaults: Record<string, Partial<RetryPolicy>> = {
  createTransfer: { maxAttempts: 10, deadlineMs: 30 * 60_000, maxDelayMs: 10 * 60_000 },
};

export function policyFor(operationId: string | undefined, options: RetryOptions = {}): RetryPolicy {
  const { operations, ...global } = options;
  const id = operationId ?? '';
  const policy = { ...defaultRetryPolicy, ...operationDefaults[id], ...global, ...operations?.[id] };
  const specMin = (unavailableMinDelayMs as Record<string, number>)[id] ?? 0;
  policy.unavailableMinDelayMs = Math.max(policy.unavailableMinDelayMs, specMin);
  return policy;
}

export type Attempt =
  | { kind: 'network' | 'timeout' }
  | { kind: 'response'; status: number; code: string | undefined; retryAfterMs: number | undefined };

/** Waits d/2 + random·d/2: spread out, never below half the nominal delay. */
const jitter = (d: number, random: () => number) => d / 2 + (random() * d) / 2;

/**
 * How long to wait before the next attempt, or undefined when this outcome is final.
 * `attempt` counts the requests sent so far; `unavailable` the temporary 503s among them.
 */
export function retryDelay(policy: RetryPolicy, outcome: Attempt, attempt: number, unavailable: number, random = Math.random): number | undefined {
  const backoff = () => jitter(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)), random);
  if (outcome.kind !== 'response') return backoff(); // outcome unknown: same request, same key
  const { status, code, retryAfterMs } = outcome;
  if (status === 502 || status === 504) return backoff(); // the edge: outcome unknown
  if (status === 429) return retryAfterMs ?? backoff();
  if (status === 503) {
    if (code && (nonTransient503Codes as readonly string[]).includes(code)) return undefined; // configuration
    if (retryAfterMs !== undefined) return retryAfterMs; // provider_rate_limited: wait exactly Retry-After
    const min = policy.unavailableMinDelayMs;
    const nominal = Math.max(min, Math.min(policy.maxDelayMs, min * 2 ** (unavailable - 1)));
    return nominal + random() * nominal * 0.25; // jitter only upwards: never below the spec's minimum
  }
  return undefined; // any other status is an answer
}
