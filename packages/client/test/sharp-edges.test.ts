// The client's sharp edges a new user hit (issue 13, deliver 6), each pinned by a test that failed before
// the fix: the two questions a payer asks after an error (same key again? a new key safe?), keys that HTTP
// would not carry as given, derived keys that collided, Retry-After in seconds among millisecond options,
// and a custom fetch that ignored its signal and so disabled the per-attempt timeout.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AbortError, ApiError, KEY_NAMESPACE, TimeoutError, ValidationError, classifyTransfer, createPaymentsClient, deriveIdempotencyKey } from '../src/index.ts';
import { errorBody, failure, scriptedClient, scriptedServer, transfer, type Reply } from './scripted-fetch.ts';

const body = { recipientId: 'rcp_1', amount: '150.00' };

const setup = (script: Reply[], extra: Record<string, unknown> = {}) => scriptedClient(script, { apiKey: 'svc_live_sharpedges0001', ...extra });

const sendTransfer = (client: ReturnType<typeof setup>['client'], idempotencyKey = 'order-1:transfer') =>
  client.POST('/v1/banking/transfers', { body, idempotencyKey });

describe('after an error: may the same request go again with the same key; is a new key safe?', () => {
  it('409 pending review: the same key again later, never a new key', async () => {
    const { client } = setup([{ status: 409, json: errorBody('banking_transfer_attempt_pending_review') }]);
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ mayRetrySameKey: true, newKeySafe: false, attempts: 1 });
    expect(classifyTransfer(err).kind).toBe('pending_review');
  });

  it('409 idempotency conflict: the key paid another request, so neither "nothing was paid" nor a new key', async () => {
    const { client } = setup([{ status: 409, json: errorBody('banking_transfer_idempotency_conflict') }]);
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ mayRetrySameKey: false, newKeySafe: false, attempts: 1 });
    expect(classifyTransfer(err)).toMatchObject({ kind: 'key_conflict', idempotencyKey: 'order-1:transfer' });
  });

  it('a temporary 503 after the retry budget: same key later, a new key could pay twice', async () => {
    const { client } = setup([{ status: 503, json: errorBody('temporarily_unavailable') }], { retry: { operations: { createTransfer: { maxAttempts: 2 } } } });
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ mayRetrySameKey: true, newKeySafe: false, attempts: 2 });
    expect(classifyTransfer(err).kind).toBe('unresolved');
  });

  it('a definite refusal (422 pix_payout_rejected "before funds moved"): not again as is; a new key is safe', async () => {
    const { client } = setup([{ status: 422, json: errorBody('pix_payout_rejected') }]);
    const err = await failure(sendTransfer(client));
    expect(err).toMatchObject({ mayRetrySameKey: false, newKeySafe: true });
    expect(classifyTransfer(err).kind).toBe('rejected');
  });

  it('an abort: before anything was sent a new key is safe; after a send it is not', async () => {
    const before = setup([{ status: 201, json: transfer('pending') }]);
    const early = await failure(before.client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-1:transfer', signal: AbortSignal.abort() }));
    expect(early).toBeInstanceOf(AbortError);
    expect(early).toMatchObject({ attempts: 0, mayRetrySameKey: true, newKeySafe: true });
    const during = setup([{ stall: 201 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const late = await failure(during.client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-1:transfer', signal: controller.signal }));
    expect(late).toMatchObject({ attempts: 1, mayRetrySameKey: true, newKeySafe: false });
    expect(classifyTransfer(late).kind).toBe('unresolved');
  });
});

describe('every Idempotency-Key is checked before sending; the key reported is the key sent', () => {
  it.each([
    ['leading whitespace', ' order-1:transfer'],
    ['trailing whitespace', 'order-1:transfer '],
    ['a newline', 'order-1\ntransfer'],
    ['a carriage return', 'order-1\rtransfer'],
    ['a tab', 'order-1\ttransfer'],
    ['a NUL', 'order-1\0transfer'],
    ['a non-ASCII letter', 'pedido-ação'],
    ['a character beyond Latin-1', 'order-€'],
    ['more than the spec allows (255)', 'k'.repeat(256)],
  ])('%s → ValidationError on the key, nothing sent', async (_why, key) => {
    const { server, client } = setup([{ status: 201, json: transfer('pending') }]);
    const err = await failure(sendTransfer(client, key));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key', idempotencyKey: key, attempts: 0, newKeySafe: true });
    expect(server.sent).toHaveLength(0);
  });

  it('on every operation, the checkout ones included, and as the header parameter too', async () => {
    const { server, client } = setup([{ status: 201, json: { id: 'x' } }]);
    await expect(client.POST('/v1/cards', { body: {}, idempotencyKey: 'employee-9:card\n' })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.POST('/v1/banking/recipients', { body: { rail: 'usd_ach' } as never, params: { header: { 'Idempotency-Key': ' supplier-1' } } })).rejects.toBeInstanceOf(ValidationError);
    await expect(client.POST('/v1/checkout/products', { body: {} as never, idempotencyKey: 'sku-77810 ' })).rejects.toBeInstanceOf(ValidationError);
    expect(server.sent).toHaveLength(0);
  });

  it('a valid key with inner spaces goes out byte for byte, and is the key reported', async () => {
    const { server, client } = setup([{ status: 201, json: transfer('pending') }]);
    const result = await sendTransfer(client, 'order 1 transfer');
    expect(server.keys()).toEqual(['order 1 transfer']);
    expect(result.idempotencyKey).toBe('order 1 transfer');
  });
});

describe('deriveIdempotencyKey is unambiguous', () => {
  it('("createTransfer", "a:b") and ("createTransfer:a", "b") give different keys', async () => {
    expect(await deriveIdempotencyKey('createTransfer', 'a:b')).not.toBe(await deriveIdempotencyKey('createTransfer:a', 'b'));
    expect(await deriveIdempotencyKey('op', '1:x')).not.toBe(await deriveIdempotencyKey('op:1', 'x'));
  });

  it('is UUIDv5 of "<UTF-8 length of operation>:<operation>:<stableId>", computed independently with node:crypto', async () => {
    for (const [operation, stableId] of [['createTransfer', 'invoice-42'], ['criarTransferência', 'fatura:7']] as const) {
      const name = `${Buffer.byteLength(operation)}:${operation}:${stableId}`;
      const sha = createHash('sha1').update(Buffer.from(KEY_NAMESPACE.replace(/-/g, ''), 'hex')).update(name).digest();
      sha[6] = (sha[6]! & 0x0f) | 0x50;
      sha[8] = (sha[8]! & 0x3f) | 0x80;
      const hex = sha.subarray(0, 16).toString('hex');
      expect(await deriveIdempotencyKey(operation, stableId)).toBe(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
    }
  });

  it('refuses an empty operation or stable id', async () => {
    await expect(deriveIdempotencyKey('', 'invoice-42')).rejects.toThrow(TypeError);
    await expect(deriveIdempotencyKey('createTransfer', '')).rejects.toThrow(TypeError);
  });
});

describe('Retry-After is in milliseconds, like every option', () => {
  it('seconds and HTTP dates both become retryAfterMs', async () => {
    const a = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': '900' } }]);
    expect(await failure(a.client.GET('/v1/banking/balance'))).toMatchObject({ retryAfterMs: 900_000 });
    const b = setup([{ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': new Date(1_500_000).toUTCString() } }]);
    expect(await failure(b.client.GET('/v1/banking/balance'))).toMatchObject({ retryAfterMs: 1_500_000 });
  });
});

describe('the per-attempt timeout holds whatever the fetch does (virtual time)', () => {
  it('a fetch that ignores init.signal and never answers → TimeoutError per attempt, then retried with the same key', async () => {
    const { server, client } = setup(['hang-deaf', { status: 201, json: transfer('pending') }], { timeoutMs: 30_000 });
    const started = performance.now();
    const result = await sendTransfer(client);
    expect(result.attempts).toBe(2);
    expect(server.keys()).toEqual(['order-1:transfer', 'order-1:transfer']);
    expect(server.now()).toBe(30_000 + 375); // the timeout, then the first backoff: virtual, not waited
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a fetch that never answers on any attempt → TimeoutError with the key and attempts', async () => {
    const { client } = setup(['hang-deaf'], { timeoutMs: 30_000, retry: { maxAttempts: 3 } });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ attempts: 3, idempotencyKey: 'order-1:transfer', mayRetrySameKey: true, newKeySafe: false });
  });

  it('a body that ignores the signal and never ends → TimeoutError, not a hang', async () => {
    const { server, client } = setup([{ stall: 201, deaf: true }], { timeoutMs: 30_000 });
    const err = await failure(sendTransfer(client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ attempts: 1, idempotencyKey: 'order-1:transfer' });
    expect(server.now()).toBe(30_000);
    expect(classifyTransfer(err).kind).toBe('unresolved');
  });

  it('the caller aborting a deaf fetch ends the call at once with AbortError', async () => {
    const { client } = setup(['hang-deaf'], { setTimer: () => () => {} }); // a timer that never fires: only the abort can end it
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const err = await failure(client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-1:transfer', signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortError);
    expect(err).toMatchObject({ attempts: 1, idempotencyKey: 'order-1:transfer' });
  });
});
