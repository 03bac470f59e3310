// What the client does before anything is sent: the key of each call, the spec's rules on keys and
// bodies (bad input → a typed error and no request), amount normalization, auth headers, browsers.
import { describe, expect, it } from 'vitest';
import { errorCodes } from '@payments/types';
import { ValidationError, createPaymentsClient, deriveIdempotencyKey, normalizeAmount } from '../src/index.ts';
import { bodyRules } from '../src/generated/spec-rules.ts';
import { scriptedServer } from './scripted-fetch.ts';

const API_KEY = 'svc_live_beforesending01';
const created = { status: 201, json: { id: 'x_1' } };
const AMOUNT = bodyRules.createCheckoutSession.decimals.amount.pattern;

function setup() {
  const server = scriptedServer([created]);
  const client = createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1/', fetch: server.fetch, sleep: server.sleep, now: server.now });
  return { server, client };
}

async function refused(promise: Promise<unknown>): Promise<ValidationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('checkout session validation (codes read from the spec)', () => {
  it.each([0, -1, '0.00', '37.456', 37.456, 1.005, 'abc', '1e3', '', ' 1'])('amount %j → invalid_checkout_session_amount, nothing sent', async (amount) => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/checkout/sessions', { body: { amount: amount as never, paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' }));
    expect(err).toMatchObject({ code: 'invalid_checkout_session_amount', field: 'amount', attempts: 0, idempotencyKey: 'cart-1:session', mayRetrySameKey: false, newKeySafe: true });
    expect(server.sent).toHaveLength(0);
  });

  it.each([
    ['more than two decimals, however small the excess', 1.000000001],
    ['more than two decimals', 0.001],
    ['exponent form (large)', 1e21],
    ['exponent form (small)', 1e-7],
    ['beyond the exact integers of a double', 9_007_199_254_740_993],
    ['a 2-decimal amount with more digits than a double holds', 123_456_789_012_345.67],
    ['huge', Number.MAX_VALUE],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('number amount: %s (%s) → refused, nothing sent (never rounded or rewritten)', async (_why, amount) => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/checkout/sessions', { body: { amount, paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' }));
    expect(err.code).toBe('invalid_checkout_session_amount');
    expect(server.sent).toHaveLength(0);
    const transfer = await refused(client.POST('/v1/banking/transfers', { body: { recipientId: 'r', amount }, idempotencyKey: 'order-1' }));
    expect(transfer.code).toBe('invalid_request');
    expect(server.sent).toHaveLength(0);
  });

  it.each([
    [0.01, '0.01'],
    [0.1, '0.10'],
    [37.45, '37.45'],
    [1.1, '1.10'],
    [100, '100.00'],
    [9_007_199_254_740_991, '9007199254740991.00'],
    [12_345_678_901.23, '12345678901.23'],
  ])('number amount %s → exactly "%s"', (amount, text) => {
    expect(normalizeAmount(amount, AMOUNT)).toBe(text);
  });

  it('amount and discountPercent together → checkout_session_pricing_conflict, nothing sent', async () => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/checkout/sessions', { body: { amount: '10.00', discountPercent: 5 }, idempotencyKey: 'cart-1:session' }));
    expect(err.code).toBe('checkout_session_pricing_conflict');
    expect(server.sent).toHaveLength(0);
    expect(Object.values(errorCodes.createCheckoutSession).flat()).toContain(err.code);
  });

  it.each(['short', 'has space in it', 'slash/not/allowed', 'x'.repeat(201)])('checkout key %j → refused before sending', async (key) => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/checkout/products', { body: {}, idempotencyKey: key }));
    expect(err).toMatchObject({ field: 'Idempotency-Key', code: 'invalid_request' });
    expect(server.sent).toHaveLength(0);
  });

  it('an empty key on a banking POST → refused', async () => {
    const { client } = setup();
    await refused(client.POST('/v1/banking/transfers', { body: { recipientId: 'r', amount: '1.00' }, idempotencyKey: '' }));
  });

  it('37.45 and "37.45" are one request identity: both send "37.45"', async () => {
    const { server, client } = setup();
    await client.POST('/v1/checkout/sessions', { body: { amount: 37.45, paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' });
    await client.POST('/v1/checkout/sessions', { body: { amount: '37.45', paymentMethod: 'pix' }, idempotencyKey: 'cart-1:session' });
    expect(server.sent.map((s) => s.body)).toEqual([
      { amount: '37.45', paymentMethod: 'pix' },
      { amount: '37.45', paymentMethod: 'pix' },
    ]);
  });

  it('normalizes to two decimals', () => {
    expect([37.45, '37.45', 37.5, '37.5', 100, '100', 0.07, '0.07'].map((a) => normalizeAmount(a, AMOUNT))).toEqual([
      '37.45', '37.45', '37.50', '37.50', '100.00', '100.00', '0.07', '0.07',
    ]);
  });
});

describe('keys', () => {
  it('a POST without a key gets one random key, the same on the request and the result', async () => {
    const { server, client } = setup();
    const result = await client.POST('/v1/cards', { body: {} });
    expect(result.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.keys()).toEqual([result.idempotencyKey]);
  });

  it('the caller key can also come as the header parameter', async () => {
    const { server, client } = setup();
    const result = await client.POST('/v1/cards', { body: {}, params: { header: { 'Idempotency-Key': 'employee-1:card' } } });
    expect(server.keys()).toEqual(['employee-1:card']);
    expect(result.idempotencyKey).toBe('employee-1:card');
  });

  // A QA pass: a key given in another spelling, or in `headers`, went out replaced by a random one (so a
  // caller's retry with its stable key would have been a second payment).
  it.each([
    ['params.header, lower case', { params: { header: { 'idempotency-key': 'employee-2:card' } } }],
    ['headers, a record', { headers: { 'Idempotency-Key': 'employee-2:card' } }],
    ['headers, a Headers', { headers: new Headers({ 'IDEMPOTENCY-KEY': 'employee-2:card' }) }],
    ['headers, pairs', { headers: [['idempotency-key', 'employee-2:card']] }],
  ])('the caller key is kept when it comes in %s', async (_where, init) => {
    const { server, client } = setup();
    const result = await client.POST('/v1/cards', { body: {}, ...(init as object) });
    expect(server.keys()).toEqual(['employee-2:card']);
    expect(result.idempotencyKey).toBe('employee-2:card');
  });

  // QA: a stored key not filled yet (undefined, or null from untyped code) went out as a new random key on
  // every call, so the application's own retry of one payment paid it twice.
  it.each([undefined, null])('an idempotencyKey given as %s is refused before anything is sent (never a random key)', async (given) => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: '2.00' }, idempotencyKey: given as never }));
    expect(err).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key', attempts: 0, idempotencyKey: given }); // the key given, as given
    expect(err.message).toBe("Idempotency-Key must be a string");
    expect(server.keys()).toEqual([]);
  });

  it('a call without the idempotencyKey option still gets a key made for it', async () => {
    const { server, client } = setup();
    await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: '2.00' } });
    expect(server.keys()).toHaveLength(1);
  });

  it('a key given in `headers` is checked like any other before anything is sent', async () => {
    const { server, client } = setup();
    const err = await refused(client.POST('/v1/checkout/sessions', { body: { amount: '1.00' }, headers: { 'idempotency-key': 'short' } }));
    expect(err.message).toContain('Idempotency-Key must match');
    expect(server.keys()).toEqual([]);
  });

  it('derived keys are UUIDv5: deterministic, distinct per operation and id, valid for checkout', async () => {
    const a = await deriveIdempotencyKey('createTransfer', 'invoice-42');
    expect(await deriveIdempotencyKey('createTransfer', 'invoice-42')).toBe(a);
    expect(await deriveIdempotencyKey('createTransfer', 'invoice-43')).not.toBe(a);
    expect(await deriveIdempotencyKey('issueCard', 'invoice-42')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).toMatch(/^[A-Za-z0-9._:-]{8,200}$/);
    // Its exact name (independent computation with node:crypto): test/sharp-edges.test.ts.
  });
});

