// Every row of the retry table (design.md; provider sections 3 and 7), against a scripted fake server in
// virtual time: which attempts are sent, with which key, after which waits, and what the caller gets.
import { describe, expect, it } from 'vitest';
import { ApiError, AbortError, EdgeError, NetworkError, PaymentsError, ResponseError, TimeoutError, classifyTransfer, createPaymentsClient } from '../src/index.ts';
import { errorBody, scriptedServer, transfer, type Reply } from './scripted-fetch.ts';

const API_KEY = 'svc_live_retrytable0001';
const body = { recipientId: 'rcp_1', amount: '150.00' };

function setup(script: Reply[], extra: Record<string, unknown> = {}) {
  const server = scriptedServer(script);
  const client = createPaymentsClient({
    apiKey: API_KEY,
    baseUrl: 'http://127.0.0.1:1',
    fetch: server.fetch,
    sleep: server.sleep,
    now: server.now,
    random: () => 0.5,
    ...extra,
  });
  return { server, client };
}

const sendTransfer = (client: ReturnType<typeof setup>['client'], key = 'order-1:transfer') =>
  client.POST('/v1/banking/transfers', { body, idempotencyKey: key });

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('outcome unknown: retried with the same key', () => {
  it('network error → retry after a backoff, same key', async () => {
    const { server, client } = setup(['network-error', { status: 201, json: transfer('pending') }]);
    const result = await sendTransfer(client);
    expect(result.attempts).toBe(2);
    expect(server.keys()).toEqual(['order-1:transfer', 'order-1:transfer']);
    expect(server.sleeps).toEqual([375]); // base 500 ms, jitter d/2 + 0.5·d/2
  });

  it('per-attempt timeout → retry, same key', async () => {
    const { server, client } = setup(['hang', { status: 201, json: transfer('completed') }], { timeoutMs: 30 });
    const result = await sendTransfer(client);
    expect(result.attempts).toBe(2);
    expect(new Set(server.keys())).toEqual(new Set(['order-1:transfer']));
  });

  it.each([502, 504])('%i without a JSON body (the edge) → retry, same key', async (status) => {
    const { server, client } = setup([{ status, text: '<html>bad gateway</html>' }, { status: 201, json: transfer('pending') }]);
    const result = await sendTransfer(client);
    expect(result.attempts).toBe(2);
    expect(server.keys()).toEqual(['order-1:transfer', 'order-1:transfer']);
  });

  it('edge errors that never end → EdgeError, retryable, with the key and attempts', async () => {
    const { server, client } = setup([{ status: 504 }], { retry: { maxAttempts: 3 } });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(EdgeError);
    expect(err).toMatchObject({ status: 504, mayRetrySameKey: true, newKeySafe: false, attempts: 3, idempotencyKey: 'order-1:transfer' });
    expect(new Set(server.keys()).size).toBe(1);
  });

  it('network errors that never end → NetworkError; timeouts → TimeoutError', async () => {
    const net = setup(['network-error'], { retry: { maxAttempts: 2 } });
    expect(await failure(sendTransfer(net.client))).toBeInstanceOf(NetworkError);
    const slow = setup(['hang'], { retry: { maxAttempts: 2 }, timeoutMs: 20 });
    const err = await failure(sendTransfer(slow.client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ attempts: 2, idempotencyKey: 'order-1:transfer', mayRetrySameKey: true, newKeySafe: false });
  });
});

