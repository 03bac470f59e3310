// Dredd hooks (run inside Dredd's own process, so plain CommonJS): Dredd sends one request per documented
// status of every operation, the request built from the spec's examples. This file makes each of those
// requests mean its status against the sandbox, through the sandbox's public and admin APIs only:
//
//   2xx  the example request, with a fresh Idempotency-Key and the ids of resources created for it
//   400  malformed JSON                         401  no x-api-key
//   403  a key of an organization without the operation's product
//   404  an id that does not exist              409  the conflict the operation documents
//   413  a body over 64 KiB                     422  the PIX test value of an unsupported bank
//   429  a key whose 15-minute budget is spent   502/503/504  a fault scheduled through the admin API
//
// Dredd reads the contract only partly (see test/interop/dredd.test.ts): what it cannot express is skipped
// HERE, with the reason, written to DREDD_SKIPS_FILE so the test can compare it with the documented list.
//
// Environment: SANDBOX_URL, SANDBOX_ADMIN_TOKEN, DREDD_SKIPS_FILE.
const { writeFileSync } = require('node:fs');
const hooks = require('hooks');

const base = process.env.SANDBOX_URL;
const adminToken = process.env.SANDBOX_ADMIN_TOKEN;
const skipsFile = process.env.DREDD_SKIPS_FILE;
const KEY_HEADER = 'x-api-key';
const REQUEST_LIMIT = 600; // the spec's x-rate-limit (checked by the test against the bundle)
const ALL_PRODUCTS = { apiAccess: true, banking: true, cards: true, checkout: true, walletTransfers: true, cardTermsAccepted: true, checkoutPix: true, funding: { BRL: '1000000.00', USD: '1000000.00' } };
const NO_PRODUCTS = { apiAccess: true, banking: false, cards: false, checkout: false };
const NO_CARD_TERMS = { ...ALL_PRODUCTS, cardTermsAccepted: false };

let counter = 0;
const unique = (prefix) => `${prefix}-${process.pid}-${++counter}`;
const state = { keys: {}, seenNames: new Set(), skips: [] };