describe('auth and environment', () => {
  it('sends x-api-key on every request and no other auth header; Idempotency-Key only on POSTs', async () => {
    const server = scriptedServer([{ status: 200, json: {} }]);
    const client = createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', fetch: server.fetch });
    await client.GET('/v1/banking/balance');
    await client.GET('/v1/banking/transfers/{transferId}', { params: { path: { transferId: 'trf_1' } } });
    await client.POST('/v1/cards', { body: {} });
    for (const sent of server.sent) {
      expect(sent.headers['x-api-key']).toBe(API_KEY);
      expect(sent.headers.authorization).toBeUndefined();
    }
    expect(server.sent.map((s) => [s.method, s.path, Boolean(s.headers['idempotency-key'])])).toEqual([
      ['GET', '/v1/banking/balance', false],
      ['GET', '/v1/banking/transfers/trf_1', false],
      ['POST', '/v1/cards', true],
    ]);
  });

  it('refuses to start in a browser web worker too, unless explicitly allowed', () => {
    const g = globalThis as { WorkerGlobalScope?: unknown; importScripts?: unknown };
    g.WorkerGlobalScope = function WorkerGlobalScope() {};
    g.importScripts = () => {};
    try {
      expect(() => createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1' })).toThrow(/server-only/);
      expect(() => createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', dangerouslyAllowBrowser: true })).not.toThrow();
    } finally {
      delete g.WorkerGlobalScope;
      delete g.importScripts;
    }
  });

  it('refuses a timeoutMs a timer cannot keep (not a number of ms from 1 to 2^31-1): it would fire at once or never', () => {
    const make = (timeoutMs: number) => () => createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', timeoutMs });
    for (const bad of [0, 0.5, -1, Number.NaN, Infinity, 2 ** 31]) expect(make(bad), String(bad)).toThrow(/invalid timeoutMs/);
    for (const good of [1, 30_000, 2 ** 31 - 1]) expect(make(good), String(good)).not.toThrow();
  });

  it('refuses a retry number that is not one before sending (NaN from an unset variable retried a transfer 503 after 1 ms: QA)', async () => {
    const transferWith = async (retry: object) => {
      let sent = 0;
      const fetch = async () => (sent++, new Response(JSON.stringify({ id: 'trf_1', status: 'pending' }), { status: 201, headers: { 'content-type': 'application/json' } }));
      const client = createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', retry: retry as never, fetch });
      const outcome = await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: '1.00' } }).then(() => 'sent', (err: unknown) => err);
      return { outcome, sent };
    };
    const unset = Number(process.env.PAYMENTS_TEST_UNSET_VARIABLE);
    for (const bad of [{ maxDelayMs: unset }, { unavailableMinDelayMs: unset }, { maxAttempts: -1 }, { deadlineMs: Infinity }, { baseDelayMs: '500' }, { maxDelayMs: undefined }, { operations: { createTransfer: { maxDelayMs: unset } } }]) {
      const { outcome, sent } = await transferWith(bad);
      expect(outcome, JSON.stringify(bad)).toBeInstanceOf(TypeError);
      expect((outcome as Error).message).toBe('invalid retry option');
      expect(sent).toBe(0);
    }
    for (const good of [{}, { maxDelayMs: 0 }, { maxAttempts: 1, deadlineMs: 1_000 }, { retryOn: { '503': false } }, { operations: { issueCard: { maxDelayMs: unset } } }]) {
      expect((await transferWith(good)).outcome, JSON.stringify(good)).toBe('sent');
    }
  });

  it('refuses to start in a browser unless explicitly allowed', () => {
    const g = globalThis as { document?: unknown };
    g.document = {};
    try {
      expect(() => createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1' })).toThrow(/server-only/);
      expect(() => createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', dangerouslyAllowBrowser: true })).not.toThrow();
    } finally {
      delete g.document;
    }
  });
});
