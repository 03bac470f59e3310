// The mutants: the sandbox with ONE realistic defect each, across statuses, schemas, content types, headers,
// error bodies and codes, idempotency, auth, CORS, concurrency, isolation, chaining and provider states. Each
// is a small named function of the proxy (proxy.ts) in front of the real sandbox; the table of the mutation
// score is this list. `visible: { no }` marks a defect the spec cannot show (it only assumes the thing): it is
// run and reported, and left out of the score.
import type { Mutant, Req, Res } from './proxy.ts';

const RECIPIENTS = /^\/v1\/banking\/recipients(\?|$)/;
const TRANSFERS = /^\/v1\/banking\/transfers(\?|$)/;
const TRANSFER = /^\/v1\/banking\/transfers\/[^/?]+/;
const BALANCE = /^\/v1\/banking\/balance/;
const CARDS = /^\/v1\/cards/;
const PRODUCTS = /^\/v1\/checkout\/products/;
const SESSIONS = /^\/v1\/checkout\/sessions/;

export const is = (req: Req, method: string, path: RegExp) => req.method === method && path.test(req.path);
export const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const withJson = (res: Res, change: (body: any) => any): Res => {
  const body = parse(res.body);
  if (body === undefined || body === null || typeof body !== 'object') return res;
  return { ...res, body: JSON.stringify(change(body)) };
};
const codeOf = (res: Res): string | undefined => parse(res.body)?.code;
const reqJson = (req: Req, change: (body: any) => any): Req => {
  const body = parse(req.body);
  if (body === undefined || body === null || typeof body !== 'object') return req;
  return { ...req, body: JSON.stringify(change(body)) };
};
/** Remembers the last key the sandbox accepted (what a key-mixing bug would fall back to). */
const rememberKey = (res: Res, req: Req, memory: Map<string, unknown>): Res => {
  if (res.status < 300 && req.headers['x-api-key']) memory.set('key', req.headers['x-api-key']);
  return res;
};