describe('transfer creation after a temporary 503 (the retry-outcome table)', () => {
  const unavailable: Reply = { status: 503, json: errorBody('temporarily_unavailable') };

  it('waits at least 60 s, then longer with jitter; 201 pending → resolved, keep the key', async () => {
    const { server, client } = setup([unavailable, unavailable, { status: 201, json: transfer('pending') }], { random: Math.random });
    const result = await sendTransfer(client);
    expect(server.keys()).toEqual(['order-1:transfer', 'order-1:transfer', 'order-1:transfer']);
    const [first, second] = server.sleeps;
    expect(first).toBeGreaterThanOrEqual(60_000);
    expect(first).toBeLessThanOrEqual(75_000);
    expect(second).toBeGreaterThanOrEqual(120_000);
    expect(classifyTransfer(result)).toMatchObject({ kind: 'resolved', idempotencyKey: 'order-1:transfer' });
  });

  it.each(['failed', 'cancelled'])('201 %s → closed: a new attempt needs a new key', async (status) => {
    const { client } = setup([unavailable, { status: 201, json: transfer(status) }]);
    expect(classifyTransfer(await sendTransfer(client))).toMatchObject({ kind: 'closed' });
  });

  it('201 completed → resolved', async () => {
    const { client } = setup([unavailable, { status: 201, json: transfer('completed') }]);
    expect(classifyTransfer(await sendTransfer(client)).kind).toBe('resolved');
  });

  it('409 banking_transfer_attempt_pending_review → not retried, never a new key', async () => {
    const { server, client } = setup([unavailable, { status: 409, json: errorBody('banking_transfer_attempt_pending_review') }]);
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'banking_transfer_attempt_pending_review', attempts: 2, idempotencyKey: 'order-1:transfer' });
    expect(server.sent).toHaveLength(2);
    expect(classifyTransfer(err)).toMatchObject({ kind: 'pending_review', idempotencyKey: 'order-1:transfer' });
  });

  it('another 503 until the deadline → unresolved, same key on every attempt, waits within the deadline', async () => {
    const { server, client } = setup([unavailable], { retry: { operations: { createTransfer: { deadlineMs: 10 * 60_000, maxAttempts: 100 } } } });
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ status: 503, code: 'temporarily_unavailable', mayRetrySameKey: true, newKeySafe: false });
    expect(classifyTransfer(err).kind).toBe('unresolved');
    expect(new Set(server.keys())).toEqual(new Set(['order-1:transfer']));
    expect(server.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10 * 60_000);
    expect(server.sleeps.every((ms, i) => i === 0 || ms >= server.sleeps[i - 1]!)).toBe(true);
  });

  it.each(['1', new Date(1_000).toUTCString()])('a Retry-After shorter than 60 s (%s) does not shorten the minimum', async (retryAfter) => {
    const { server, client } = setup([{ ...unavailable, headers: { 'retry-after': retryAfter } }, { status: 201, json: transfer('pending') }]);
    const result = await sendTransfer(client);
    expect(result.attempts).toBe(2);
    expect(server.sleeps[0]).toBeGreaterThanOrEqual(60_000);
    expect(server.keys()).toEqual(['order-1:transfer', 'order-1:transfer']);
  });

  it('a Retry-After longer than the minimum is waited in full (then jitter upwards, at most a quarter more)', async () => {
    const { server, client } = setup([{ ...unavailable, headers: { 'retry-after': '300' } }, { status: 201, json: transfer('pending') }]);
    await sendTransfer(client);
    expect(server.sleeps).toHaveLength(1);
    expect(server.sleeps[0]).toBeGreaterThanOrEqual(300_000);
    expect(server.sleeps[0]).toBeLessThanOrEqual(375_000);
  });

  it('a 503 without a JSON body → the same 60 s minimum, then unresolved with the key', async () => {
    const { server, client } = setup([{ status: 503, text: 'Service Unavailable' }], { retry: { operations: { createTransfer: { maxAttempts: 3 } } } });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, mayRetrySameKey: true, newKeySafe: false, attempts: 3, idempotencyKey: 'order-1:transfer' });
    expect(server.sleeps.every((ms) => ms >= 60_000)).toBe(true);
    expect(classifyTransfer(err)).toMatchObject({ kind: 'unresolved', idempotencyKey: 'order-1:transfer' });
  });

  it('a 503 with a code the catalog does not know → retried, then unresolved (never "rejected": a new key could pay twice)', async () => {
    const { server, client } = setup([{ status: 503, json: errorBody('bank_core_maintenance') }], { retry: { operations: { createTransfer: { maxAttempts: 2 } } } });
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ status: 503, code: 'bank_core_maintenance', mayRetrySameKey: true, newKeySafe: false, attempts: 2 });
    expect(server.sleeps[0]).toBeGreaterThanOrEqual(60_000);
    expect(classifyTransfer(err).kind).toBe('unresolved');
  });

  it('a caller cannot lower the 60 s minimum the spec sets', async () => {
    const { server, client } = setup([unavailable, { status: 201, json: transfer('pending') }], { retry: { unavailableMinDelayMs: 10 } });
    await sendTransfer(client);
    expect(server.sleeps[0]).toBeGreaterThanOrEqual(60_000);
  });
});

