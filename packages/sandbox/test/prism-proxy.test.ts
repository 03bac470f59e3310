// The sandbox validated from outside: scenario traffic (every success and every documented error code)
// goes through `prism proxy <spec> <sandbox> --errors`, which answers 500 (or flags `sl-violations`) when a
// response breaks the contract. Requests Prism itself refuses as invalid (it does not forward them) are the
// 400s of schema-invalid bodies: for those the sandbox's reply is checked directly with Ajv against the
// operation's declared response. Every code of the catalog must be produced by one path or the other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator, deref, errorCatalog, isObject, loadSpec, operations, type JsonObject } from '@payments/spec';
import { startPrism, type PrismServer } from '../../../tools/lib/prism.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { testValue } from '../src/test-values.ts';
import { adminOf, call, type Reply } from './support.ts';

const doc = loadSpec();
const validator = createValidator(doc);
const catalog = errorCatalog(doc);
let sandbox: RunningSandbox;
let prism: PrismServer;
let admin: ReturnType<typeof adminOf>;
const seen = new Map<string, 'proxy' | 'direct'>();
let n = 0;
const idem = (p = 'scenario') => `${p}-${++n}-${Date.now()}`;

beforeAll(async () => {
  sandbox = await startSandbox({});
  prism = await startPrism({ mode: { proxy: sandbox.url }, errors: true });
  admin = adminOf(sandbox);
});
afterAll(async () => {
  await prism?.stop();
  await sandbox?.close();
});

function violations(reply: Reply): string | undefined {
  const header = reply.headers.get('sl-violations');
  if (header) return header;
  if (reply.status === 500 && /VIOLATIONS|violation/i.test(reply.text)) return reply.text;
  return undefined;
}

/** Through Prism's validating proxy: no violation, the expected status, and the code recorded as covered. */
async function viaProxy(method: string, path: string, opts: Parameters<typeof call>[3], expected: number | string): Promise<Reply> {
  const reply = await call(prism.url, method, path, opts);
  expect(violations(reply), `${method} ${path}: ${reply.text}`).toBeUndefined();
  if (typeof expected === 'number') expect(reply.status, reply.text).toBe(expected);
  else {
    expect(reply.body?.code, reply.text).toBe(expected);
    seen.set(expected, 'proxy');
  }
  return reply;
}

