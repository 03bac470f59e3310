// (d) The x-assumed path, on hand-made responses: a mismatch only on what the spec assumes is a warning with
// the nearest x-assumed-reason; the same kind of mismatch on what the provider documents is a failure.
import { describe, expect, it } from 'vitest';
import { checkResponse } from '../src/checks/response.ts';
import { capabilitiesOf } from '../src/capabilities.ts';
import { createContext } from '../src/context.ts';
import type { HttpResponse } from '../src/http.ts';
import { judgeRefusal } from '../src/probes/auth.ts';
import { loadApi } from '../src/spec-model.ts';

const api = loadApi();
const ctx = createContext(api, { baseUrl: 'http://unused.invalid', timeoutMs: 1000 }, 'svc_live_unit', 'server', capabilitiesOf('server', false));
const op = (id: string) => api.byId.get(id)!;
const REQUEST_ID = '0b0e7b1c-7e51-4a51-9f5a-4f8d0c6b7a11';

function response(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/html' : 'application/json';
  return { status, headers: new Headers({ 'content-type': contentType, ...headers }), text, ms: 1 };
}

const reasonOf = (pointer: string): string => {
  let node: unknown = api.doc;
  for (const part of pointer.slice(2).split('/')) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return String((node as Record<string, unknown>)['x-assumed-reason']);
};

describe('response bodies', () => {
  it('an assumed field name that the server spells differently is a warning with that field’s reason', () => {
    // Transfer requires `status`, a field name the spec only assumes; the server says `state`.
    const findings = checkResponse(ctx, op('createTransfer'), response(201, { id: 'trf_1', state: 'pending' }));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'warning', rule: 'body-schema' });
    expect(findings[0]!.message).toMatch(/must have required property 'status'/);
    expect(findings[0]!.assumedReason).toBe(reasonOf('#/components/schemas/Transfer/properties/status'));
  });

  it('the same kind of mismatch on a documented field is a failure', () => {
    // `id` is named by the provider (only its format is assumed): a transfer without one is the server's fault.
    const findings = checkResponse(ctx, op('createTransfer'), response(201, { status: 'pending' }));
    expect(findings.map((f) => [f.severity, f.rule])).toEqual([['failure', 'body-schema']]);
    expect(findings[0]!.message).toMatch(/must have required property 'id'/);
    expect(findings[0]!.assumedReason).toBeUndefined();
  });

  it('a documented field in an assumed format (a numeric transfer id) is a warning with the format’s reason', () => {
    const findings = checkResponse(ctx, op('createTransfer'), response(201, { id: 42, status: 'pending' }));
    expect(findings.map((f) => [f.severity, f.rule])).toEqual([['warning', 'body-schema']]);
    expect(findings[0]!.message).toMatch(/\/id must be string/);
    expect(findings[0]!.assumedReason).toBe(reasonOf('#/components/schemas/ResourceId'));
  });

  it('an assumed shape (the balance body) is a warning; an assumed bound (an error code over 100 chars) too', () => {
    const balance = checkResponse(ctx, op('getBankingBalance'), response(200, { balances: 'lots' }));
    expect(balance.map((f) => f.severity)).toEqual(['warning']);
    expect(balance[0]!.assumedReason).toBe(reasonOf('#/components/schemas/Balance'));
    const longCode = checkResponse(ctx, op('getTransfer'), response(404, { error: 'x', code: 'c'.repeat(101), requestId: REQUEST_ID }));
    expect(longCode.filter((f) => f.rule === 'body-schema').map((f) => f.severity)).toEqual(['warning']);
    expect(longCode.find((f) => f.rule === 'body-schema')!.assumedReason).toBe(reasonOf('#/components/schemas/Error/properties/code'));
  });

  it('a missing requestId (documented by the provider) is a failure even on the assumed 401', () => {
    const findings = checkResponse(ctx, op('getTransfer'), response(401, { error: 'nope', code: 'invalid_api_key' }));
    expect(findings.map((f) => [f.severity, f.rule])).toEqual([['failure', 'body-schema']]);
  });
});