describe('other 5xx: the outcome is unknown (section 7), so never "rejected"', () => {
  it.each([
    ['500 without a body', { status: 500 }],
    ['500 with an unknown code', { status: 500, json: errorBody('internal_error') }],
    ['501 with text', { status: 501, text: 'Not Implemented' }],
    ['505 with JSON but no code', { status: 505, json: { error: 'x' } }],
  ] as [string, Reply][])('%s → not retried by default, retryable, unresolved, same key', async (_name, reply) => {
    const { server, client } = setup([reply]);
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ mayRetrySameKey: true, newKeySafe: false, attempts: 1, idempotencyKey: 'order-1:transfer' });
    expect(server.sent).toHaveLength(1);
    expect(classifyTransfer(err)).toMatchObject({ kind: 'unresolved', idempotencyKey: 'order-1:transfer' });
  });

  it('a 503 code the catalog marks not retryable (configuration) is the one 5xx that is rejected', async () => {
    const { server, client } = setup([{ status: 503, json: errorBody('checkout_pix_not_available') }]);
    const err = await failure(client.POST('/v1/checkout/sessions', { body: { amount: '10.00', paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' }));
    expect(err).toMatchObject({ status: 503, mayRetrySameKey: false, newKeySafe: true, attempts: 1 });
    expect(server.sent).toHaveLength(1);
    expect(classifyTransfer(err).kind).toBe('rejected');
  });
});

describe('what is retried is policy data, overridable per operation', () => {
  it('a caller can retry a 500 too (same key), or stop retrying a status', async () => {
    const a = setup([{ status: 500 }, { status: 201, json: transfer('pending') }], { retry: { operations: { createTransfer: { retryOn: { '500': 'backoff' } } } } });
    expect((await sendTransfer(a.client)).attempts).toBe(2);
    expect(a.server.keys()).toEqual(['order-1:transfer', 'order-1:transfer']);
    const b = setup([{ status: 504 }], { retry: { retryOn: { '504': false } } });
    const err = await failure(sendTransfer(b.client));
    expect(err).toBeInstanceOf(EdgeError); // still the edge, still retryable later with the same key
    expect(err).toMatchObject({ attempts: 1, mayRetrySameKey: true, newKeySafe: false });
  });

  it('a code-level entry wins over its status', async () => {
    const { server, client } = setup([{ status: 503, json: errorBody('provider_rate_limited'), headers: { 'retry-after': '7' } }], {
      retry: { operations: { issueCard: { retryOn: { provider_rate_limited: false } } } },
    });
    const err = await failure(client.POST('/v1/cards', { body: {}, idempotencyKey: 'employee-9:card' }));
    expect(err).toMatchObject({ code: 'provider_rate_limited', attempts: 1, mayRetrySameKey: true, newKeySafe: false, retryAfterMs: 7_000 });
    expect(server.sleeps).toEqual([]);
  });
});

describe('rate limits', () => {
  it('503 provider_rate_limited on cards → waits Retry-After exactly, same key', async () => {
    const { server, client } = setup([
      { status: 503, json: errorBody('provider_rate_limited'), headers: { 'retry-after': '7' } },
      { status: 201, json: { id: 'crd_1' } },
    ]);
    const result = await client.POST('/v1/cards', { body: {}, idempotencyKey: 'employee-9:card' });
    expect(result.attempts).toBe(2);
    expect(server.sleeps).toEqual([7000]);
    expect(server.keys()).toEqual(['employee-9:card', 'employee-9:card']);
  });

  it('429 honours Retry-After, and backs off without it', async () => {
    const limited: Reply = { status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': '3' } };
    const a = setup([limited, { status: 200, json: { balances: [] } }]);
    await a.client.GET('/v1/banking/balance');
    expect(a.server.sleeps).toEqual([3000]);
    const b = setup([{ status: 429, json: errorBody('rate_limit_exceeded') }, { status: 200, json: {} }]);
    await b.client.GET('/v1/banking/balance');
    expect(b.server.sleeps).toEqual([375]);
  });

  // A QA pass: `1.5` was read by Date.parse as a date in 2001, a wait of 0 (RFC 9110 allows digits only, but a
  // server that sends a fraction means seconds).
  it.each([['1.5', 1_500], [' 3 ', 3_000], ['0', 0]])('a Retry-After of %j seconds is waited as %i ms', async (retryAfter, ms) => {
    const { server, client } = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': retryAfter } }, { status: 200, json: {} }]);
    await client.GET('/v1/banking/balance');
    expect(server.sleeps).toEqual([ms]);
  });

  it('an HTTP-date Retry-After is read against the injected clock', async () => {
    const at = (ms: number) => new Date(ms).toUTCString(); // virtual time starts at 0 (1970)
    const a = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': at(4_000) } }, { status: 200, json: {} }]);
    await a.client.GET('/v1/banking/balance');
    expect(a.server.sleeps).toEqual([4_000]);
    const b = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': at(900_000) } }]);
    const err = await failure(b.client.GET('/v1/banking/balance'));
    expect(err).toMatchObject({ status: 429, retryAfterMs: 900_000, attempts: 1 });
  });

  it('a Retry-After beyond the deadline is not waited: the error says when to come back', async () => {
    const { server, client } = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': '900' } }]);
    const err = await failure(client.GET('/v1/banking/balance'));
    expect(err).toMatchObject({ status: 429, retryAfterMs: 900_000, mayRetrySameKey: true, newKeySafe: true, attempts: 1 });
    expect(server.sleeps).toEqual([]);
  });
});

describe('definite answers are not retried', () => {
  it.each([
    ['POST', '/v1/checkout/sessions', 503, 'checkout_pix_not_available', true],
    ['POST', '/v1/banking/transfers', 409, 'banking_transfer_idempotency_conflict', false], // the key paid another request
    ['POST', '/v1/banking/transfers', 404, 'recipient_not_found', true],
    ['POST', '/v1/banking/transfers', 422, 'pix_quote_rejected', true],
    ['POST', '/v1/banking/transfers', 400, 'invalid_request', true],
    ['POST', '/v1/banking/transfers', 403, 'banking_api_access_not_enabled', true],
    ['POST', '/v1/banking/transfers', 401, 'invalid_api_key', true],
  ] as const)('%s %s %i %s → one attempt, not again with this key (new key safe: %s)', async (_method, path, status, code, newKeySafe) => {
    const { server, client } = setup([{ status, json: errorBody(code) }]);
    const init =
      path === '/v1/checkout/sessions'
        ? { body: { amount: '10.00', paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' }
        : { body, idempotencyKey: 'order-1:transfer' };
    const err = await failure(client.POST(path as '/v1/banking/transfers', init as never));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status, code, mayRetrySameKey: false, newKeySafe, attempts: 1 });
    expect(server.sent).toHaveLength(1);
    expect(server.sleeps).toEqual([]);
  });

  it('an unknown code is passed through, classified by its status', async () => {
    const { client } = setup([{ status: 409, json: errorBody('some_future_code') }]);
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ code: 'some_future_code', status: 409, mayRetrySameKey: false, newKeySafe: true });
    expect(classifyTransfer(err).kind).toBe('rejected');
  });
});

describe('a failure while reading the answer is one of our errors, with the key', () => {
  it('a 2xx body that is not JSON → ResponseError (retryable) with key and attempts; unresolved', async () => {
    const { client } = setup([{ status: 201, text: '<html>proxy</html>' }]);
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(ResponseError);
    expect(err).toBeInstanceOf(PaymentsError);
    expect(err.cause).toBeInstanceOf(SyntaxError);
    expect(err).toMatchObject({ status: 201, idempotencyKey: 'order-1:transfer', attempts: 1, mayRetrySameKey: true, newKeySafe: false, operationId: 'createTransfer' });
    expect(classifyTransfer(err)).toMatchObject({ kind: 'unresolved', idempotencyKey: 'order-1:transfer' });
  });

  it('a 2xx body that stalls past timeoutMs → TimeoutError with key and attempts; unresolved', async () => {
    const { client } = setup([{ stall: 201 }], { timeoutMs: 30 });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ idempotencyKey: 'order-1:transfer', attempts: 1, mayRetrySameKey: true, newKeySafe: false });
    expect(classifyTransfer(err).kind).toBe('unresolved');
  });

  it('the caller aborting while the 2xx body is read → AbortError with key and attempts; unresolved', async () => {
    const { client } = setup([{ stall: 201 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const err = await failure(client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-7:transfer', signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ idempotencyKey: 'order-7:transfer', attempts: 1 });
    expect(classifyTransfer(err).kind).toBe('unresolved');
  });

  it('an error body that stalls past timeoutMs → TimeoutError too', async () => {
    const { client } = setup([{ stall: 409 }], { timeoutMs: 30 });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ idempotencyKey: 'order-1:transfer', attempts: 1 });
  });
});

describe('waits are abortable', () => {
  it('aborting during the 60-second wait ends the call at once with AbortError and the key', async () => {
    const server = scriptedServer([{ status: 503, json: errorBody('temporarily_unavailable') }]);
    const client = createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', fetch: server.fetch }); // real sleep
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    const err = await failure(client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-7:transfer', signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ idempotencyKey: 'order-7:transfer', attempts: 1 });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('an already-aborted signal sends nothing', async () => {
    const { server, client } = setup([{ status: 200, json: {} }]);
    const err = await failure(client.GET('/v1/banking/balance', { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect(server.sent).toHaveLength(0);
  });
});