/** Sent to the sandbox directly (Prism would refuse the request itself); the reply checked against the spec. */
async function direct(method: string, path: string, opts: Parameters<typeof call>[3], code: string): Promise<void> {
  const reply = await call(sandbox.url, method, path, opts);
  const op = operations(doc).find((o) => o.method === method.toLowerCase() && new RegExp(`^${o.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))!;
  const response = deref(doc, (op.operation.responses as JsonObject)[String(reply.status)] ?? null);
  expect(isObject(response), `${op.operationId} does not declare ${reply.status}`).toBe(true);
  const schema = ((response as JsonObject).content as JsonObject)['application/json'] as JsonObject;
  const validate = validator.compile(schema.schema as JsonObject);
  expect(validate(reply.body), JSON.stringify(validate.errors)).toBe(true);
  expect(reply.body.code).toBe(code);
  seen.set(code, 'direct');
}

describe('sandbox traffic through prism proxy --errors', () => {
  it('every success and every documented error, with zero violations', async () => {
    const { org, key } = await admin.org({ funding: { BRL: '1000000.00', USD: '1000.00' } });
    const k = { key };

    // Successes
    await viaProxy('GET', '/v1/banking/balance', k, 200);
    const pix = (await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'brl_pix', nickname: 'Ana', pixKey: 'ana@example.com' } }, 201)).body;
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_ach', nickname: 'Acme' } }, 201);
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_wire', nickname: 'Wire', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7' } }, 201);
    const created = (await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: pix.id, amount: '150.00' } }, 201)).body;
    await viaProxy('GET', `/v1/banking/transfers/${created.id}`, k, 200);
    await admin.update(org.id, { cardTermsAccepted: true, checkoutPix: true });
    await viaProxy('POST', '/v1/cards', { ...k, idem: idem(), body: {} }, 201);
    await viaProxy('POST', '/v1/checkout/products', { ...k, idem: idem('product'), body: { name: 'Mug' } }, 201);
    await viaProxy('POST', '/v1/checkout/sessions', { ...k, idem: idem('session'), body: { amount: 37.45, paymentMethod: 'pix' } }, 201);
    await viaProxy('POST', '/v1/checkout/sessions', { ...k, idem: idem('session'), body: { discountPercent: 10 } }, 201);

    // Authentication and access
    await viaProxy('GET', '/v1/banking/balance', { key: `svc_live_${'0'.repeat(32)}` }, 'invalid_api_key');
    const off = await admin.org({ banking: false, cards: false, checkout: false });
    await viaProxy('GET', '/v1/banking/balance', { key: off.key }, 'banking_api_access_not_enabled');
    await viaProxy('POST', '/v1/cards', { key: off.key, idem: idem(), body: {} }, 'cards_api_access_not_enabled');
    await viaProxy('POST', '/v1/checkout/products', { key: off.key, idem: idem('product'), body: {} }, 'api_access_disabled');
    const wallet = await admin.req('POST', `/organizations/${org.id}/wallet-recipients`, { nickname: 'Cold', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7' });
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: wallet.id, amount: 1 } }, 'wallet_transfers_not_enabled');
    await admin.update(org.id, { walletTransfers: true });
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: wallet.id, amount: 1 } }, 'wallet_recipient_required');

    // Recipients
    const badChecksum = '0x52908400098527886e0F7030069857D2E4169EE7';
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_wire', nickname: 'Bad', destinationAddress: badChecksum } }, 'invalid_destination_address');
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_ach', nickname: 'Ana' } }, 'recipient_nickname_already_exists');
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'brl_pix', nickname: 'Ana 2', pixKey: 'ana@example.com' } }, 'recipient_already_exists');
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_ach', nickname: testValue('recipient_partner_sync_failed').value } }, 'recipient_partner_sync_failed');

    // Transfers
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: 'rcp_missing', amount: 1 } }, 'recipient_not_found');
    const coop = (await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'brl_pix', nickname: 'Coop', pixKey: testValue('pix_recipient_bank_not_supported').value } }, 201)).body;
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: coop.id, amount: 10 } }, 'pix_recipient_bank_not_supported');
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: pix.id, amount: testValue('pix_quote_rejected').value } }, 'pix_quote_rejected');
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: pix.id, amount: testValue('pix_payout_rejected').value } }, 'pix_payout_rejected');
    const same = idem();
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: same, body: { recipientId: pix.id, amount: '2.00' } }, 201);
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: same, body: { recipientId: pix.id, amount: '3.00' } }, 'banking_transfer_idempotency_conflict');
    await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: org.id });
    const unresolved = idem();
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: unresolved, body: { recipientId: pix.id, amount: '4.00' } }, 'temporarily_unavailable');
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: unresolved, body: { recipientId: pix.id, amount: '4.00' } }, 201);
    await admin.fault({ operationId: 'createTransfer', kind: 'pending_review', count: 1, organizationId: org.id });
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: pix.id, amount: '5.00' } }, 'banking_transfer_attempt_pending_review');
    await viaProxy('GET', '/v1/banking/transfers/trf_missing', k, 'banking_transfer_not_found');
    for (const operationId of ['getBankingBalance', 'getTransfer', 'createRecipient', 'issueCard', 'createCheckoutProduct']) {
      await admin.fault({ operationId, kind: 'unavailable', count: 1, organizationId: org.id });
    }
    await viaProxy('GET', '/v1/banking/balance', k, 'temporarily_unavailable');
    await viaProxy('GET', `/v1/banking/transfers/${created.id}`, k, 'temporarily_unavailable');
    await viaProxy('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usd_ach', nickname: 'Later' } }, 'temporarily_unavailable');
    await viaProxy('POST', '/v1/cards', { ...k, idem: idem(), body: {} }, 'temporarily_unavailable');
    await viaProxy('POST', '/v1/checkout/products', { ...k, idem: idem('product'), body: {} }, 'temporarily_unavailable');

    // Edge responses without a JSON body
    await admin.fault({ operationId: 'createTransfer', kind: 'edge_502', count: 1, organizationId: org.id });
    await viaProxy('POST', '/v1/banking/transfers', { ...k, idem: idem(), body: { recipientId: pix.id, amount: '1.00' } }, 502);
    await admin.fault({ operationId: 'getBankingBalance', kind: 'edge_504', count: 1, organizationId: org.id });
    await viaProxy('GET', '/v1/banking/balance', k, 504);

    // Cards and checkout
    const cardsOrg = await admin.org();
    await viaProxy('POST', '/v1/cards', { key: cardsOrg.key, idem: idem(), body: {} }, 'authorized_user_terms_required');
    await admin.fault({ operationId: 'issueCard', kind: 'provider_rate_limited', count: 1, organizationId: org.id, retryAfterSeconds: 2 });
    const limited = await viaProxy('POST', '/v1/cards', { ...k, idem: idem(), body: {} }, 'provider_rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    const noPix = await admin.org();
    await viaProxy('POST', '/v1/checkout/sessions', { key: noPix.key, idem: idem('session'), body: { amount: '5.00', paymentMethod: 'pix' } }, 'checkout_pix_not_available');
    await admin.fault({ operationId: 'createCheckoutSession', kind: 'unavailable', count: 1, organizationId: org.id });
    await viaProxy('POST', '/v1/checkout/sessions', { ...k, idem: idem('session'), body: { discountPercent: 5 } }, 'temporarily_unavailable');

    // Limits
    await viaProxy('POST', '/v1/checkout/products', { ...k, idem: idem('product'), body: { blob: 'x'.repeat(100_000) } }, 'payload_too_large');
    const cardLimit = ((doc.paths['/v1/cards'] as JsonObject).post as JsonObject)['x-rate-limit'] as JsonObject;
    const busy = await admin.org({ cardTermsAccepted: true });
    for (let i = 0; i < Number(cardLimit.limit); i++) await call(sandbox.url, 'POST', '/v1/cards', { key: busy.key, idem: idem(), body: {} });
    const refused = await viaProxy('POST', '/v1/cards', { key: busy.key, idem: idem(), body: {} }, 'rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Refused by Prism before forwarding (schema-invalid bodies): checked directly against the spec.
    await direct('POST', '/v1/banking/recipients', { ...k, idem: idem(), body: { rail: 'usdc_wallet', nickname: 'W' } }, 'recipient_rail_unsupported');
    await direct('POST', '/v1/checkout/sessions', { ...k, idem: idem('session'), body: { amount: '37.456' } }, 'invalid_checkout_session_amount');
    await direct('POST', '/v1/checkout/sessions', { ...k, idem: idem('session'), body: { amount: '1.00', discountPercent: 5 } }, 'checkout_session_pricing_conflict');
    await direct('POST', '/v1/banking/transfers', { ...k, body: { recipientId: pix.id, amount: 1 } }, 'invalid_request');

    const missing = [...new Set(catalog.map((e) => e.code))].filter((code) => !seen.has(code));
    expect(missing, 'documented codes no scenario produced').toEqual([]);
    expect([...seen.values()].filter((v) => v === 'proxy').length).toBeGreaterThan(20);
  }, 120_000);
});