async function http(method, path, { key, admin, idem, body, raw } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers[KEY_HEADER] = key;
  if (admin) headers.authorization = `Bearer ${adminToken}`;
  if (idem) headers['Idempotency-Key'] = idem;
  const res = await fetch(`${base}${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)), signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (res.status >= 400 && !raw) throw new Error(`setup ${method} ${path} → ${res.status} ${text}`);
  return json;
}

async function organizationKey(flags, { frozenClock = false } = {}) {
  const org = await http('POST', '/admin/organizations', { admin: true, body: flags });
  if (frozenClock) await http('POST', `/admin/organizations/${org.id}/clock/freeze`, { admin: true, body: {} });
  const created = await http('POST', `/admin/organizations/${org.id}/api-keys`, { admin: true, body: {} });
  return created.key;
}

async function pixRecipient(key, pixKey = `${unique('pix')}@example.com`) {
  return http('POST', '/v1/banking/recipients', { key, idem: unique('rcp'), body: { rail: 'brl_pix', nickname: unique('Supplier'), pixKey } });
}

async function transfer(key, idem = unique('trf')) {
  const recipient = await pixRecipient(key);
  const created = await http('POST', '/v1/banking/transfers', { key, idem, body: { recipientId: recipient.id, amount: '150.00' } });
  return { recipient, created, idem };
}

/**
 * A fresh key whose rate-limit budget is spent (every authenticated request counts, whatever it asks). Its
 * organization's test clock is frozen: the 15-minute windows follow the clock, and a run that crossed a quarter
 * hour between spending the budget and the 429 transaction got a fresh window (a 404 instead of the 429).
 */
async function exhaustedKey() {
  const key = await organizationKey(ALL_PRODUCTS, { frozenClock: true });
  let sent = 0;
  const worker = async () => {
    while (sent < REQUEST_LIMIT) {
      sent++;
      await fetch(`${base}/v1/banking/balance`, { headers: { [KEY_HEADER]: key }, signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer());
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return key;
}

const fault = (operationId, kind) => http('POST', '/admin/faults', { admin: true, body: { operationId, kind, count: 1 } });

/** The transaction's operationId, read from the spec Dredd parsed (its origin names the path and summary). */
const OPERATION_BY_ROUTE = {
  'GET /v1/banking/balance': 'getBankingBalance',
  'POST /v1/banking/recipients': 'createRecipient',
  'POST /v1/banking/transfers': 'createTransfer',
  'GET /v1/banking/transfers/{transferId}': 'getTransfer',
  'POST /v1/cards': 'issueCard',
  'POST /v1/checkout/products': 'createCheckoutProduct',
  'POST /v1/checkout/sessions': 'createCheckoutSession',
};

function skip(t, reason) {
  t.skip = true;
  state.skips.push({ name: t.name, reason });
}

const setJson = (t, body) => {
  t.request.body = JSON.stringify(body);
};
const setPath = (t, path) => {
  t.fullPath = path;
  t.request.uri = path;
};

const SETUP = {
  async success(t, op, key) {
    const body = t.request.body ? JSON.parse(t.request.body) : undefined;
    if (op === 'createRecipient') setJson(t, { ...body, nickname: unique('Maria Souza'), pixKey: `${unique('maria')}@example.com` });
    if (op === 'createTransfer') setJson(t, { ...body, recipientId: (await pixRecipient(key)).id });
    if (op === 'getTransfer') setPath(t, `/v1/banking/transfers/${(await transfer(key)).created.id}`);
  },
  async 404(t, op) {
    if (op === 'createTransfer') setJson(t, { ...JSON.parse(t.request.body), recipientId: 'rcp_does_not_exist' });
    if (op === 'getTransfer') setPath(t, '/v1/banking/transfers/trf_does_not_exist');
  },
  async 409(t, op, key) {
    if (op === 'createRecipient') {
      // The same nickname as an active recipient, under a new key: recipient_nickname_already_exists.
      const first = await pixRecipient(key);
      setJson(t, { rail: 'brl_pix', nickname: first.nickname, pixKey: `${unique('other')}@example.com` });
    } else if (op === 'createTransfer') {
      // The key of an earlier transfer with another amount: banking_transfer_idempotency_conflict.
      const earlier = await transfer(key);
      t.request.headers['Idempotency-Key'] = earlier.idem;
      setJson(t, { recipientId: earlier.recipient.id, amount: '151.00' });
    } else if (op === 'issueCard') {
      t.request.headers[KEY_HEADER] = await organizationKey(NO_CARD_TERMS); // authorized_user_terms_required
    }
  },
  async 422(t, op, key) {
    if (op === 'createTransfer') {
      const recipient = await pixRecipient(key, 'coop@unsupported-bank.test'); // pix_recipient_bank_not_supported
      setJson(t, { recipientId: recipient.id, amount: '150.00' });
    }
  },
};

hooks.beforeAll((transactions, done) => {
  (async () => {
    state.keys.full = await organizationKey(ALL_PRODUCTS);
    state.keys.none = await organizationKey(NO_PRODUCTS);
  })().then(() => done(), (err) => {
    hooks.log(`setup failed: ${err.stack}`);
    done(err);
  });
});

hooks.beforeEach((t, done) => {
  (async () => {
    const op = OPERATION_BY_ROUTE[`${t.request.method} ${t.origin.resourceName}`];
    if (!op) return skip(t, `no operation ${t.request.method} ${t.origin.resourceName} in the hooks' table`);
    if (state.seenNames.has(t.name)) {
      return skip(t, 'Dredd gives the 502 and 504 responses one name and one expected status (504) because they share one $ref (EdgeNoJsonBody): the 502 cannot be addressed, only the 504 is tested');
    }
    state.seenNames.add(t.name);
    t.skip = false; // Dredd skips non-2xx responses unless a hook asks for them
    const status = Number(t.expected.statusCode);
    const key = state.keys.full;
    t.request.headers[KEY_HEADER] = key;
    if (t.request.method === 'POST') t.request.headers['Idempotency-Key'] = unique('dredd');
    if (status >= 200 && status < 300) return SETUP.success(t, op, key);
    switch (status) {
      case 400:
        t.request.body = '{"malformed": '; // invalid_request
        return;
      case 401:
        delete t.request.headers[KEY_HEADER];
        return;
      case 403:
        t.request.headers[KEY_HEADER] = state.keys.none;
        return;
      case 404:
      case 409:
      case 422:
        return SETUP[status](t, op, key);
      case 413:
        setJson(t, { padding: 'x'.repeat(70 * 1024) });
        return;
      case 429:
        t.request.headers[KEY_HEADER] = await exhaustedKey();
        return;
      case 502:
      case 504:
        return fault(op, `edge_${status}`);
      case 503:
        return fault(op, op === 'issueCard' ? 'provider_rate_limited' : 'unavailable');
      default:
        return skip(t, `no setup for status ${status}`);
    }
  })().then(() => done(), (err) => {
    t.fail = `hook setup failed: ${err.message}`;
    done();
  });
});

hooks.afterAll((transactions, done) => {
  if (skipsFile) writeFileSync(skipsFile, JSON.stringify(state.skips, null, 2));
  done();
});
