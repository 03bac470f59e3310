// The sandbox's behaviour, rule by rule from the provider's document. One suite, run against every store
// (api.test.ts: node:sqlite and PostgreSQL). Codes and statuses are the spec's; test values are the
// sandbox's published ones.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator, errorCatalog, loadSpec, operations, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { testValue } from '../src/test-values.ts';
import { checksumAddress } from '../src/eip55.ts';
import { createCheckoutSession } from '../src/operations/checkout.ts';
import { UUID, adminOf, call, rawCall, type Reply } from './support.ts';
import { adminSpecPath, type RunningSandbox } from '../src/sandbox.ts';

const catalog = errorCatalog(loadSpec());
const statusOf = (code: string) => catalog.find((e) => e.code === code)!.status;
const validator = createValidator(loadSpec());
const adminSpec = JSON.parse(readFileSync(adminSpecPath, 'utf8')) as OpenApiDocument;

let n = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++n}`;

export function apiSuite(name: string, start: () => Promise<RunningSandbox>): void {
  describe(`sandbox API (${name})`, () => {
    let sandbox: RunningSandbox;
    let admin: ReturnType<typeof adminOf>;
    const api = (method: string, path: string, opts: Parameters<typeof call>[3] = {}) => call(sandbox.url, method, path, opts);

    function expectError(reply: Reply, code: string) {
      expect(reply.status, reply.text).toBe(statusOf(code));
      expect(reply.body, reply.text).toMatchObject({ code, error: expect.any(String), requestId: expect.stringMatching(UUID) });
      expect(Object.keys(reply.body).sort()).toEqual(['code', 'error', 'requestId']);
    }

    async function pixRecipient(key: string, overrides: Record<string, unknown> = {}) {
      const reply = await api('POST', '/v1/banking/recipients', {
        key,
        idem: unique('rcp'),
        body: { rail: 'brl_pix', nickname: unique('Maria'), pixKey: `${unique('maria')}@example.com`, ...overrides },
      });
      expect(reply.status, reply.text).toBe(201);
      return reply.body;
    }

    const transfer = (key: string, recipientId: string, amount: unknown, idem = unique('trf')) =>
      api('POST', '/v1/banking/transfers', { key, idem, body: { recipientId, amount } });

    beforeAll(async () => {
      sandbox = await start();
      admin = adminOf(sandbox);
    });
    afterAll(() => sandbox?.close());

    describe('authentication (x-api-key only, hashed, revocable)', () => {
      it('rejects a missing, malformed, unknown key, and a key sent as Authorization', async () => {
        const { key } = await admin.org();
        expectError(await api('GET', '/v1/banking/balance'), 'invalid_api_key');
        expectError(await api('GET', '/v1/banking/balance', { key: 'not-a-key' }), 'invalid_api_key');
        expectError(await api('GET', '/v1/banking/balance', { key: `svc_live_${'x'.repeat(32)}` }), 'invalid_api_key');
        expectError(await api('GET', '/v1/banking/balance', { headers: { authorization: `Bearer ${key}` } }), 'invalid_api_key');
        expect((await api('GET', '/v1/banking/balance', { key })).status).toBe(200);
      });

      it('a revoked key fails on the very next request', async () => {
        const { key, keyId } = await admin.org();
        expect((await api('GET', '/v1/banking/balance', { key })).status).toBe(200);
        await admin.req('POST', `/api-keys/${keyId}/revoke`);
        expectError(await api('GET', '/v1/banking/balance', { key }), 'invalid_api_key');
      });

      it('keys look like svc_live_… and are stored only as a hash and a prefix', async () => {
        const { key, keyId } = await admin.org();
        expect(key).toMatch(/^svc_live_[A-Za-z0-9]+$/);
        const record = await sandbox.store.transaction((tx) => tx.getApiKey(keyId));
        expect(record!.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(key.startsWith(record!.prefix)).toBe(true);
        expect(record!.prefix.length).toBeLessThan(key.length - 8);
        expect(JSON.stringify(record)).not.toContain(key);
      });
    });

    describe('product access (API access AND the product must be on)', () => {
      it.each([
        ['banking', 'GET', '/v1/banking/balance', 'banking_api_access_not_enabled'],
        ['cards', 'POST', '/v1/cards', 'cards_api_access_not_enabled'],
        ['checkout', 'POST', '/v1/checkout/products', 'api_access_disabled'],
      ])('%s off → 403 with its code', async (product, method, path, code) => {
        const { key } = await admin.org({ [product]: false });
        expectError(await api(method, path, { key, ...(method === 'GET' ? {} : { idem: unique('key-1'), body: {} }) }), code);
      });

      it('API access off → every product answers its own 403; on again → works', async () => {
        const { org, key } = await admin.org({ apiAccess: false, cardTermsAccepted: true });
        expectError(await api('GET', '/v1/banking/balance', { key }), 'banking_api_access_not_enabled');
        expectError(await api('POST', '/v1/cards', { key, idem: unique('c'), body: {} }), 'cards_api_access_not_enabled');
        expectError(await api('POST', '/v1/checkout/products', { key, idem: unique('product'), body: {} }), 'api_access_disabled');
        await admin.update(org.id, { apiAccess: true });
        expect((await api('GET', '/v1/banking/balance', { key })).status).toBe(200);
      });
    });

    describe('recipients', () => {
      it('creates a PIX recipient; the key is stored on it', async () => {
        const { key } = await admin.org();
        const idem = unique('rcp');
        const reply = await api('POST', '/v1/banking/recipients', { key, idem, body: { rail: 'brl_pix', nickname: 'Ana', pixKey: 'ana@example.com' } });
        expect(reply.status).toBe(201);
        expect(reply.body).toMatchObject({ id: expect.any(String), nickname: 'Ana', rail: 'brl_pix', pixKey: 'ana@example.com', active: true, idempotencyKey: idem });
      });

      it('only BRL PIX, USD ACH and USD Wire', async () => {
        const { key } = await admin.org();
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usdc_wallet', nickname: 'W' } }), 'recipient_rail_unsupported');
        for (const rail of ['usd_ach', 'usd_wire']) {
          expect((await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail, nickname: unique(rail) } })).status).toBe(201);
        }
      });

      it('a refused field is named in the message of the rail the body names, not of the first rail', async () => {
        const { key } = await admin.org();
        for (const [body, field] of [
          [{ rail: 'usd_ach', nickname: '' }, '/nickname'],
          [{ rail: 'usd_wire', nickname: 123 }, '/nickname'],
          [{ rail: 'brl_pix', nickname: 'Ana' }, "'pixKey'"],
        ] as const) {
          const refused = await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body });
          expectError(refused, 'invalid_request');
          expect(refused.body.error, JSON.stringify(body)).toContain(field);
        }
      });

      it('validates destination addresses, including the EIP-55 checksum of mixed case', async () => {
        const { key } = await admin.org();
        const lower = '0x52908400098527886e0f7030069857d2e4169ee7';
        const good = checksumAddress(lower);
        expect(good).toBe('0x52908400098527886E0F7030069857D2E4169EE7'); // the EIP-55 reference vector
        const bad = good.replace('E0F7', 'e0F7');
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_wire', nickname: unique('w'), destinationAddress: bad } }), 'invalid_destination_address');
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_wire', nickname: unique('w'), destinationAddress: '0x1234' } }), 'invalid_destination_address');
        for (const address of [good, lower]) {
          expect((await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_wire', nickname: unique('w'), destinationAddress: address } })).status).toBe(201);
        }
      });

      it('nickname unique among ACTIVE recipients', async () => {
        const { org, key } = await admin.org();
        const first = await pixRecipient(key, { nickname: 'Dup' });
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: 'Dup' } }), 'recipient_nickname_already_exists');
        await admin.req('POST', `/organizations/${org.id}/recipients/${first.id}/deactivate`);
        expect((await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: 'Dup' } })).status).toBe(201);
      });

      it('one recipient per PIX key, unless the same Idempotency-Key is replayed', async () => {
        const { key } = await admin.org();
        const idem = unique('r');
        const body = { rail: 'brl_pix', nickname: 'Pix', pixKey: 'same@example.com' };
        const first = await api('POST', '/v1/banking/recipients', { key, idem, body });
        const replay = await api('POST', '/v1/banking/recipients', { key, idem, body });
        expect(replay.status).toBe(201);
        expect(replay.body).toEqual(first.body);
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { ...body, nickname: 'Other' } }), 'recipient_already_exists');
      });

      it('a PIX key is a PIX recipient\'s: on a USD rail it is not kept, and takes no PIX recipient\'s key', async () => {
        const { key } = await admin.org();
        const pixKey = `${unique('shared')}@example.com`;
        const ach = await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: unique('Ach'), pixKey } });
        expect(ach.status, ach.text).toBe(201);
        expect(ach.body.pixKey).toBeUndefined();
        expect((await pixRecipient(key, { pixKey })).pixKey).toBe(pixKey);
      });

      it('the banking route can reject the details (test value)', async () => {
        const { key } = await admin.org();
        const value = testValue('recipient_partner_sync_failed').value;
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: value } }), 'recipient_partner_sync_failed');
      });
    });

    describe('transfers', () => {
      it('201 pending, visible by id to its organization only; the balance moves with the status', async () => {
        const { org, key } = await admin.org({ funding: { BRL: '1000.00' } });
        const other = await admin.org();
        const recipient = await pixRecipient(key);
        const created = await transfer(key, recipient.id, 150);
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ recipientId: recipient.id, amount: '150.00', status: 'pending' });
        const balance = async () => (await api('GET', '/v1/banking/balance', { key })).body.balances.find((b: any) => b.currency === 'BRL').available;
        expect(await balance()).toBe('850.00');
        expect((await api('GET', `/v1/banking/transfers/${created.body.id}`, { key })).body).toEqual(created.body);
        expectError(await api('GET', `/v1/banking/transfers/${created.body.id}`, { key: other.key }), 'banking_transfer_not_found');
        expectError(await api('GET', '/v1/banking/transfers/trf_missing', { key }), 'banking_transfer_not_found');
        expectError(await api('GET', `/v1/banking/transfers/${'x'.repeat(65)}`, { key }), 'banking_transfer_not_found'); // longer than any id
        await admin.req('POST', `/organizations/${org.id}/transfers/${created.body.id}/status`, { status: 'completed' });
        expect(await balance()).toBe('850.00');
        const second = await transfer(key, recipient.id, '100.00');
        await admin.req('POST', `/organizations/${org.id}/transfers/${second.body.id}/status`, { status: 'failed' });
        expect(await balance()).toBe('850.00');
        expect((await api('GET', `/v1/banking/transfers/${second.body.id}`, { key })).body.status).toBe('failed');
      });

      it('the balance body matches the spec when nothing is left and when transfers exceed what was funded', async () => {
        const { key } = await admin.org({ funding: { BRL: '100.00' } });
        const recipient = await pixRecipient(key);
        const isBalance = validator.schemaAt('#/components/schemas/Balance');
        const balance = async () => (await api('GET', '/v1/banking/balance', { key })).body;
        expect((await transfer(key, recipient.id, '100.00')).status).toBe(201);
        const zero = await balance();
        expect(zero.balances.find((b: any) => b.currency === 'BRL').available).toBe('0.00');
        expect(isBalance(zero), JSON.stringify(isBalance.errors)).toBe(true);
        // The provider names no refusal for a transfer larger than the balance: none is made up.
        expect((await transfer(key, recipient.id, '50.25')).status).toBe(201);
        const below = await balance();
        expect(below.balances.find((b: any) => b.currency === 'BRL').available).toBe('-50.25');
        expect(isBalance(below), JSON.stringify(isBalance.errors)).toBe(true);
      });

      it('an Idempotency-Key sent twice is refused (400), so the retry that sends it once cannot pay again (QA)', async () => {
        const { key } = await admin.org({ funding: { BRL: '100.00' } });
        const recipient = await pixRecipient(key);
        const idem = unique('trf-twice');
        const body = JSON.stringify({ recipientId: recipient.id, amount: '50.00' });
        const headers = { 'x-api-key': key, 'content-type': 'application/json' };
        const twice = await rawCall(sandbox.url, 'POST', '/v1/banking/transfers', { ...headers, 'idempotency-key': [idem, idem] }, body);
        expect(twice.status, twice.text).toBe(400);
        expect(JSON.parse(twice.text)).toMatchObject({ code: 'invalid_request', error: 'Idempotency-Key header must be sent once.' });
        const once = await rawCall(sandbox.url, 'POST', '/v1/banking/transfers', { ...headers, 'idempotency-key': idem }, body);
        expect(once.status, once.text).toBe(201);
        const again = await rawCall(sandbox.url, 'POST', '/v1/banking/transfers', { ...headers, 'idempotency-key': idem }, body);
        expect(JSON.parse(again.text).id).toBe(JSON.parse(once.text).id);
        const balance = (await api('GET', '/v1/banking/balance', { key })).body.balances.find((b: any) => b.currency === 'BRL').available;
        expect(balance).toBe('50.00');
        for (const [path, payload] of [['/v1/banking/recipients', { rail: 'brl_pix', nickname: unique('twice'), pixKey: `${unique('twice')}@example.com` }], ['/v1/cards', {}]] as const) {
          const refused = await rawCall(sandbox.url, 'POST', path, { ...headers, 'idempotency-key': [idem, idem] }, JSON.stringify(payload));
          expect(refused.status, `${path}: ${refused.text}`).toBe(400);
        }
      });

      it('a missing (of any length), inactive or foreign recipient is recipient_not_found', async () => {
        const { org, key } = await admin.org();
        const other = await admin.org();
        const recipient = await pixRecipient(key);
        expectError(await transfer(key, 'rcp_missing', 1), 'recipient_not_found');
        // The document bounds no id: one longer than the ids the sandbox assigns is missing too, not a 400 (QA).
        expectError(await transfer(key, `rcp_${'x'.repeat(200)}`, 1), 'recipient_not_found');
        expectError(await transfer(other.key, recipient.id, 1), 'recipient_not_found');
        await admin.req('POST', `/organizations/${org.id}/recipients/${recipient.id}/deactivate`);
        expectError(await transfer(key, recipient.id, 1), 'recipient_not_found');
      });

      it('a replay answers the original 201 after its recipient was deactivated (the recipient read ahead is not used)', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        const first = await transfer(key, recipient.id, 1, 'trf-replay-after-deactivation');
        expect(first.status).toBe(201);
        await admin.req('POST', `/organizations/${org.id}/recipients/${recipient.id}/deactivate`);
        const replay = await transfer(key, recipient.id, 1, 'trf-replay-after-deactivation');
        expect(replay.status).toBe(201);
        expect(replay.text).toBe(first.text);
      });

      it('wallet recipients: wallet transfers enabled, saved AND activated in the dashboard', async () => {
        const { org, key } = await admin.org();
        const wallet = await admin.req('POST', `/organizations/${org.id}/wallet-recipients`, { nickname: 'Cold wallet', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7' });
        expectError(await transfer(key, wallet.id, 5), 'wallet_transfers_not_enabled');
        await admin.update(org.id, { walletTransfers: true });
        expectError(await transfer(key, wallet.id, 5), 'wallet_recipient_required');
        await admin.req('POST', `/organizations/${org.id}/recipients/${wallet.id}/activate`);
        expect((await transfer(key, wallet.id, 5)).status).toBe(201);
        // Deactivated again: still the wallet's 409 (as the admin document says), not recipient_not_found.
        await admin.req('POST', `/organizations/${org.id}/recipients/${wallet.id}/deactivate`);
        expectError(await transfer(key, wallet.id, 5), 'wallet_recipient_required');
        // Any other rail, deactivated: 404 recipient_not_found.
        const ach = await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: unique('ach') } });
        await admin.req('POST', `/organizations/${org.id}/recipients/${ach.body.id}/deactivate`);
        expectError(await transfer(key, ach.body.id, 5), 'recipient_not_found');
      });

      it('amounts are exact to the cent beyond 2^53 cents: stored, answered, compared and balanced as decimals', async () => {
        const { key } = await admin.org({ funding: { USD: '999999999999999.99', BRL: '10.00' } });
        const ach = await api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname: unique('ach') } });
        const big = await transfer(key, ach.body.id, '999999999999999.98');
        expect(big.status, big.text).toBe(201);
        expect(big.body.amount).toBe('999999999999999.98');
        const balances = (await api('GET', '/v1/banking/balance', { key })).body.balances;
        expect(balances.find((b: any) => b.currency === 'USD').available).toBe('0.01');
        // The PIX quote range is compared in exact cents, and the message shows the amount as sent.
        const pix = await pixRecipient(key);
        const quote = await transfer(key, pix.id, '999999999999999.99');
        expectError(quote, 'pix_quote_rejected');
        expect(quote.body.error).toContain('999999999999999.99');
        // Not a two-decimal amount (0.1 + 0.2 is 0.30000000000000004), or no canonical form the spec allows.
        for (const amount of [0.1 + 0.2, '12345678901234567', 1e21]) {
          const refused = await transfer(key, ach.body.id, amount);
          expectError(refused, 'invalid_request');
          expect(refused.body.error).toMatch(/\/amount/);
        }
      });

      it('a transfer id that is not valid percent-encoding names nothing: banking_transfer_not_found, after authentication', async () => {
        const { key } = await admin.org();
        for (const id of ['%ZZ', '%', 'trf_%E0%A4%A']) expectError(await api('GET', `/v1/banking/transfers/${id}`, { key }), 'banking_transfer_not_found');
        expectError(await api('GET', '/v1/banking/transfers/%ZZ'), 'invalid_api_key');
        const none = await api('GET', '/v1/banking/%ZZ', { key });
        expect(none.status).toBe(404);
        expect(none.body).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(UUID) });
      });

      it.each(['pix_recipient_bank_not_supported', 'pix_quote_rejected', 'pix_payout_rejected'])('%s by its test value, no funds moved', async (code) => {
        const { key } = await admin.org({ funding: { BRL: '1000000.00' } });
        const value = testValue(code);
        const recipient = await pixRecipient(key, code === 'pix_recipient_bank_not_supported' ? { pixKey: value.value } : {});
        const reply = await transfer(key, recipient.id, code === 'pix_recipient_bank_not_supported' ? '10.00' : value.value);
        expectError(reply, code);
        const balances = (await api('GET', '/v1/banking/balance', { key })).body.balances;
        expect(balances.find((b: any) => b.currency === 'BRL').available).toBe('1000000.00');
      });

      it('same key: identical replay; another amount or recipient → banking_transfer_idempotency_conflict', async () => {
        const { key } = await admin.org();
        const a = await pixRecipient(key);
        const b = await pixRecipient(key);
        const idem = unique('order');
        const first = await transfer(key, a.id, '20.00', idem);
        const replay = await transfer(key, a.id, 20, idem);
        expect(replay.status).toBe(201);
        expect(replay.body).toEqual(first.body);
        expectError(await transfer(key, a.id, '21.00', idem), 'banking_transfer_idempotency_conflict');
        expectError(await transfer(key, b.id, '20.00', idem), 'banking_transfer_idempotency_conflict');
      });

      it('an amount sent as a JSON number is read as the decimal it was written as, beyond what a double holds', async () => {
        // 99999999999999.99 parses to the double that prints …98, and 37.45000000000000001 to 37.45 (QA, 2026-11-28).
        const { key } = await admin.org();
        const recipient = (await api('POST', '/v1/banking/recipients', { key, idem: unique('ach'), body: { rail: 'usd_ach', nickname: unique('Exact') } })).body; // no PIX quote range
        const raw = (amount: string, idem: string) =>
          api('POST', '/v1/banking/transfers', { key, idem, raw: `{"recipientId":${JSON.stringify(recipient.id)},"amount":${amount}}`, headers: { 'content-type': 'application/json' } });
        const idem = unique('exact');
        const created = await raw('99999999999999.99', idem);
        expect(created.status, created.text).toBe(201);
        expect(created.body.amount).toBe('99999999999999.99');
        const asString = await transfer(key, recipient.id, '99999999999999.99', idem); // the same amount: a replay, not a conflict
        expect(asString.status, asString.text).toBe(201);
        expect(asString.body).toEqual(created.body);
        expect((await raw('9999999999999999e-2', unique('exact'))).body.amount).toBe('99999999999999.99');
        expectError(await raw('37.45000000000000001', unique('exact')), 'invalid_request');
        // JSON's whitespace before a number: the number is still judged as it was sent.
        const spaced = `{"recipientId": ${JSON.stringify(recipient.id)},\n  "amount" :\r\n\t37.45000000000000001}`;
        expectError(await api('POST', '/v1/banking/transfers', { key, idem: unique('exact'), raw: spaced, headers: { 'content-type': 'application/json' } }), 'invalid_request');
        expectError(await api('POST', '/v1/checkout/sessions', { key, idem: unique('exact-session'), raw: '{"amount":37.45000000000000001}', headers: { 'content-type': 'application/json' } }), 'invalid_checkout_session_amount');
        expect((await raw('37.450', unique('exact'))).body.amount).toBe('37.45'); // the same decimal, other digits: still a number
      });

      it('a temporary 503 leaves the attempt unresolved; the retry with the same key resolves it', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        for (const resolution of ['pending', 'completed', 'failed', 'cancelled']) {
          await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 2, organizationId: org.id, resolution });
          const idem = unique('order');
          const first = await transfer(key, recipient.id, '7.00', idem);
          expectError(first, 'temporarily_unavailable');
          expect(first.body.status).toBeUndefined(); // no transfer object
          expectError(await transfer(key, recipient.id, '7.00', idem), 'temporarily_unavailable'); // another 503
          const resolved = await transfer(key, recipient.id, '7.00', idem);
          expect(resolved.status).toBe(201);
          expect(resolved.body).toMatchObject({ status: resolution, idempotencyKey: idem });
          expect((await transfer(key, recipient.id, '7.00', idem)).body).toEqual(resolved.body);
        }
      });

      it('pending review: by default the next retry resolves it; held, it waits for the admin', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        await admin.fault({ operationId: 'createTransfer', kind: 'pending_review', count: 1, organizationId: org.id });
        const first = unique('order');
        expectError(await transfer(key, recipient.id, '8.00', first), 'banking_transfer_attempt_pending_review');
        expect((await transfer(key, recipient.id, '8.00', first)).body.status).toBe('pending');
      });

      it('pending review holds until resolved; never resolved by a new request', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        await admin.fault({ operationId: 'createTransfer', kind: 'pending_review', count: 1, organizationId: org.id, resolution: 'pending_review' });
        const idem = unique('order');
        expectError(await transfer(key, recipient.id, '9.00', idem), 'banking_transfer_attempt_pending_review');
        expectError(await transfer(key, recipient.id, '9.00', idem), 'banking_transfer_attempt_pending_review');
        // The same payment under a NEW key is a new request: a separate transfer, which resolves nothing.
        const fresh = await transfer(key, recipient.id, '9.00', unique('order'));
        expect(fresh.status, fresh.text).toBe(201);
        expect(fresh.body).toMatchObject({ status: 'pending', amount: '9.00', recipientId: recipient.id });
        expect(fresh.body.idempotencyKey).not.toBe(idem);
        expectError(await transfer(key, recipient.id, '9.00', idem), 'banking_transfer_attempt_pending_review'); // still held
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
        await admin.req('POST', `/organizations/${org.id}/transfer-attempts/resolve`, { idempotencyKey: idem, resolution: 'completed' });
        const resolved = await transfer(key, recipient.id, '9.00', idem);
        expect(resolved.status).toBe(201);
        expect(resolved.body).toMatchObject({ status: 'completed', idempotencyKey: idem });
        expect(resolved.body.id).not.toBe(fresh.body.id);
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(2);
      });

      it('keys are scoped per organization and per operation', async () => {
        const one = await admin.org();
        const two = await admin.org();
        const idem = unique('shared');
        const r1 = await api('POST', '/v1/banking/recipients', { key: one.key, idem, body: { rail: 'usd_ach', nickname: unique('a') } });
        const r2 = await api('POST', '/v1/banking/recipients', { key: two.key, idem, body: { rail: 'usd_ach', nickname: unique('b') } });
        expect(r1.status).toBe(201);
        expect(r2.status).toBe(201);
        expect(r1.body.id).not.toBe(r2.body.id);
        // The recipient's key on another operation: a transfer is created, not the recipient replayed.
        const t = await transfer(one.key, r1.body.id, 3, idem);
        expect(t.status).toBe(201);
        const isTransfer = validator.schemaAt('#/components/schemas/Transfer');
        expect(isTransfer(t.body), JSON.stringify(isTransfer.errors)).toBe(true);
        expect(t.body).toEqual({ id: expect.any(String), recipientId: r1.body.id, amount: '3.00', status: 'pending', idempotencyKey: idem });
        expect(t.body.id).not.toBe(r1.body.id);
        expect((await api('GET', `/v1/banking/transfers/${t.body.id}`, { key: one.key })).body).toEqual(t.body);
      });

      it('100 concurrent requests with one key: one transfer, identical responses', async () => {
        const { org, key } = await admin.org({ funding: { BRL: '1000.00' } });
        const recipient = await pixRecipient(key);
        const idem = unique('burst');
        const replies = await Promise.all(Array.from({ length: 100 }, () => transfer(key, recipient.id, '1.00', idem)));
        expect(new Set(replies.map((r) => r.status))).toEqual(new Set([201]));
        expect(new Set(replies.map((r) => r.text)).size).toBe(1);
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
      });
    });

    describe('a refusal under an Idempotency-Key (the key\'s original result, rule 3)', () => {
      it('a transfer the operation refused: the same request replays the refusal, another amount or recipient is a conflict, the key never pays', async () => {
        const { org, key } = await admin.org({ funding: { BRL: '1000000.00' } });
        const recipient = await pixRecipient(key);
        const idem = unique('order');
        const missing = await transfer(key, 'rcp_missing', '10.00', idem);
        expectError(missing, 'recipient_not_found');
        const replay = await transfer(key, 'rcp_missing', 10, idem);
        expect(replay.status).toBe(404);
        expect(replay.body).toEqual(missing.body); // the original answer, its requestId included
        expectError(await transfer(key, recipient.id, '10.00', idem), 'banking_transfer_idempotency_conflict');

        const quoteKey = unique('order');
        expectError(await transfer(key, recipient.id, testValue('pix_quote_rejected').value, quoteKey), 'pix_quote_rejected');
        expectError(await transfer(key, recipient.id, '10.00', quoteKey), 'banking_transfer_idempotency_conflict');
        const journal = await admin.req('GET', `/organizations/${org.id}/journal`);
        const replayed = journal.entries.filter((e: any) => e.idempotencyKey === idem);
        expect(replayed.map((e: any) => [e.status, e.code])).toEqual([[404, 'recipient_not_found'], [404, 'recipient_not_found'], [409, 'banking_transfer_idempotency_conflict']]);
        const balances = (await api('GET', '/v1/banking/balance', { key })).body.balances;
        expect(balances.find((b: any) => b.currency === 'BRL').available).toBe('1000000.00');
      });

      it('the retry of an unresolved transfer resolves it as scheduled, whatever a new attempt would be refused for (section 3, rule 7)', async () => {
        const { org, key } = await admin.org({ funding: { BRL: '1000005.00' } });
        const recipient = await pixRecipient(key);
        // Deactivated after the attempt started: the payout was started, so the retry resolves the attempt.
        await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: org.id, resolution: 'completed' });
        const idem = unique('order');
        expectError(await transfer(key, recipient.id, '5.00', idem), 'temporarily_unavailable');
        await admin.req('POST', `/organizations/${org.id}/recipients/${recipient.id}/deactivate`);
        const resolved = await transfer(key, recipient.id, '5.00', idem);
        expect(resolved.status, resolved.text).toBe(201);
        expect(resolved.body).toMatchObject({ recipientId: recipient.id, amount: '5.00', status: 'completed', idempotencyKey: idem });
        expect((await transfer(key, recipient.id, '5.00', idem)).body).toEqual(resolved.body);
        expectError(await transfer(key, recipient.id, '5.00', unique('order')), 'recipient_not_found'); // a new attempt is refused
        await admin.req('POST', `/organizations/${org.id}/recipients/${recipient.id}/activate`);
        // Amounts a new attempt is refused for (section 7's 422s): the attempt's scheduled resolution still decides.
        for (const [code, resolution] of [['pix_payout_rejected', 'failed'], ['pix_quote_rejected', 'pending']] as const) {
          await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: org.id, resolution });
          const attempt = unique('order');
          const amount = testValue(code).value;
          expectError(await transfer(key, recipient.id, amount, attempt), 'temporarily_unavailable');
          const retry = await transfer(key, recipient.id, amount, attempt);
          expect(retry.status, retry.text).toBe(201);
          expect(retry.body).toMatchObject({ amount, status: resolution, idempotencyKey: attempt });
        }
        // A recipient the organization never had: there is no transfer to resolve the attempt into.
        await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: org.id, resolution: 'completed' });
        const missing = unique('order');
        expectError(await transfer(key, 'rcp_missing', '5.00', missing), 'temporarily_unavailable');
        expectError(await transfer(key, 'rcp_missing', '5.00', missing), 'recipient_not_found');
        const balances = (await api('GET', '/v1/banking/balance', { key })).body.balances;
        expect(balances.find((b: any) => b.currency === 'BRL').available).toBe('0.01'); // 1,000,005.00 − 5.00 − 999,999.99 pending; the failed one moved nothing
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(3);
      });

      it('cards and recipients: the refusal is replayed, whatever changed since (a new payment needs a new key)', async () => {
        const { org, key } = await admin.org();
        const card = unique('card');
        const terms = await api('POST', '/v1/cards', { key, idem: card, body: {} });
        expectError(terms, 'authorized_user_terms_required');
        await admin.update(org.id, { cardTermsAccepted: true });
        expect((await api('POST', '/v1/cards', { key, idem: card, body: {} })).body).toEqual(terms.body);
        expect((await api('POST', '/v1/cards', { key, idem: unique('card'), body: {} })).status).toBe(201);

        const taken = await pixRecipient(key);
        const idem = unique('rcp');
        const clash = await api('POST', '/v1/banking/recipients', { key, idem, body: { rail: 'brl_pix', nickname: taken.nickname, pixKey: `${unique('x')}@example.com` } });
        expectError(clash, 'recipient_nickname_already_exists');
        const renamed = await api('POST', '/v1/banking/recipients', { key, idem, body: { rail: 'brl_pix', nickname: unique('Other'), pixKey: `${unique('x')}@example.com` } });
        expect(renamed.body).toEqual(clash.body); // rule 4: a different request under the key gets the original response
      });

      it('what is refused before the operation runs (its product off, a body the spec refuses) leaves the key free', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        const idem = unique('order');
        expectError(await transfer(key, recipient.id, 'abc', idem), 'invalid_request');
        await admin.update(org.id, { banking: false });
        expectError(await transfer(key, recipient.id, '3.00', idem), 'banking_api_access_not_enabled');
        await admin.update(org.id, { banking: true });
        expect((await transfer(key, recipient.id, '3.00', idem)).status).toBe(201);
      });

      it('concurrent requests with one key that the operation refuses: one refusal, answered to all', async () => {
        const { key } = await admin.org();
        const idem = unique('order');
        const replies = await Promise.all(Array.from({ length: 20 }, () => transfer(key, 'rcp_missing', '1.00', idem)));
        for (const reply of replies) expectError(reply, 'recipient_not_found');
        expect(new Set(replies.map((r) => r.body.requestId)).size).toBe(1);
      });
    });

    describe('cards', () => {
      it('authorized-user terms first; provider_rate_limited with Retry-After, then the same key works', async () => {
        const { org, key } = await admin.org();
        expectError(await api('POST', '/v1/cards', { key, idem: unique('c'), body: {} }), 'authorized_user_terms_required');
        await admin.update(org.id, { cardTermsAccepted: true });
        await admin.fault({ operationId: 'issueCard', kind: 'provider_rate_limited', count: 1, organizationId: org.id, retryAfterSeconds: 3 });
        const idem = unique('card');
        const limited = await api('POST', '/v1/cards', { key, idem, body: {} });
        expectError(limited, 'provider_rate_limited');
        expect(limited.headers.get('retry-after')).toBe('3');
        const issued = await api('POST', '/v1/cards', { key, idem, body: {} });
        expect(issued.status).toBe(201);
        expect(issued.body.idempotencyKey).toBe(idem);
      });

      it('has a stricter rate limit than the default (x-rate-limit on the operation)', async () => {
        const limit = (loadSpec().paths['/v1/cards'] as any).post['x-rate-limit'].limit as number;
        const { key } = await admin.org({ cardTermsAccepted: true });
        const replies = [];
        for (let i = 0; i <= limit; i++) replies.push(await api('POST', '/v1/cards', { key, idem: unique('c'), body: {} }));
        expect(replies.slice(0, limit).every((r) => r.status === 201)).toBe(true);
        expectError(replies[limit]!, 'rate_limit_exceeded');
        expect(Number(replies[limit]!.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await api('GET', '/v1/banking/balance', { key })).status).toBe(200); // other operations go on
      });
    });

    describe('checkout', () => {
      const session = (key: string, body: unknown, idem = unique('cart-session')) => api('POST', '/v1/checkout/sessions', { key, idem, body });

      it('creates products with a checkout key', async () => {
        const { key } = await admin.org();
        const reply = await api('POST', '/v1/checkout/products', { key, idem: unique('product'), body: { name: 'T-shirt' } });
        expect(reply.status).toBe(201);
        expect(reply.body).toMatchObject({ id: expect.any(String), name: 'T-shirt' });
      });

      it('amount rules, pricing conflict, and PIX only once set up', async () => {
        const { org, key } = await admin.org();
        for (const amount of [0, -5, '37.456', 1.005, 'abc', 0.1 + 0.2, '12345678901234567']) expectError(await session(key, { amount }), 'invalid_checkout_session_amount');
        expectError(await session(key, { amount: '10.00', discountPercent: 5 }), 'checkout_session_pricing_conflict');
        expectError(await session(key, { amount: '10.00', paymentMethod: 'pix' }), 'checkout_pix_not_available');
        expectError(await session(key, { amount: '10.00', paymentMethod: 'PIX' }), 'checkout_pix_not_available'); // however it is spelled
        await admin.update(org.id, { checkoutPix: true });
        const ok = await session(key, { amount: 0.07, paymentMethod: 'pix' });
        expect(ok.status).toBe(201);
        expect(ok.body.amount).toBe('0.07');
      });

      it('request identity is the normalized amount, discountPercent and method: 37.45 equals "37.45"', async () => {
        // The identity the handler records under the key: 37.45 and "37.45" are one request, 37.46 another.
        const identity = createCheckoutSession.fingerprint!;
        expect(identity({ amount: 37.45, paymentMethod: 'pix' })).toBe(identity({ amount: '37.45', paymentMethod: 'pix' }));
        expect(identity({ amount: 37.4, paymentMethod: 'pix' })).toBe(identity({ amount: '37.40', paymentMethod: 'pix' }));
        expect(identity({ amount: 37.46, paymentMethod: 'pix' })).not.toBe(identity({ amount: '37.45', paymentMethod: 'pix' }));
        expect(identity({ amount: 37.45, paymentMethod: 'pix' })).not.toBe(identity({ amount: 37.45 }));
        expect(identity({ discountPercent: 10 })).not.toBe(identity({ discountPercent: 11 }));
        expect(identity({ discountPercent: 10, name: 'a' })).toBe(identity({ discountPercent: 10, name: 'b' })); // other fields are not identity

        // On the wire: a replay, and a key reused for a different request, both get the original response,
        // byte for byte, and nothing new is created.
        const { org, key } = await admin.org({ checkoutPix: true });
        const idem = unique('cart-identity');
        const first = await session(key, { amount: 37.45, paymentMethod: 'pix' }, idem);
        expect(first.status).toBe(201);
        expect(first.body).toMatchObject({ amount: '37.45', paymentMethod: 'pix', idempotencyKey: idem });
        const same = await session(key, { amount: '37.45', paymentMethod: 'pix' }, idem);
        expect(same.status).toBe(201);
        expect(same.text).toBe(first.text);
        const reused = await session(key, { amount: '99.00', paymentMethod: 'pix' }, idem);
        expect(reused.status).toBe(201);
        expect(reused.text).toBe(first.text);
        expect(await sandbox.store.transaction((tx) => tx.countResources('checkout_session', org.id))).toBe(1);
      });

      it('checkout keys must be 8–200 of letters, digits, . _ : -', async () => {
        const { key } = await admin.org();
        for (const idem of ['short', 'has space!', 'x'.repeat(201)]) expectError(await api('POST', '/v1/checkout/products', { key, idem, body: {} }), 'invalid_request');
      });
    });

    describe('HTTP hygiene', () => {
      it('no CORS headers on any response, preflight included', async () => {
        const { key } = await admin.org();
        const origin = { origin: 'https://evil.example' };
        const replies = [
          await api('OPTIONS', '/v1/banking/balance', { headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' } }),
          await api('GET', '/v1/banking/balance', { key, headers: origin }),
          await api('GET', '/v1/banking/balance', { headers: origin }),
          await api('POST', '/v1/banking/transfers', { key, headers: origin, body: {} }),
        ];
        for (const reply of replies) {
          for (const header of reply.headers.keys()) expect(header).not.toMatch(/^access-control-/);
        }
        expect(replies[0]!.status).toBeGreaterThanOrEqual(400);
      });

      it('a missing Idempotency-Key, malformed JSON and a wrong content type get the shared error body', async () => {
        const { key } = await admin.org();
        expectError(await api('POST', '/v1/banking/transfers', { key, body: { recipientId: 'r', amount: 1 } }), 'invalid_request');
        const malformed = await api('POST', '/v1/banking/transfers', { key, idem: unique('m'), raw: '{"amount": 1,', headers: { 'content-type': 'application/json' } });
        expectError(malformed, 'invalid_request');
        expect(malformed.text).not.toMatch(/at .*\.ts|SyntaxError/);
        expectError(await api('POST', '/v1/banking/transfers', { key, idem: unique('m'), raw: 'amount=1', headers: { 'content-type': 'text/plain' } }), 'invalid_request');
      });

      it('an oversized body is refused with payload_too_large', async () => {
        const { key } = await admin.org();
        const reply = await api('POST', '/v1/checkout/products', { key, idem: unique('product'), body: { blob: 'x'.repeat(200_000) } });
        expectError(reply, 'payload_too_large');
      });

      it('an operation without a body ignores one, however large: no 413 where the spec documents none', async () => {
        const { key } = await admin.org();
        const reply = await rawCall(sandbox.url, 'GET', '/v1/banking/balance', { 'x-api-key': key, 'content-type': 'application/json' }, 'x'.repeat(200_000));
        expect(reply.status, reply.text).toBe(200);
        expect(JSON.parse(reply.text)).toHaveProperty('balances');
      });

      it('a body nested deeper than 100 levels is 400 invalid_request, saying so (edge QA: 2,275 levels were a 500)', async () => {
        const { key } = await admin.org();
        const nested = (levels: number) => `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
        const product = (text: string) => rawCall(sandbox.url, 'POST', '/v1/checkout/products', { 'x-api-key': key, 'idempotency-key': unique('nested'), 'content-type': 'application/json' }, text);
        expect((await product(nested(100))).status).toBe(201);
        for (const levels of [101, 2_275, 10_000]) {
          const reply = await product(nested(levels));
          expect(reply.status, reply.text).toBe(400);
          expect(JSON.parse(reply.text)).toMatchObject({ code: 'invalid_request', error: 'Request body is nested deeper than 100 levels.' });
        }
        // Brackets inside a string are text, not levels.
        expect((await product(JSON.stringify({ name: '['.repeat(500) }))).status).toBe(201);
      });

      it('a body of another media type or compressed is 400 invalid_request saying so (edge QA: application/jsonx passed, gzip was "not UTF-8")', async () => {
        const { key } = await admin.org();
        const product = (headers: Record<string, string>) => rawCall(sandbox.url, 'POST', '/v1/checkout/products', { 'x-api-key': key, 'idempotency-key': unique('media'), ...headers }, '{"name":"Media"}');
        for (const type of ['application/jsonx', 'application/json-seq', 'application/vnd.api+json']) {
          const reply = await product({ 'content-type': type });
          expect(reply.status, type).toBe(400);
          expect(JSON.parse(reply.text), type).toMatchObject({ code: 'invalid_request', error: 'Request body must be JSON (content-type: application/json).' });
        }
        for (const type of ['application/json; charset=utf-8', 'APPLICATION/JSON']) expect((await product({ 'content-type': type })).status, type).toBe(201);
        const gzip = await product({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
        expect(gzip.status).toBe(400);
        expect(JSON.parse(gzip.text)).toMatchObject({ code: 'invalid_request', error: 'Content-Encoding gzip is not supported: send the body uncompressed.' });
        expect((await product({ 'content-type': 'application/json', 'content-encoding': 'identity' })).status).toBe(201);
      });

      it('a body that is not an object is told so, not a rule it breaks vacuously (edge QA: pricing_conflict for null)', async () => {
        const { key } = await admin.org();
        for (const text of ['null', '[]', '"str"', '1']) {
          const reply = await rawCall(sandbox.url, 'POST', '/v1/checkout/sessions', { 'x-api-key': key, 'idempotency-key': unique('not-object'), 'content-type': 'application/json' }, text);
          expect(reply.status, text).toBe(400);
          expect(JSON.parse(reply.text), text).toMatchObject({ code: 'invalid_request', error: 'Request body (root) must be object.' });
        }
      });

      it('every error carries a fresh requestId', async () => {
        const ids = new Set<string>();
        for (let i = 0; i < 5; i++) ids.add((await api('GET', '/v1/banking/balance')).body.requestId);
        expect(ids.size).toBe(5);
      });
    });

    describe('edge faults', () => {
      it('502 without a JSON body, committed or not; the retry with the same key is safe', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        await admin.fault({ operationId: 'createTransfer', kind: 'edge_502', count: 1, organizationId: org.id, commit: true });
        const idem = unique('edge');
        const edge = await transfer(key, recipient.id, '4.00', idem);
        expect(edge.status).toBe(502);
        expect(edge.body).toBeUndefined();
        expect(edge.headers.get('content-type')).not.toContain('json');
        const retry = await transfer(key, recipient.id, '4.00', idem);
        expect(retry.status).toBe(201);
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
        await admin.fault({ operationId: 'createTransfer', kind: 'edge_504', count: 1, organizationId: org.id });
        expect((await transfer(key, recipient.id, '5.00')).status).toBe(504);
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
      });

      it('a connection dropped after commit: the retry replays the committed transfer', async () => {
        const { org, key } = await admin.org();
        const recipient = await pixRecipient(key);
        await admin.fault({ operationId: 'createTransfer', kind: 'drop_after_commit', count: 1, organizationId: org.id });
        const idem = unique('drop');
        await expect(transfer(key, recipient.id, '6.00', idem)).rejects.toThrow();
        const retry = await transfer(key, recipient.id, '6.00', idem);
        expect(retry.status).toBe(201);
        expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
      });
    });

    describe('text holding U+0000 or an unpaired surrogate (QA: PostgreSQL refused NUL, a 500 on that store only)', () => {
      it('an id holding it names nothing: the operation\'s 404 (section 4, rule 2)', async () => {
        const { key } = await admin.org();
        expectError(await api('GET', '/v1/banking/transfers/trf_%00', { key }), 'banking_transfer_not_found');
        expectError(await transfer(key, 'rcp_\u0000', '1.00'), 'recipient_not_found');
        expect((await admin.send('GET', '/organizations/org_%00')).status).toBe(404);
        expect((await admin.send('POST', '/api-keys/key_%00/revoke')).status).toBe(404);
      });

      it('a value to be stored holding it is refused 400 invalid_request, the key left free; kept as JSON it is fine', async () => {
        const { org, key } = await admin.org();
        const idem = unique('rcp');
        const send = (nickname: string) => api('POST', '/v1/banking/recipients', { key, idem, body: { rail: 'usd_ach', nickname } });
        const refused = await send('a\u0000b');
        expectError(refused, 'invalid_request');
        expect(refused.body.error).toContain('U+0000');
        expect((await send(unique('ok'))).status).toBe(201);
        expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('rcp'), body: { rail: 'brl_pix', nickname: unique('p'), pixKey: 'x\u0000y' } }), 'invalid_request');
        // Stored as UTF-8, an unpaired surrogate became U+FFFD: "x\uD800", "x\uDBFF" and "x\uFFFD" were one nickname.
        for (const nickname of ['x\uD800', 'x\uDBFF']) expectError(await api('POST', '/v1/banking/recipients', { key, idem: unique('rcp'), body: { rail: 'usd_ach', nickname } }), 'invalid_request');
        expect((await api('POST', '/v1/banking/recipients', { key, idem: unique('rcp'), body: { rail: 'usd_ach', nickname: 'x\uFFFD' } })).status).toBe(201);
        expect((await admin.send('POST', '/organizations', { body: { name: 'a\u0000b' } })).status).toBe(400);
        expect((await admin.send('POST', `/organizations/${org.id}/wallet-recipients`, { body: { nickname: 'w\u0000', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7' } })).status).toBe(400);
        // A checkout product's body is stored as JSON, where the character is escaped: accepted, and replayed as sent.
        const productIdem = unique('product');
        const product = await api('POST', '/v1/checkout/products', { key, idem: productIdem, body: { name: 'a\u0000b' } });
        expect(product.status, product.text).toBe(201);
        expect((await api('POST', '/v1/checkout/products', { key, idem: productIdem, body: { name: 'a\u0000b' } })).text).toBe(product.text);
      });
    });

    describe('admin', () => {
      const walletAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
      const adminOperations = operations(adminSpec);

      it('saving a wallet recipient applies the EIP-55 checksum rule of the public API', async () => {
        const { org } = await admin.org();
        const bad = walletAddress.replace('E0F7', 'e0F7');
        const refused = await admin.send('POST', `/organizations/${org.id}/wallet-recipients`, { body: { nickname: unique('w'), destinationAddress: bad } });
        expect(refused.status, refused.text).toBe(statusOf('invalid_destination_address'));
        expect(refused.body).toMatchObject({ code: 'invalid_destination_address', error: expect.stringContaining('EIP-55'), requestId: expect.stringMatching(UUID) });
        for (const address of [walletAddress, walletAddress.toLowerCase()]) {
          expect((await admin.send('POST', `/organizations/${org.id}/wallet-recipients`, { body: { nickname: unique('w'), destinationAddress: address } })).status).toBe(201);
        }
      });

      it('nicknames are unique among active EXTERNAL recipients; a wallet recipient takes none (section 2)', async () => {
        const { org, key } = await admin.org({ walletTransfers: true });
        const taken = await pixRecipient(key, { nickname: 'Treasury' });
        const ach = (nickname: string) => api('POST', '/v1/banking/recipients', { key, idem: unique('r'), body: { rail: 'usd_ach', nickname } });
        // Another external recipient may not use it while the first is active.
        expectError(await ach('Treasury'), 'recipient_nickname_already_exists');
        // A wallet is not an external recipient: saved active under an external's nickname, and the other way round.
        const path = `/organizations/${org.id}/wallet-recipients`;
        const wallet = await admin.send('POST', path, { body: { nickname: 'Treasury', destinationAddress: walletAddress, active: true } });
        expect(wallet.status, wallet.text).toBe(201);
        expect(wallet.body).toMatchObject({ nickname: 'Treasury', active: true });
        const cold = await admin.send('POST', path, { body: { nickname: 'Cold store', destinationAddress: walletAddress, active: true } });
        expect(cold.status, cold.text).toBe(201);
        const sameAsWallet = await ach('Cold store');
        expect(sameAsWallet.status, sameAsWallet.text).toBe(201);
        // Activating an external recipient is refused while another active external one holds its nickname.
        await admin.req('POST', `/organizations/${org.id}/recipients/${taken.id}/deactivate`);
        const second = await ach('Treasury');
        expect(second.status, second.text).toBe(201);
        const activate = `/organizations/${org.id}/recipients/${taken.id}/activate`;
        const blocked = await admin.send('POST', activate);
        expect(blocked.status, blocked.text).toBe(statusOf('recipient_nickname_already_exists'));
        expect(blocked.body).toMatchObject({ code: 'recipient_nickname_already_exists', requestId: expect.stringMatching(UUID) });
        // A wallet's activation checks no nickname; an inactive one still cannot be sent to.
        const saved = await admin.send('POST', path, { body: { nickname: 'Treasury', destinationAddress: walletAddress } });
        expectError(await transfer(key, saved.body.id, 1), 'wallet_recipient_required');
        expect((await admin.send('POST', `/organizations/${org.id}/recipients/${saved.body.id}/activate`)).body).toMatchObject({ id: saved.body.id, active: true });
      });

      it("lists an organization's keys (ids and prefixes, revoked ones too, never a key or hash) and every organization (QA)", async () => {
        const { org, key, keyId } = await admin.org();
        const second = await admin.req('POST', `/organizations/${org.id}/api-keys`);
        const revoked = await admin.req('POST', `/api-keys/${keyId}/revoke`);
        const listed = await admin.send('GET', `/organizations/${org.id}/api-keys`);
        expect(listed.status, listed.text).toBe(200);
        const validate = createValidator(adminSpec).compile({ $ref: '#/components/schemas/ApiKeyList' });
        expect(validate(listed.body), JSON.stringify(validate.errors)).toBe(true);
        // Two keys made within one millisecond have no order of their own: compared as a set.
        expect(listed.body.apiKeys).toHaveLength(2);
        expect(listed.body.apiKeys).toEqual(
          expect.arrayContaining([
            { id: keyId, organizationId: org.id, prefix: key.slice(0, 13), createdAt: expect.any(String), revokedAt: revoked.revokedAt },
            { id: second.id, organizationId: org.id, prefix: second.prefix, createdAt: second.createdAt, revokedAt: null },
          ]),
        );
        expect(listed.text).not.toContain(key.slice(13));
        expect(listed.text).not.toContain(second.key.slice(13));
        expect((await admin.send('GET', '/organizations/org_none/api-keys')).status).toBe(404);
        const organizations = (await admin.req('GET', '/organizations')).organizations as { id: string }[];
        expect(organizations.map((o) => o.id)).toContain(org.id);
      });

      it('a fault kind is accepted only on operations that document its answer', async () => {
        const { org } = await admin.org();
        const refused = await admin.send('POST', '/faults', { body: { operationId: 'createTransfer', kind: 'provider_rate_limited', count: 1, organizationId: org.id } });
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body).toMatchObject({ code: 'invalid_request', requestId: expect.stringMatching(UUID) });
        expect(refused.body.error).toContain('allowed kinds for createTransfer: unavailable, pending_review, edge_502, edge_504, drop_after_commit');
        const review = await admin.send('POST', '/faults', { body: { operationId: 'issueCard', kind: 'pending_review', count: 1 } });
        expect(review.status).toBe(400);
        expect(review.body.error).toContain('allowed kinds for issueCard: unavailable, edge_502, edge_504, drop_after_commit, provider_rate_limited');
        for (const [operationId, kind] of [['issueCard', 'provider_rate_limited'], ['createTransfer', 'pending_review'], ['getBankingBalance', 'edge_504'], ['createCheckoutProduct', 'drop_after_commit'], ['getTransfer', 'unavailable']]) {
          const armed = await admin.send('POST', '/faults', { body: { operationId, kind, count: 1, organizationId: org.id } });
          expect(armed.status, `${operationId} ${kind}: ${armed.text}`).toBe(201);
        }
        // Nothing refused was armed.
        const faults = (await admin.req('GET', '/faults')).faults as { organizationId?: string; kind: string; operationId: string }[];
        expect(faults.filter((f) => f.organizationId === org.id).map((f) => `${f.operationId} ${f.kind}`)).not.toContain('createTransfer provider_rate_limited');
      });

      it('a path id that is not valid percent-encoding is a 404 on every admin operation that takes one', async () => {
        const withIds = adminOperations.filter((o) => o.path.includes('{'));
        expect(withIds.length).toBeGreaterThan(5);
        for (const { method, path, operation } of withIds) {
          const reply = await admin.send(method.toUpperCase(), path.replace(/^\/admin/, '').replace(/\{[^}]+\}/g, '%ZZ'), operation.requestBody ? { body: {} } : {});
          expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(404);
          expect(reply.body).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(UUID) });
        }
      });

      it('an oversized body is refused with 413 payload_too_large and the admin error body, on every operation that takes a body', async () => {
        const withBody = adminOperations.filter((o) => o.operation.requestBody);
        expect(withBody.length).toBeGreaterThan(4);
        const { org } = await admin.org();
        for (const { method, path, operation } of withBody) {
          expect(Object.keys(operation.responses as JsonObject), `${path} documents its 413`).toContain('413');
          const concrete = path.replace(/^\/admin/, '').replace('{organizationId}', org.id).replace(/\{[^}]+\}/g, 'x_1');
          const reply = await admin.send(method.toUpperCase(), concrete, { raw: JSON.stringify({ nickname: 'x'.repeat(100_000) }) });
          expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(413);
          expect(reply.body).toEqual({ code: 'payload_too_large', error: expect.any(String), requestId: expect.stringMatching(UUID) });
        }
        expect((await admin.req('GET', '/health')).ok).toBe(true); // and the sandbox goes on
      });
    });

    describe('the default rate limit', () => {
      it('600 requests per 15 minutes per key: the 601st is refused with Retry-After; other keys go on', async () => {
        const limit = (loadSpec() as any)['x-rate-limit'].limit as number;
        const { key } = await admin.org();
        const other = await admin.org();
        const statuses: number[] = [];
        for (let batch = 0; batch < limit / 50; batch++) {
          statuses.push(...(await Promise.all(Array.from({ length: 50 }, () => api('GET', '/v1/banking/balance', { key })))).map((r) => r.status));
        }
        expect(statuses.every((s) => s === 200)).toBe(true);
        const refused = await api('GET', '/v1/banking/balance', { key });
        expectError(refused, 'rate_limit_exceeded');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await api('GET', '/v1/banking/balance', { key: other.key })).status).toBe(200);
      });

      it('over the limit a GET is refused 429 before anything it would be answered otherwise (no such transfer, Banking off), and journaled so', async () => {
        // Counted first (pipeline.ts, run()): over the limit nothing else about the request is told.
        const limit = (loadSpec() as any)['x-rate-limit'].limit as number;
        const { org, key } = await admin.org();
        for (let batch = 0; batch < limit / 50; batch++) {
          const statuses = (await Promise.all(Array.from({ length: 50 }, () => api('GET', '/v1/banking/balance', { key })))).map((r) => r.status);
          expect(statuses.every((s) => s === 200)).toBe(true);
        }
        expectError(await api('GET', '/v1/banking/transfers/trf_missing', { key }), 'rate_limit_exceeded');
        // A fault scheduled for the GET is left for a request within the limit (taking it is a write).
        await admin.fault({ operationId: 'getBankingBalance', kind: 'drop_after_commit', count: 1, organizationId: org.id });
        expectError(await api('GET', '/v1/banking/balance', { key }), 'rate_limit_exceeded');
        await admin.update(org.id, { banking: false });
        expectError(await api('GET', '/v1/banking/balance', { key }), 'rate_limit_exceeded');
        const { entries } = await admin.req('GET', `/organizations/${org.id}/journal`);
        expect(entries.slice(-3).map((e: any) => [e.operationId, e.status, e.code, e.fault])).toEqual([
          ['getTransfer', 429, 'rate_limit_exceeded', null],
          ['getBankingBalance', 429, 'rate_limit_exceeded', null],
          ['getBankingBalance', 429, 'rate_limit_exceeded', null],
        ]);
        const faults = (await admin.req('GET', '/faults')).faults as { organizationId?: string; operationId: string; remaining: number }[];
        expect(faults.filter((f) => f.organizationId === org.id).map((f) => [f.operationId, f.remaining])).toEqual([['getBankingBalance', 1]]);
      });

      it('a request refused after it was counted (403 product off, 400 invalid body) still counts: the 601st is refused', async () => {
        const limit = (loadSpec() as any)['x-rate-limit'].limit as number;
        const { key } = await admin.org({ checkout: false });
        const statuses: number[] = [];
        for (let batch = 0; batch < limit / 50; batch++) {
          const replies = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              i % 2
                ? api('POST', '/v1/checkout/products', { key, idem: unique('product'), body: {} })
                : api('POST', '/v1/banking/transfers', { key, idem: unique('trf'), body: { amount: 'ten' } }),
            ),
          );
          statuses.push(...replies.map((r) => r.status));
        }
        expect(new Set(statuses)).toEqual(new Set([statusOf('api_access_disabled'), statusOf('invalid_request')]));
        expectError(await api('GET', '/v1/banking/balance', { key }), 'rate_limit_exceeded');
      });
    });
  });
}
