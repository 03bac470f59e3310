// The retry policy is data per operation, and its defaults say what the spec says: the edge's statuses
// (x-origin: edge) are retried, every catalog code is retried exactly when it is x-retryable, and the
// transfer's temporary 503 waits at least x-retry's minimum, whatever Retry-After says.
import { describe, expect, it } from 'vitest';
import { edgeStatuses, errorCatalog, loadSpec, operations } from '@payments/spec';
import { policyFor } from '../src/index.ts';
import { retryDelay, retryMode } from '../src/policy.ts';

const doc = loadSpec();

describe('default policy, read from the spec', () => {
  it.each(edgeStatuses(doc).map((e) => [e.operationId, e.status] as const))('%s %i (x-origin: edge) → retried with backoff', (operationId, status) => {
    expect(retryMode(policyFor(operationId).retryOn, status, undefined)).toBe('backoff');
  });

  it.each(errorCatalog(doc).map((e) => [e.operationId, e.status, e.code, e.retryable] as const))('%s %i %s → retried iff x-retryable (%s)', (operationId, status, code, retryable) => {
    expect(Boolean(retryMode(policyFor(operationId).retryOn, status, code))).toBe(retryable);
  });

  it('every operation has a policy of its own, and a caller overrides a status or a code per operation', () => {
    for (const { operationId } of operations(doc)) expect(policyFor(operationId).retryOn).toBeTypeOf('object');
    const policy = policyFor('createTransfer', { retryOn: { '500': 'backoff' }, operations: { createTransfer: { retryOn: { '429': false } } } });
    expect(retryMode(policy.retryOn, 500, undefined)).toBe('backoff');
    expect(retryMode(policy.retryOn, 429, 'rate_limit_exceeded')).toBe(false);
    expect(retryMode(policy.retryOn, 503, 'temporarily_unavailable')).toBe('unavailable');
    expect(retryMode(policyFor('getTransfer').retryOn, 429, undefined)).toBe('retryAfter'); // another operation keeps it
  });

  it('an inherited property name as a code is no rule', () => {
    expect(retryMode(policyFor('createTransfer').retryOn, 409, 'toString')).toBeUndefined();
    expect(retryMode(policyFor('createTransfer').retryOn, 503, 'constructor')).toBe('unavailable');
  });
});

/** The waits of successive temporary 503s of one call (Retry-After per answer, jitter by `random`). */
const waitsOf = (policy: ReturnType<typeof policyFor>, retryAfterMs: (number | undefined)[], random = () => 0) => {
  const counts = { unavailableWait: 0 };
  return retryAfterMs.map((ms, i) => retryDelay(policy, { kind: 'response', status: 503, code: 'temporarily_unavailable', retryAfterMs: ms }, i + 1, counts, random)!);
};

describe('the temporary 503 of a transfer: max(Retry-After, 60 s floor, twice the last wait), jitter upwards', () => {
  const policy = policyFor('createTransfer');
  const at = (retryAfterMs: number | undefined) => waitsOf(policy, [retryAfterMs])[0];

  it.each([undefined, 0, 1_000, 59_999])('Retry-After %s ms → 60 s', (ms) => expect(at(ms)).toBe(60_000));
  it('a longer Retry-After wins', () => expect(at(90_000)).toBe(90_000));
  it('later 503s wait longer, whatever Retry-After says', () => expect(waitsOf(policy, [1_000, 1_000, 1_000])).toEqual([60_000, 120_000, 240_000]));
  it('a constant Retry-After longer than the floor: the waits still grow (QA: 300 s, 300 s, 300 s)', () => {
    expect(waitsOf(policy, [300_000, 300_000, 300_000])).toEqual([300_000, 600_000, 1_200_000]);
  });
  it('with jitter every wait is longer than the one before (QA: 65.4, 147.8, 130.6 s under a maxDelayMs)', () => {
    for (const maxDelayMs of [1_000, 120_000, 600_000]) {
      for (let run = 0; run < 50; run++) {
        const waits = waitsOf(policyFor('createTransfer', { maxDelayMs }), [undefined, undefined, undefined, undefined, undefined], Math.random);
        expect(waits[0]).toBeGreaterThanOrEqual(60_000);
        for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1]!);
      }
    }
  });
  it('a rate limit waits Retry-After as it is', () => {
    expect(retryDelay(policy, { kind: 'response', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 1_000 }, 1, { unavailableWait: 0 }, Math.random)).toBe(1_000);
    const card = policyFor('issueCard');
    expect(retryDelay(card, { kind: 'response', status: 503, code: 'provider_rate_limited', retryAfterMs: 1_000 }, 1, { unavailableWait: 0 }, Math.random)).toBe(1_000);
  });
});

describe("the transfer's 503 rules are not the caller's to shorten (the provider's Idempotency rule 7)", () => {
  const waits = (policy: ReturnType<typeof policyFor>) => waitsOf(policy, [undefined, undefined, undefined]);

  it.each([
    ['by status', { retryOn: { '503': 'backoff' } }],
    ['by code', { retryOn: { temporarily_unavailable: 'backoff' } }],
    ['per operation', { operations: { createTransfer: { retryOn: { '503': 'retryAfter' } } } }],
  ] as const)('another retry mode for it (%s) still waits the spec minimum first, then longer', (_, options) => {
    const [first, second] = waits(policyFor('createTransfer', options));
    expect(first).toBe(60_000);
    expect(second).toBeGreaterThan(first!);
  });

  it('a code given a mode under a 503 switched off still waits the minimum', () => {
    expect(waits(policyFor('createTransfer', { retryOn: { '503': false, temporarily_unavailable: 'backoff' } }))[0]).toBe(60_000);
  });

  it('switching its retry off is the caller\'s choice', () => {
    expect(retryMode(policyFor('createTransfer', { retryOn: { '503': false } }).retryOn, 503, 'temporarily_unavailable')).toBe(false);
  });

  it('a maxDelayMs below the minimum does not cap them: they keep growing', () => {
    expect(waits(policyFor('createTransfer', { maxDelayMs: 1_000 }))).toEqual([60_000, 120_000, 240_000]);
  });

  it('another operation has no such minimum: the caller may make its 503 a plain backoff', () => {
    expect(retryMode(policyFor('issueCard', { retryOn: { '503': 'backoff' } }).retryOn, 503, 'temporarily_unavailable')).toBe('backoff');
  });
});