export const MUTANTS: Mutant[] = [
  // statuses
  {
    name: 'transfer-created-200',
    caughtBy: ['valid', 'coverage'],
    defect: 'POST /v1/banking/transfers answers 200 instead of the documented 201',
    visible: true,
    response: (res, req) => (is(req, 'POST', TRANSFERS) && res.status === 201 ? { ...res, status: 200 } : res),
  },
  {
    name: 'transfer-not-found-410',
    caughtBy: ['valid'],
    defect: 'an unknown transfer id gets 410 instead of 404',
    visible: true,
    response: (res, req) => (is(req, 'GET', TRANSFER) && res.status === 404 ? { ...res, status: 410 } : res),
  },
  {
    name: 'recipient-created-200',
    defect: 'POST /v1/banking/recipients answers 200 instead of 201',
    visible: { no: 'the 201 of recipient creation is x-assumed (the provider does not state it): another 2xx is a warning' },
    response: (res, req) => (is(req, 'POST', RECIPIENTS) && res.status === 201 ? { ...res, status: 200 } : res),
  },
  {
    name: 'invalid-input-500',
    caughtBy: ['invalid', 'coverage'],
    defect: 'invalid recipient input gets a 500 instead of a 400',
    visible: true,
    response: (res, req) => (is(req, 'POST', RECIPIENTS) && res.status === 400 ? { ...res, status: 500 } : res),
  },
  {
    name: 'malformed-json-500',
    caughtBy: ['invalid', 'coverage'],
    defect: 'a malformed JSON body on card issuance gets a 500',
    visible: true,
    response: (res, req) => (is(req, 'POST', CARDS) && res.status === 400 && parse(req.body) === undefined && req.body !== '' ? { ...res, status: 500 } : res),
  },
  // schemas
  {
    name: 'transfer-status-outside-enum',
    caughtBy: ['valid', 'coverage', 'resource-chain'],
    defect: 'a transfer status "processing", outside the documented pending/completed/failed/cancelled',
    visible: true,
    response: (res, req) => (is(req, 'POST', TRANSFERS) && res.status === 201 ? withJson(res, (b) => ({ ...b, status: 'processing' })) : res),
  },
  {
    name: 'recipient-without-nickname',
    caughtBy: ['valid', 'coverage'],
    defect: 'a created recipient is answered without its nickname',
    visible: true,
    response: (res, req) => (is(req, 'POST', RECIPIENTS) && res.status === 201 ? withJson(res, ({ nickname: _n, ...rest }) => rest) : res),
  },
  {
    name: 'lookup-drops-id',
    caughtBy: ['resource-chain'],
    defect: 'GET /v1/banking/transfers/{id} answers the transfer without its id',
    visible: true,
    response: (res, req) => (is(req, 'GET', TRANSFER) && res.status === 200 ? withJson(res, ({ id: _i, ...rest }) => rest) : res),
  },
  {
    name: 'lookup-other-amount',
    caughtBy: ['resource-chain'],
    defect: 'the transfer lookup shows another amount than the one created',
    visible: true,
    response: (res, req) => (is(req, 'GET', TRANSFER) && res.status === 200 ? withJson(res, (b) => ({ ...b, amount: '999.99' })) : res),
  },
  {
    name: 'transfer-amount-3-decimals',
    caughtBy: ['valid', 'coverage', 'resource-chain'],
    defect: 'the created transfer echoes its amount with three decimals',
    visible: true,
    response: (res, req) => (is(req, 'POST', TRANSFERS) && res.status === 201 ? withJson(res, (b) => ({ ...b, amount: '10.005' })) : res),
  },
  {
    name: 'balance-not-a-list',
    defect: 'the balance body is a bare number',
    visible: { no: 'the balance body is x-assumed as a whole (the provider does not show it): a mismatch is a warning' },
    response: (res, req) => (is(req, 'GET', BALANCE) && res.status === 200 ? { ...res, body: '42' } : res),
  },
  {
    name: 'card-id-number',
    defect: "an issued card's id is a JSON number",
    visible: { no: 'the format of ids is x-assumed (the provider gives none): a numeric id is a warning' },
    response: (res, req) => (is(req, 'POST', CARDS) && res.status === 201 ? withJson(res, (b) => ({ ...b, id: 4242 })) : res),
  },
  // content types
  {
    name: 'product-text-plain',
    caughtBy: ['valid', 'coverage'],
    defect: 'a created checkout product is served as text/plain',
    visible: true,
    response: (res, req) => (is(req, 'POST', PRODUCTS) && res.status === 201 ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' } } : res),
  },
  {
    name: 'unauthorized-html',
    caughtBy: ['auth-no-key'],
    defect: 'the 401 body is HTML',
    visible: true,
    response: (res) => (res.status === 401 ? { ...res, headers: { ...res.headers, 'content-type': 'text/html' }, body: '<h1>Unauthorized</h1>' } : res),
  },
  // error bodies and codes
  {
    name: 'error-without-request-id',
    caughtBy: ['invalid', 'coverage', 'auth-no-key'],
    defect: 'error bodies lack requestId',
    visible: true,
    response: (res) => (res.status >= 400 && res.status < 500 ? withJson(res, ({ requestId: _r, ...rest }) => rest) : res),
  },
  {
    name: 'checkout-amount-code-generic',
    caughtBy: ['coverage'],
    defect: 'a bad checkout amount is answered invalid_request instead of invalid_checkout_session_amount',
    visible: true,
    response: (res) => (codeOf(res) === 'invalid_checkout_session_amount' ? withJson(res, (b) => ({ ...b, code: 'invalid_request' })) : res),
  },
  {
    name: 'pricing-conflict-code-generic',
    caughtBy: ['coverage', 'invalid'],
    defect: 'amount with discountPercent is answered invalid_request instead of checkout_session_pricing_conflict',
    visible: true,
    response: (res, req) => {
      const body = parse(req.body);
      const both = typeof body === 'object' && body !== null && 'amount' in body && 'discountPercent' in body;
      return is(req, 'POST', SESSIONS) && codeOf(res) === 'checkout_session_pricing_conflict' && both ? withJson(res, (b) => ({ ...b, code: 'invalid_request' })) : res;
    },
  },
  {
    name: 'recipient-not-found-400',
    caughtBy: ['valid', 'coverage'],
    defect: 'recipient_not_found answered at 400 instead of 404',
    visible: true,
    response: (res) => (res.status === 404 && codeOf(res) === 'recipient_not_found' ? { ...res, status: 400 } : res),
  },
  {
    name: 'rail-unsupported-generic',
    caughtBy: ['coverage'],
    defect: 'an unsupported rail is answered invalid_request instead of recipient_rail_unsupported',
    visible: true,
    response: (res, req) => (is(req, 'POST', RECIPIENTS) && codeOf(res) === 'recipient_rail_unsupported' && typeof parse(req.body)?.rail === 'string' ? withJson(res, (b) => ({ ...b, code: 'invalid_request' })) : res),
  },
  // single-field validation bugs
  {
    name: 'amount-3-decimals-accepted',
    caughtBy: ['coverage'],
    defect: 'a transfer amount with three decimals is rounded and accepted',
    visible: true,
    request: (req) =>
      is(req, 'POST', TRANSFERS)
        ? reqJson(req, (b) => (/\.\d{3,}$/.test(String(b.amount)) ? { ...b, amount: Number(b.amount).toFixed(2) } : b))
        : req,
  },
  {
    name: 'pix-without-key-accepted',
    // The invalid check itself, on every seed (issue 27: it had reached the rule only through a nickname collision of coverage's).
    caughtBy: ['invalid'],
    defect: 'a PIX recipient without its PIX key is accepted',
    visible: true,
    request: (req) => (is(req, 'POST', RECIPIENTS) ? reqJson(req, (b) => (b.rail === 'brl_pix' && !('pixKey' in b) ? { ...b, pixKey: `mutant-${crypto.randomUUID()}@example.com` } : b)) : req),
  },
  {
    name: 'checkout-key-too-long-accepted',
    caughtBy: ['coverage'],
    defect: 'a checkout Idempotency-Key over its documented 200 characters is accepted (cut to 200)',
    visible: true,
    request: (req) => (is(req, 'POST', SESSIONS) && (req.headers['idempotency-key']?.length ?? 0) > 200 ? { ...req, headers: { ...req.headers, 'idempotency-key': req.headers['idempotency-key']!.slice(0, 200) } } : req),
  },
  {
    name: 'nickname-too-long-accepted',
    defect: 'a nickname over 100 characters is cut and accepted',
    visible: { no: 'the nickname bounds are x-assumed (the provider gives none): accepting a longer one is a warning' },
    request: (req) => (is(req, 'POST', RECIPIENTS) ? reqJson(req, (b) => (typeof b.nickname === 'string' && b.nickname.length > 100 ? { ...b, nickname: b.nickname.slice(0, 100) } : b)) : req),
  },
  {
    name: 'nickname-limit-50',
    defect: 'nicknames over 50 characters are refused (400 invalid_request): a stricter bound than the spec assumes',
    visible: { no: 'the nickname bounds are x-assumed (the provider gives none): refusing one within them is a warning' },
    response: (res, req) =>
      is(req, 'POST', RECIPIENTS) && res.status === 201 && String(parse(req.body)?.nickname ?? '').length > 50
        ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Nickname too long.', code: 'invalid_request', requestId: crypto.randomUUID() }) }
        : res,
  },
  // idempotency
  {
    name: 'missing-key-accepted',
    caughtBy: ['coverage', 'invalid'],
    defect: 'a checkout product without an Idempotency-Key is created',
    visible: true,
    request: (req) => (is(req, 'POST', PRODUCTS) && !req.headers['idempotency-key'] ? { ...req, headers: { ...req.headers, 'idempotency-key': `mutant-${crypto.randomUUID()}` } } : req),
  },
  {
    name: 'replay-new-resource',
    caughtBy: ['idempotent-replay', 'concurrent-key'],
    defect: 'a replayed card issuance creates a new card (the key is not looked up)',
    visible: true,
    request: (req) => (is(req, 'POST', CARDS) && req.headers['idempotency-key'] ? { ...req, headers: { ...req.headers, 'idempotency-key': `${req.headers['idempotency-key'].slice(0, 200)}-${crypto.randomUUID()}` } } : req),
  },
  {
    name: 'conflict-ignored',
    caughtBy: ['idempotency-conflict'],
    defect: 'a transfer key reused with another amount replays the original instead of 409',
    visible: true,
    request: (req, env) => {
      if (!is(req, 'POST', TRANSFERS) || !req.headers['idempotency-key']) return req;
      const slot = `first:${req.headers['idempotency-key']}`;
      const first = env.memory.get(slot) as string | undefined;
      if (first === undefined) env.memory.set(slot, req.body);
      return first === undefined ? req : { ...req, body: first };
    },
  },
  {
    name: 'concurrent-two-resources',
    caughtBy: ['concurrent-key'],
    defect: 'two requests with one key in flight at once make two checkout products',
    visible: true,
    // The key's lookup misses while another request with it is in flight (until the sandbox has answered it).
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', PRODUCTS) || !key) return env.forward(req);
      const slot = `inflight:${key}`;
      const busy = env.memory.get(slot) === true;
      if (busy) return env.forward({ ...req, headers: { ...req.headers, 'idempotency-key': `${key}-${crypto.randomUUID()}`.slice(0, 255) } });
      env.memory.set(slot, true);
      try {
        return await env.forward(req);
      } finally {
        env.memory.delete(slot);
      }
    },
  },
  // auth
  {
    name: 'no-key-accepted',
    caughtBy: ['auth-no-key'],
    defect: 'card issuance without x-api-key is served with the last key seen',
    visible: true,
    request: (req, env) => (is(req, 'POST', CARDS) && !req.headers['x-api-key'] && !req.headers.authorization && env.memory.has('key') ? { ...req, headers: { ...req.headers, 'x-api-key': env.memory.get('key') as string } } : req),
    response: (res, req, env) => rememberKey(res, req, env.memory),
  },
  {
    name: 'bearer-accepted',
    caughtBy: ['auth-bearer'],
    defect: 'the key is also read from Authorization: Bearer',
    visible: true,
    request: (req) => (!req.headers['x-api-key'] && req.headers.authorization?.startsWith('Bearer ') && req.path.startsWith('/v1/') ? { ...req, headers: { ...req.headers, 'x-api-key': req.headers.authorization.slice(7) } } : req),
  },
  {
    name: 'unknown-key-accepted',
    caughtBy: ['auth-unknown-key', 'auth-revoked-key'],
    defect: 'a well-formed unknown or revoked key falls back to the last key seen',
    visible: true,
    handle: async (req, env) => {
      const res = rememberKey(await env.forward(req), req, env.memory);
      if (res.status !== 401 || !req.headers['x-api-key']?.startsWith('svc_live_') || !env.memory.has('key')) return res;
      return env.forward({ ...req, headers: { ...req.headers, 'x-api-key': env.memory.get('key') as string } });
    },
  },
  // CORS
  {
    name: 'cors-allow-origin',
    caughtBy: ['cors'],
    defect: 'every answer carries Access-Control-Allow-Origin: *',
    visible: true,
    response: (res) => ({ ...res, headers: { ...res.headers, 'access-control-allow-origin': '*' } }),
  },
  {
    name: 'cors-preflight-granted',
    caughtBy: ['cors'],
    defect: 'a preflight is granted (OPTIONS → 204 with allow-origin/methods)',
    visible: true,
    handle: async (req, env) =>
      req.method === 'OPTIONS' && req.headers.origin
        ? { status: 204, headers: { 'access-control-allow-origin': req.headers.origin, 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'x-api-key, idempotency-key, content-type' }, body: '' }
        : env.forward(req),
  },
  // isolation and chaining
  {
    name: 'foreign-transfer-visible',
    caughtBy: ['isolation'],
    defect: "a transfer lookup shows another organization's transfer",
    visible: true,
    handle: async (req, env) => {
      const res = await env.forward(req);
      if (is(req, 'POST', TRANSFERS) && res.status === 201) env.memory.set(`owner:${parse(res.body)?.id}`, req.headers['x-api-key']);
      if (!is(req, 'GET', TRANSFER) || res.status !== 404) return res;
      const owner = env.memory.get(`owner:${decodeURIComponent(req.path.split('/')[4]!.split('?')[0]!)}`) as string | undefined;
      return owner ? env.forward({ ...req, headers: { ...req.headers, 'x-api-key': owner } }) : res;
    },
  },
  {
    name: 'recipient-id-unusable',
    caughtBy: ['resource-chain'],
    defect: 'the recipient id answered on creation is not the one transfers accept',
    visible: true,
    response: (res, req) => (is(req, 'POST', RECIPIENTS) && res.status === 201 ? withJson(res, (b) => ({ ...b, id: `r${String(b.id).slice(1)}x`.slice(0, 64) })) : res),
  },
  // headers and provider states (reached through the admin API's faults)
  {
    name: 'rate-limited-no-retry-after',
    caughtBy: ['faults'],
    defect: '503 provider_rate_limited without its Retry-After',
    visible: true,
    response: (res) => (codeOf(res) === 'provider_rate_limited' ? { ...res, headers: Object.fromEntries(Object.entries(res.headers).filter(([k]) => k !== 'retry-after')) } : res),
  },
  {
    name: 'retry-after-fraction',
    caughtBy: ['faults'],
    defect: 'Retry-After: 1.5 (not an integer of seconds)',
    visible: true,
    response: (res) => (res.headers['retry-after'] ? { ...res, headers: { ...res.headers, 'retry-after': '1.5' } } : res),
  },
  {
    name: 'edge-502-json',
    caughtBy: ['faults'],
    defect: "the edge's 502 carries a JSON error body",
    visible: true,
    response: (res) => (res.status === 502 ? { ...res, headers: { ...res.headers, 'content-type': 'application/json' }, body: '{"error":"bad gateway","code":"bad_gateway","requestId":"r"}' } : res),
  },
  {
    name: 'pending-review-as-503',
    caughtBy: ['faults'],
    defect: 'a transfer under review is answered 503 temporarily_unavailable instead of 409 banking_transfer_attempt_pending_review',
    visible: true,
    response: (res) => (codeOf(res) === 'banking_transfer_attempt_pending_review' ? withJson({ ...res, status: 503 }, (b) => ({ ...b, code: 'temporarily_unavailable' })) : res),
  },
  {
    name: 'unavailable-retry-refused',
    caughtBy: ['faults'],
    defect: 'after a temporary 503 the retry with the same key is answered 503 again (the attempt never resolves)',
    visible: true,
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (key && env.memory.has(`503:${key}`)) return { status: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Temporarily unavailable.', code: 'temporarily_unavailable', requestId: crypto.randomUUID() }) };
      const res = await env.forward(req);
      if (key && res.status === 503 && codeOf(res) === 'temporarily_unavailable') env.memory.set(`503:${key}`, true);
      return res;
    },
  },
  // more validation, auth and availability bugs
  {
    name: 'valid-number-amount-rejected',
    caughtBy: ['valid', 'coverage'],
    defect: 'a valid transfer amount sent as a JSON number is rejected as 400 invalid_request',
    visible: true,
    response: (res, req) => (is(req, 'POST', TRANSFERS) && typeof parse(req.body)?.amount === 'number' && res.status === 201 ? { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Invalid amount.', code: 'invalid_request', requestId: crypto.randomUUID() }) } : res),
  },
  {
    name: 'malformed-key-accepted',
    caughtBy: ['auth-malformed-key'],
    defect: 'an x-api-key that is not shaped like a key falls back to the last key seen',
    visible: true,
    request: (req, env) => (req.headers['x-api-key'] && !req.headers['x-api-key'].startsWith('svc_live_') && env.memory.has('key') ? { ...req, headers: { ...req.headers, 'x-api-key': env.memory.get('key') as string } } : req),
    response: (res, req, env) => rememberKey(res, req, env.memory),
  },
  {
    name: 'lookup-500',
    caughtBy: ['valid'],
    defect: 'an unknown transfer id gets an undocumented 500',
    visible: true,
    response: (res, req) => (is(req, 'GET', TRANSFER) && res.status === 404 ? { ...res, status: 500 } : res),
  },
  // Issue 27: defects found by checks written independently of this list, and honest servers the kit failed.
  {
    name: 'bad-key-403',
    defect: 'a missing, malformed, unknown or revoked key gets 403 invalid_api_key instead of 401',
    visible: { no: 'the 401 and invalid_api_key for a bad key are x-assumed (the provider shows neither): 403 is a warning naming the assumption' },
    response: (res) => (res.status === 401 && codeOf(res) === 'invalid_api_key' ? { ...res, status: 403 } : res),
  },
  {
    name: 'validation-code-renamed',
    defect: 'the generic validation code is validation_error instead of invalid_request',
    visible: { no: 'invalid_request as the generic validation code is x-assumed (the provider names none): another code is a warning naming the assumption' },
    response: (res) => (codeOf(res) === 'invalid_request' ? withJson(res, (b) => ({ ...b, code: 'validation_error' })) : res),
  },
  {
    name: 'occasional-503',
    defect: 'a correct server with occasional documented 503 temporarily_unavailable answers (every 9th POST of the public API, nothing processed)',
    visible: { no: 'a documented temporary 503 is inconclusive in every check (a warning): the probe sends the same request again, so the run passes without --allow-skips' },
    warnsInconclusive: true,
    handle: async (req, env) => {
      const n = ((env.memory.get('posts') as number | undefined) ?? 0) + (req.method === 'POST' && req.path.startsWith('/v1/') ? 1 : 0);
      env.memory.set('posts', n);
      if (req.method === 'POST' && req.path.startsWith('/v1/') && n % 9 === 0) {
        return { status: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Temporarily unavailable.', code: 'temporarily_unavailable', requestId: crypto.randomUUID() }) };
      }
      return env.forward(req);
    },
  },
  {
    name: 'deactivated-recipient-accepted',
    caughtBy: ['organization-states'],
    defect: 'a transfer to a deactivated (non-wallet) recipient is accepted (the recipient is looked up without its active flag)',
    visible: true,
    handle: async (req, env) => {
      const deactivate = /^\/admin\/organizations\/([^/]+)\/recipients\/([^/]+)\/deactivate$/.exec(req.path);
      if (req.method === 'POST' && deactivate) env.memory.set(`inactive:${deactivate[2]}`, { org: deactivate[1], auth: req.headers.authorization });
      const recipient = is(req, 'POST', TRANSFERS) ? parse(req.body)?.recipientId : undefined;
      const inactive = typeof recipient === 'string' ? (env.memory.get(`inactive:${recipient}`) as { org: string; auth: string } | undefined) : undefined;
      if (!inactive) return env.forward(req);
      // As if the lookup ignored `active`: the transfer is made while the recipient is (briefly) active again.
      const admin = (verb: string) => env.forward({ method: 'POST', path: `/admin/organizations/${inactive.org}/recipients/${recipient}/${verb}`, headers: { authorization: inactive.auth }, body: '' });
      await admin('activate');
      try {
        return await env.forward(req);
      } finally {
        await admin('deactivate');
      }
    },
  },
  {
    name: 'conflict-other-recipient-ignored',
    caughtBy: ['idempotency-conflict'],
    defect: 'a transfer key reused with another recipient (same amount) replays the original instead of 409',
    visible: true,
    request: (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', TRANSFERS) || !key) return req;
      const first = env.memory.get(`recipient:${key}`) as string | undefined;
      const body = parse(req.body);
      if (first === undefined) env.memory.set(`recipient:${key}`, body?.recipientId);
      return first === undefined ? req : reqJson(req, (b) => ({ ...b, recipientId: first }));
    },
  },
  {
    name: 'session-key-new-on-other-method',
    caughtBy: ['idempotency-conflict'],
    defect: 'a checkout session key reused with another payment method makes a new session instead of returning the original response',
    visible: true,
    request: (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', SESSIONS) || !key) return req;
      const method: unknown = parse(req.body)?.paymentMethod;
      const first = env.memory.get(`method:${key}`);
      if (first === undefined) env.memory.set(`method:${key}`, method ?? null);
      // Only a key the server accepted (8+ characters): the defect is the key's scope, not its validation.
      const other = key.length >= 8 && typeof first === 'string' && typeof method === 'string' && first !== method;
      return other ? { ...req, headers: { ...req.headers, 'idempotency-key': `${key.slice(0, 180)}-${method.slice(0, 16)}` } } : req;
    },
  },
  {
    name: 'everything-503',
    caughtBy: ['coverage', 'resource-chain', 'faults'],
    defect: 'every card issuance answers 503 temporarily_unavailable (an outage that never ends)',
    visible: true,
    handle: async (req, env) =>
      is(req, 'POST', CARDS) && req.headers['x-api-key']
        ? { status: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Temporarily unavailable.', code: 'temporarily_unavailable', requestId: crypto.randomUUID() }) }
        : env.forward(req),
  },
  // The workflows-as-a-user QA pass (2026-11-28): defects the first criteria of five workflows let through.
  {
    name: 'edge-502-retry-duplicates',
    kitMisses: "the faults check's edge 502 does not do the action first (commit), so it never sees a retry after a made transfer",
    defect: "a retry after the edge's 502 (the transfer was made) is taken as a new payment: a second transfer, under a key the server made up",
    visible: true,
    request: (req, env) => {
      const key = req.headers['idempotency-key'];
      return is(req, 'POST', TRANSFERS) && key && env.memory.has(`502:${key}`) ? { ...req, headers: { ...req.headers, 'idempotency-key': `${key}-again` } } : req;
    },
    response: (res, req, env) => {
      const key = req.headers['idempotency-key'];
      if (is(req, 'POST', TRANSFERS) && key && res.status === 502) env.memory.set(`502:${key}`, true);
      return res;
    },
  },
  {
    name: 'edge-502-json-charset',
    caughtBy: ['faults'],
    defect: "the edge's 502 carries a JSON error body, as application/json; charset=utf-8",
    visible: true,
    response: (res) => (res.status === 502 ? { ...res, headers: { ...res.headers, 'content-type': 'application/json; charset=utf-8' }, body: '{"error":"bad gateway","code":"bad_gateway","requestId":"r"}' } : res),
  },
  {
    name: 'session-key-reuse-updates-amount',
    caughtBy: ['idempotency-conflict'],
    defect: 'another amount under a used checkout session key returns the original session with the new amount (the stored session is updated)',
    visible: true,
    response: (res, req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', SESSIONS) || !key || res.status >= 300) return res;
      const amount: unknown = parse(req.body)?.amount;
      const first = env.memory.get(`amount:${key}`);
      if (first === undefined) env.memory.set(`amount:${key}`, amount ?? null);
      return first !== undefined && amount !== undefined && String(amount) !== String(first) ? withJson(res, (b) => ({ ...b, amount: String(amount) })) : res;
    },
  },
  {
    name: 'recipient-key-reuse-creates',
    kitMisses: 'the idempotency checks compare the answers under a reused key, not what else the request created',
    defect: 'a different recipient request under a used key answers the original recipient but creates the new one too',
    visible: true,
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', RECIPIENTS) || !key) return env.forward(req);
      const first = env.memory.get(`recipient:${key}`);
      if (first === undefined) env.memory.set(`recipient:${key}`, req.body);
      else if (first !== req.body) await env.forward({ ...req, headers: { ...req.headers, 'idempotency-key': `${key}-${crypto.randomUUID()}` } });
      return env.forward(req);
    },
  },
  // The kit-as-a-user QA pass (2026-11-29): a false pass of every check.
  {
    name: 'transfer-replay-duplicates',
    caughtBy: ['idempotent-replay'],
    defect: 'an exact retry of a transfer under its key answers the original transfer, byte for byte, but makes another one (the balance moves once per retry)',
    visible: true,
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', TRANSFERS) || !key) return env.forward(req);
      if (env.memory.has(`transfer:${key}`)) await env.forward({ ...req, headers: { ...req.headers, 'idempotency-key': `${key}-${crypto.randomUUID()}` } });
      env.memory.set(`transfer:${key}`, true);
      return env.forward(req);
    },
  },
  {
    name: 'unauthorized-429',
    caughtBy: ['auth-no-key'],
    defect: 'a request that fails authentication is answered 429 rate_limited, as if it were over the rate limit',
    visible: true,
    response: (res) => (res.status === 401 ? withJson({ ...res, status: 429 }, (b) => ({ ...b, code: 'rate_limited' })) : res),
  },
  {
    name: 'cards-access-code-swapped',
    caughtBy: ['organization-states'],
    defect: "a card for an organization without Cards is refused with Checkout's 403 code (api_access_disabled), not cards_api_access_not_enabled",
    visible: true,
    response: (res, req) => (is(req, 'POST', CARDS) && codeOf(res) === 'cards_api_access_not_enabled' ? withJson(res, (b) => ({ ...b, code: 'api_access_disabled' })) : res),
  },
];