describe('statuses', () => {
  it('another 2xx where the spec only assumes the success status is a warning with its reason', () => {
    const findings = checkResponse(ctx, op('createRecipient'), response(200, { id: 'rcp_1', nickname: 'n', rail: 'usd_ach' }));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'warning', rule: 'status' });
    expect(findings[0]!.assumedReason).toBe(reasonOf('#/paths/~1v1~1banking~1recipients/post/responses/201'));
  });

  it('another 2xx where the success status is documented (transfers: 201) is a failure', () => {
    const findings = checkResponse(ctx, op('createTransfer'), response(200, { id: 'trf_1', status: 'pending' }));
    expect(findings.map((f) => [f.severity, f.rule])).toEqual([['failure', 'status']]);
  });

  it('a bad key refused with 403 instead of the assumed 401: a warning carrying the 401 reason', () => {
    const ex = { request: { method: 'GET', path: '/v1/banking/transfers/x', headers: {} }, response: response(403, { error: 'no', code: 'banking_api_access_not_enabled', requestId: REQUEST_ID }), error: undefined };
    const findings = judgeRefusal(ctx, op('getTransfer'), ex, 'refuses a malformed key');
    expect(findings.map((f) => [f.severity, f.rule])).toEqual([['warning', 'auth']]);
    expect(findings[0]!.assumedReason).toBe(reasonOf('#/components/responses/Unauthorized'));
  });

  it('a bad key refused with an undocumented 4xx is still a warning (the 401 is assumed); accepted is a failure', () => {
    const refused = judgeRefusal(
      ctx,
      op('getTransfer'),
      { request: { method: 'GET', path: '/x', headers: {} }, response: response(400, { error: 'bad key', code: 'bad_key', requestId: REQUEST_ID }), error: undefined },
      'refuses a malformed key',
    );
    expect(refused.every((f) => f.severity === 'warning')).toBe(true);
    expect(refused.map((f) => f.rule).sort()).toEqual(['auth', 'status']);
    const accepted = judgeRefusal(
      ctx,
      op('getTransfer'),
      { request: { method: 'GET', path: '/x', headers: {} }, response: response(200, { id: 'trf_1', status: 'pending' }), error: undefined },
      'refuses a malformed key',
    );
    expect(accepted.map((f) => [f.severity, f.rule])).toEqual([['failure', 'auth']]);
  });
});

describe('headers and content', () => {
  it('Retry-After on the assumed 429 in a bad format is a warning; on the documented 503 a failure', () => {
    const error = { error: 'slow down', code: 'rate_limit_exceeded', requestId: REQUEST_ID };
    const limited = checkResponse(ctx, op('issueCard'), response(429, error, { 'retry-after': 'soon' }));
    expect(limited.map((f) => [f.severity, f.rule])).toEqual([['warning', 'header']]);
    expect(limited[0]!.assumedReason).toBe(reasonOf('#/components/headers/RetryAfterAssumed'));
    const provider = checkResponse(ctx, op('issueCard'), response(503, { ...error, code: 'provider_rate_limited' }, { 'retry-after': 'soon' }));
    expect(provider.map((f) => [f.severity, f.rule])).toEqual([['failure', 'header']]);
    expect(checkResponse(ctx, op('issueCard'), response(503, { ...error, code: 'provider_rate_limited' }, { 'retry-after': '2' }))).toEqual([]);
  });

  it("the edge's 502 must not claim JSON; an HTML 502 is fine", () => {
    const json = checkResponse(ctx, op('createTransfer'), response(502, { error: 'bad gateway', code: 'x', requestId: REQUEST_ID }));
    expect(json.map((f) => [f.severity, f.rule])).toEqual([['failure', 'edge-body']]);
    expect(checkResponse(ctx, op('createTransfer'), response(502, '<html><body>502 Bad Gateway</body></html>'))).toEqual([]);
  });

  it('content type is never assumed (the provider: bodies are JSON)', () => {
    const res: HttpResponse = { status: 201, headers: new Headers({ 'content-type': 'text/plain' }), text: '{"id":"prd_1"}', ms: 1 };
    expect(checkResponse(ctx, op('createCheckoutProduct'), res).map((f) => [f.severity, f.rule])).toEqual([['failure', 'content-type']]);
  });
});

describe('precise assumptions (issue 16)', () => {
  it('an assumed field NAME excuses its absence, not a value outside the documented enum', () => {
    // Transfer.status: the name is assumed (x-assumed on the property's $ref site); its values are documented.
    const absent = checkResponse(ctx, op('createTransfer'), response(201, { id: 'trf_1' }));
    expect(absent.map((f) => [f.severity, f.rule])).toEqual([['warning', 'body-schema']]);
    const outside = checkResponse(ctx, op('createTransfer'), response(201, { id: 'trf_1', status: 'processing' }));
    expect(outside.map((f) => [f.severity, f.rule])).toEqual([['failure', 'body-schema']]);
  });

  it('an assumed BOUND excuses the bound, not the documented field’s absence', () => {
    // Recipient.nickname: the field is documented; only its 1–100 length is assumed (Nickname.yaml).
    const long = checkResponse(ctx, op('createRecipient'), response(201, { id: 'rcp_1', nickname: 'n'.repeat(101), rail: 'brl_pix' }));
    expect(long.map((f) => [f.severity, f.rule])).toEqual([['warning', 'body-schema']]);
    const missing = checkResponse(ctx, op('createRecipient'), response(201, { id: 'rcp_1', rail: 'brl_pix' }));
    expect(missing.map((f) => [f.severity, f.rule])).toEqual([['failure', 'body-schema']]);
  });
});
