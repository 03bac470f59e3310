// The retry policy, as data per operation. What is retried comes from the spec (generated/spec-rules.ts:
// the edge's statuses, the catalog's x-retryable codes, x-retry's minimum for a transfer's temporary 503);
// the waits are ours, except that minimum. Every retry of a call carries the same Idempotency-Key.
import type { ErrorCode, OperationId } from '@payments/types';
import { retryOn as rules, unavailableMinDelayMs } from './generated/spec-rules.ts';

/**
 * How an answer is retried. `backoff`: the outcome is unknown (the edge's 502/504); doubling jittered
 * waits. `retryAfter`: a rate limit; its Retry-After waited as it is, else backoff. `unavailable`: a
 * temporary 503; at least `unavailableMinDelayMs`, then longer, and never less than Retry-After. `false`:
 * not retried.
 */
export type RetryMode = 'backoff' | 'retryAfter' | 'unavailable' | false;
/** By status (`"503"`) or by code (`provider_rate_limited`); a code's entry wins over its status's. */
export type RetryOn = Readonly<Record<string, RetryMode>>;

export interface RetryPolicy {
  /** Requests at most, the first included. */
  maxAttempts: number;
  /** No retry starts when it would end its wait later than this after the call started. */
  deadlineMs: number;
  /** First backoff after a network error, a timeout, an edge error or a rate limit without Retry-After; doubles. */
  baseDelayMs: number;
  /** Cap of the doubling backoff (a Retry-After is honoured even when longer, within the deadline); not of a temporary 503's waits. */
  maxDelayMs: number;
  /** First wait after a temporary 503 (never below the spec's minimum for the operation); each next one at least doubles. */
  unavailableMinDelayMs: number;
  /** What is retried; merged entry by entry over the defaults (the spec's, per operation). */
  retryOn: RetryOn;
}

export type RetryOptions = Partial<RetryPolicy> & { operations?: { [Op in OperationId]?: Partial<RetryPolicy> } };

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  deadlineMs: 2 * 60_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  unavailableMinDelayMs: 1_000,
  retryOn: rules['*'],
};

/**
 * Ours, on top of the spec's. Transfers wait out provider outages: the spec's 60 s first, then each wait at
 * least twice the last (retryDelay), 30 min in all. The spec says in prose only that `provider_rate_limited` waits exactly its
 * Retry-After; typed by the operation's codes, so the entry cannot name a code the spec lacks.
 */
const operationDefaults: { [Op in OperationId]?: Partial<Omit<RetryPolicy, 'retryOn'>> & { retryOn?: { [C in ErrorCode<Op> & string]?: RetryMode } } } = {
  createTransfer: { maxAttempts: 10, deadlineMs: 30 * 60_000 },
  issueCard: { retryOn: { provider_rate_limited: 'retryAfter' } },
};

/** The spec's retry entries of an operation (no caller override): what `retryable` on an error says. */
export const specRetryOnFor = (operationId: string | undefined): RetryOn => ({ ...rules['*'], ...(rules as Record<string, RetryOn | undefined>)[operationId!] });

/**
 * The spec's retry entries of each policy whose operation has a minimum wait after a temporary 503 (a
 * transfer's: 60 s, then longer; the provider's Idempotency rule 7). A caller may switch that retry off, by
 * status or by code, never make it shorter: any other mode given for it is waited as `unavailable`.
 */
const specMinimumRules = new WeakMap<RetryPolicy, RetryOn>();

/** A number a timer (or a count) can take: from `least` to 2^31−1; else timers fire at once (a string, NaN) or never. */
export const inRange = (value: unknown, least: number) => typeof value == 'number' && value >= least && value < 2 ** 31;

export function policyFor(operationId: string | undefined, options: RetryOptions = {}): RetryPolicy {
  const { operations, ...global } = options;
  // An operationId of undefined (a path the spec lacks) finds no entry in these tables.
  const ours = operationDefaults[operationId as OperationId];
  const theirs = operations?.[operationId as OperationId];
  const policy = {
    ...defaultRetryPolicy,
    ...ours,
    ...global,
    ...theirs,
    retryOn: { ...specRetryOnFor(operationId), ...ours?.retryOn, ...global.retryOn, ...theirs?.retryOn },
  };
  // Checked before the call sends anything: NaN (from an unset variable) made a transfer's 503 wait 1 ms.
  if (Object.values(policy).some((value) => value !== policy.retryOn && !inRange(value, 0))) throw new TypeError('invalid retry option');
  const specMinimum = (unavailableMinDelayMs as Record<string, number>)[operationId!] ?? 0;
  policy.unavailableMinDelayMs = Math.max(policy.unavailableMinDelayMs, specMinimum);
  if (specMinimum) specMinimumRules.set(policy, specRetryOnFor(operationId));
  return policy;
}

/** The entry for this answer: its code's (own entries only: a code may be any string), else its status's. */
export function retryMode(retryOn: RetryOn, status: number, code?: string): RetryMode | undefined {
  return code !== undefined && Object.hasOwn(retryOn, code) ? retryOn[code] : retryOn[status];
}

export type Attempt =
  | { kind: 'network' | 'timeout' }
  | { kind: 'response'; status: number; code: string | undefined; retryAfterMs: number | undefined };

/**
 * How long to wait before the next attempt, or undefined when this outcome is final. `attempt` counts the
 * requests sent so far; `counts.unavailableWait` is the last temporary 503's wait (0 before the first; this call sets it).
 */
export function retryDelay(policy: RetryPolicy, outcome: Attempt, attempt: number, counts: { unavailableWait: number }, random: () => number): number | undefined {
  // d/2 + random·d/2: spread out, never below half the nominal delay.
  const backoff = (d = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))) => d / 2 + (random() * d) / 2;
  if (outcome.kind !== 'response') return backoff(); // outcome unknown: same request, same key
  const { status, code, retryAfterMs } = outcome;
  const mode = retryMode(policy.retryOn, status, code);
  // A temporary 503: `unavailable`, or any mode but false where the spec sets a minimum wait (specMinimumRules).
  if (mode === 'unavailable' || (mode && specMinimumRules.get(policy)?.[status] === 'unavailable')) {
    // At least the minimum, twice the last such wait and any Retry-After, then up to a quarter more (jitter only
    // upwards): every wait longer than the one before, as rule 7 asks ("the delays increase with jitter"), even
    // under a constant Retry-After. No cap (maxDelayMs is the backoff's): maxAttempts and deadlineMs end them.
    const wait = Math.max(policy.unavailableMinDelayMs, 2 * counts.unavailableWait, retryAfterMs ?? 0);
    return (counts.unavailableWait = wait + random() * wait * 0.25);
  }
  if (mode === 'backoff') return backoff();
  if (mode === 'retryAfter') return retryAfterMs ?? backoff();
  return undefined;
}
