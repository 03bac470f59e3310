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

describe('the temporary 503 of a transfer: max(Retry-After, 60 s floor, backoff)', () => {
  const policy = policyFor('createTransfer');
  const at = (retryAfterMs: number | undefined, unavailable = 1) =>
    retryDelay(policy, { kind: 'response', status: 503, code: 'temporarily_unavailable', retryAfterMs }, unavailable, { unavailable: unavailable - 1 }, () => 0);

  it.each([undefined, 0, 1_000, 59_999])('Retry-After %s ms → 60 s', (ms) => expect(at(ms)).toBe(60_000));
  it('a longer Retry-After wins', () => expect(at(90_000)).toBe(90_000));
  it('later 503s wait longer, whatever Retry-After says', () => expect(at(1_000, 3)).toBe(240_000));
  it('a rate limit waits Retry-After as it is', () => {
    expect(retryDelay(policy, { kind: 'response', status: 429, code: 'rate_limit_exceeded', retryAfterMs: 1_000 }, 1, { unavailable: 0 }, Math.random)).toBe(1_000);
    const card = policyFor('issueCard');
    expect(retryDelay(card, { kind: 'response', status: 503, code: 'provider_rate_limited', retryAfterMs: 1_000 }, 1, { unavailable: 0 }, Math.random)).toBe(1_000);
  });
});
