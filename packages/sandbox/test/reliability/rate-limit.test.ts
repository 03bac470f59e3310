// The default rate limit, end to end: the 601st request of a window is refused as the contract documents it
// (429 rate_limit_exceeded, the shared error body, Retry-After in seconds), and the CLIENT waits exactly
// Retry-After and then succeeds, with the same Idempotency-Key.
//
// "Then succeeds" needs the sandbox's clock to move by the client's wait. No production change does it: the
// sandbox (in this process) reads `new Date()`, so the test fakes only `Date` (vi.useFakeTimers with
// toFake: ['Date']; timers, I/O and performance.now stay real) and the client's injected `sleep` advances
// that clock by the wait it was asked for. The server then sees the window end exactly when the client's
// virtual wait ends.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ApiError, createPaymentsClient } from '@payments/client';
import { createValidator, deref, loadSpec } from '@payments/spec';
import { startSandbox, type RunningSandbox } from '../../src/sandbox.ts';
import { adminOf } from '../support.ts';
import { must, pool, type Answer } from './wire.ts';

const spec = loadSpec() as any;
const { limit, windowSeconds } = spec['x-rate-limit'] as { limit: number; windowSeconds: number }; // 600 per 900 s
const WINDOW_MS = windowSeconds * 1000;
/** 100 s into a window (the sandbox's windows are fixed, aligned on the epoch): Retry-After must be the 800 s left. */
const INTO_WINDOW_MS = 100_000;
const T0 = (Math.floor(Date.now() / WINDOW_MS) + 1) * WINDOW_MS + INTO_WINDOW_MS;
const RETRY_AFTER_S = (WINDOW_MS - INTO_WINDOW_MS) / 1000;

let sandbox: RunningSandbox;
let key: string;
let orgId: string;
let recipientId: string;
let refused: Answer;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: T0 });
  sandbox = await startSandbox({});
  const created = await adminOf(sandbox).org(); // the admin surface is not rate limited
  key = created.key;
  orgId = created.org.id;
});
afterAll(async () => {
  await sandbox?.close();
  vi.useRealTimers();
});

it(`the ${limit + 1}st request within the window is refused: 429 rate_limit_exceeded, the shared error body, Retry-After = the seconds left; nothing is done`, async () => {
  // Request 1: a recipient; requests 2..limit: balance reads; all within one window (the clock does not move).
  const recipient = await must(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rl-recipient', body: { rail: 'brl_pix', nickname: 'Rate limit', pixKey: 'rl@example.com' } });
  expect(recipient.status, recipient.text).toBe(201);
  recipientId = recipient.body.id;
  const reads = await pool(limit - 1, 50, () => must(sandbox.url, 'GET', '/v1/banking/balance', { key }));
  expect(reads.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
  expect(Date.now()).toBe(T0);

  refused = await must(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'rl-order-1', body: { recipientId, amount: '10.00' } });

  // As documented: the status createTransfer declares for it, its header and the shared error body.
  expect(refused.status).toBe(429);
  const documented = deref(spec, spec.paths['/v1/banking/transfers'].post.responses['429']);
  expect(Object.keys(documented.headers ?? {})).toContain('Retry-After');
  expect(refused.headers.get('retry-after')).toBe(String(RETRY_AFTER_S));
  expect(refused.body).toMatchObject({ code: 'rate_limit_exceeded' });
  expect(Object.keys(refused.body).sort()).toEqual(['code', 'error', 'requestId']);
  const validateError = createValidator(spec).schemaAt('#/components/schemas/Error');
  expect(validateError(refused.body), JSON.stringify(validateError.errors)).toBe(true);
  expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  // Refused before anything else: no transfer.
  expect(await sandbox.store.transaction((tx) => tx.countTransfers(orgId))).toBe(0);
});

it('the client honours Retry-After: it waits exactly that long (virtual time), then the same key succeeds, once', async () => {
  expect(refused?.status).toBe(429);
  const sleeps: number[] = [];
  const client = createPaymentsClient({
    apiKey: key,
    baseUrl: sandbox.url,
    timeoutMs: 10_000,
    // The client's wait moves the sandbox's clock: the window passes when the wait ends.
    sleep: async (ms) => {
      sleeps.push(ms);
      vi.setSystemTime(Date.now() + ms);
    },
    now: () => Date.now(),
  });

  // A read's retry deadline (2 min by default) is shorter than the 800 s asked: not waited, the error says when.
  const read = await client.GET('/v1/banking/balance').catch((err: unknown) => err);
  expect(read).toBeInstanceOf(ApiError);
  expect(read).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfterMs: RETRY_AFTER_S * 1000, attempts: 1 });
  expect(sleeps).toEqual([]);

  // A transfer (30 min deadline) waits it out, with the key of the refused request, and is created once.
  const result = await client.POST('/v1/banking/transfers', { body: { recipientId, amount: '10.00' }, idempotencyKey: 'rl-order-1' });
  expect(sleeps).toEqual([RETRY_AFTER_S * 1000]); // the recorded wait is Retry-After, in ms
  expect(result.attempts).toBe(2);
  expect(result.response.status).toBe(201);
  expect(result.data).toMatchObject({ recipientId, amount: '10.00', status: 'pending', idempotencyKey: 'rl-order-1' });
  expect(Date.now()).toBe(T0 + RETRY_AFTER_S * 1000); // exactly the start of the next window
  expect(await sandbox.store.transaction((tx) => tx.countTransfers(orgId))).toBe(1);

  // The new window counts afresh.
  expect((await must(sandbox.url, 'GET', '/v1/banking/balance', { key })).status).toBe(200);
});
