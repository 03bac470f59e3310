// What a generated request deserves, on hand-made exchanges: the codes the spec gives only to schema
// violations (derived from its x-error-code nodes), inconclusive and rate-limited answers, the shared error
// body on rejections, a header the spec says always comes with one code, and --strict-503.
import { describe, expect, it } from 'vitest';
import { expectAccepted, expectRejected } from '../src/checks/expectations.ts';
import { checkResponse } from '../src/checks/response.ts';
import { capabilitiesOf } from '../src/capabilities.ts';
import { createContext } from '../src/context.ts';
import type { Exchange, HttpResponse } from '../src/http.ts';
import { strictInconclusive } from '../src/run.ts';
import { alwaysSentWith, loadApi } from '../src/spec-model.ts';
import type { CheckResult } from '../src/types.ts';

const api = loadApi();
const ctx = createContext(api, { baseUrl: 'http://unused.invalid', timeoutMs: 1000 }, 'svc_live_unit', 'server', capabilitiesOf('server', false));
const op = (id: string) => api.byId.get(id)!;
const REQUEST_ID = '0b0e7b1c-7e51-4a51-9f5a-4f8d0c6b7a11';

function exchange(status: number, body: unknown, headers: Record<string, string> = {}): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain' : 'application/json';
  const response: HttpResponse = { status, headers: new Headers({ 'content-type': contentType, ...headers }), text, ms: 1 };
  return { request: { method: 'POST', path: '/x', headers: {} }, response, error: undefined };
}
const error = (code: string) => ({ error: 'message', code, requestId: REQUEST_ID });
const judged = (findings: { severity: string; rule: string }[]) => findings.map((f) => [f.severity, f.rule]);

describe('codes the spec gives only to schema violations (derived from x-error-code)', () => {
  it('are read from the body schemas: those whose carrier node is not x-assumed', () => {
    const only = Object.fromEntries(api.operations.map((o) => [o.operationId, [...o.schemaOnlyCodes].sort()]));
    expect(only).toEqual({
      getBankingBalance: [],
      createRecipient: ['recipient_rail_unsupported'],
      createTransfer: [],
      getTransfer: [],
      issueCard: [],
      createCheckoutProduct: [],
      createCheckoutSession: ['checkout_session_pricing_conflict', 'invalid_checkout_session_amount'],
    });
  });

  it('leave out invalid_destination_address: its node is x-assumed (the EIP-55 checksum is beyond the pattern)', () => {
    const address = op('createRecipient').schemaCodes.get('invalid_destination_address');
    expect(address?.pointers).toContain('#/components/schemas/WalletAddress');
    expect(address?.assumedReason).toMatch(/EIP-55/);
    expect(op('createRecipient').schemaOnlyCodes.has('invalid_destination_address')).toBe(false);
  });

  it('a valid request rejected with one of them is a failure (valid-rejected)', () => {
    for (const code of ['invalid_checkout_session_amount', 'checkout_session_pricing_conflict']) {
      const findings = expectAccepted(ctx, op('createCheckoutSession'), exchange(400, error(code)), undefined);
      expect(judged(findings), code).toEqual([['failure', 'valid-rejected']]);
      expect(findings[0]!.message).toContain(`rejected with ${code}, a code the spec gives only to a schema violation`);
    }
    expect(judged(expectAccepted(ctx, op('createRecipient'), exchange(400, error('recipient_rail_unsupported')), undefined))).toEqual([['failure', 'valid-rejected']]);
  });

  it('legitimate answers to valid input are not: a bad checksum, an unknown recipient, a taken nickname', () => {
    expect(expectAccepted(ctx, op('createRecipient'), exchange(400, error('invalid_destination_address')), undefined)).toEqual([]);
    expect(expectAccepted(ctx, op('createTransfer'), exchange(404, error('recipient_not_found')), undefined)).toEqual([]);
    expect(expectAccepted(ctx, op('createRecipient'), exchange(409, error('recipient_nickname_already_exists')), undefined)).toEqual([]);
  });

  it('any other 4xx to valid input is reported: a code the spec does not give the operation at that status', () => {
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(400, error('invalid_checkout_session_amount')), undefined))).toEqual([['failure', 'valid-rejected']]);
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(409, error('recipient_nickname_already_exists')), undefined))).toEqual([['failure', 'valid-rejected']]);
  });

  it('invalid_request stays a failure, and a warning where the whole body is assumed', () => {
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(400, error('invalid_request')), undefined))).toEqual([['failure', 'valid-rejected']]);
    const assumed = expectAccepted(ctx, op('issueCard'), exchange(400, error('invalid_request')), 'open object');
    expect(assumed).toMatchObject([{ severity: 'warning', rule: 'valid-rejected', assumedReason: 'open object' }]);
  });
});

describe('answers that say nothing about the request', () => {
  it('a documented 503 is inconclusive (a warning naming its code); a 429 is rate-limited; an undocumented 500 a failure', () => {
    const unavailable = expectAccepted(ctx, op('createTransfer'), exchange(503, error('temporarily_unavailable')), undefined);
    expect(judged(unavailable)).toEqual([['warning', 'inconclusive']]);
    expect(unavailable[0]!.message).toMatch(/→ 503: a documented 503 \(temporarily_unavailable\), a transient outage or a server bug/);
    expect(judged(expectRejected(ctx, op('createTransfer'), exchange(503, error('temporarily_unavailable')), { description: 'x' }))).toEqual([['warning', 'inconclusive']]);
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(504, '<html>504</html>'), undefined))).toEqual([['warning', 'inconclusive']]);
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(429, error('rate_limit_exceeded')), undefined))).toEqual([['warning', 'rate-limited']]);
    expect(judged(expectAccepted(ctx, op('createTransfer'), exchange(500, error('internal_error')), undefined))).toEqual([['failure', 'server-error']]);
  });

  it('--strict-503 turns a check’s inconclusive warnings into failures and keeps the count', () => {
    const result: CheckResult = {
      id: 'createTransfer/valid',
      operationId: 'createTransfer',
      name: 'valid',
      status: 'passed',
      requests: 3,
      statuses: { '503': 3 },
      durationMs: 1,
      failures: [],
      warnings: [
        { severity: 'warning', rule: 'inconclusive', message: 'a documented 503', count: 3, curl: 'curl x' },
        { severity: 'warning', rule: 'rate-limited', message: 'rate limited', count: 1 },
      ],
      inconclusive: 3,
    };
    const strict = strictInconclusive(result);
    expect(strict.status).toBe('failed');
    expect(strict.failures).toEqual([{ severity: 'failure', rule: 'inconclusive', message: 'a documented 503 (x3); a failure under --strict-503', curl: 'curl x' }]);
    expect(strict.warnings.map((w) => w.rule)).toEqual(['rate-limited']);
    expect(strict.inconclusive).toBe(3);
    expect(strictInconclusive({ ...result, warnings: [], inconclusive: 0 }).status).toBe('passed');
  });
});

describe('rejections of invalid input carry the shared error body', () => {
  it('the shared body passes; text/plain, or JSON without requestId, is invalid-error-body', () => {
    expect(expectRejected(ctx, op('createRecipient'), exchange(400, error('invalid_request')), { description: 'x' })).toEqual([]);
    expect(judged(expectRejected(ctx, op('createRecipient'), exchange(400, { description: 'Bad Request' }), { description: 'x' }))).toEqual([['failure', 'invalid-error-body']]);
    const noRequestId = expectRejected(ctx, op('createRecipient'), exchange(400, { error: 'bad', code: 'invalid_request' }), { description: 'x' });
    expect(judged(noRequestId)).toEqual([['failure', 'invalid-error-body']]);
    expect(noRequestId[0]!.message).toMatch(/must have required property 'requestId'/);
  });

  it('a mismatch only on an assumed bound of the error body is left to the response check (a warning)', () => {
    expect(expectRejected(ctx, op('createRecipient'), exchange(400, error('c'.repeat(101))), { description: 'x' })).toEqual([]);
  });

  it('an accepted mutation is invalid-accepted', () => {
    expect(judged(expectRejected(ctx, op('createRecipient'), exchange(201, { id: 'rcp_1' }), { description: 'x' }))).toEqual([['failure', 'invalid-accepted']]);
  });
});

describe('a header the spec says always comes with one code', () => {
  it('is read from the header description ("Always sent with `provider_rate_limited`")', () => {
    const retryAfter = op('issueCard').responses.find((r) => r.status === '503')!.headers.find((h) => h.name === 'Retry-After')!;
    expect(retryAfter.required).toBe(false);
    expect(retryAfter.requiredWithCodes).toEqual(['provider_rate_limited']);
    expect(alwaysSentWith('Always sent with `a` and `b`; sometimes `c`.')).toEqual(['a', 'b']);
    expect(alwaysSentWith('Sent when present.')).toEqual([]);
  });

  it('missing on provider_rate_limited is a failure; fine on temporarily_unavailable, or present as an integer', () => {
    const check = (body: unknown, headers: Record<string, string> = {}) => judged(checkResponse(ctx, op('issueCard'), exchange(503, body, headers).response!));
    expect(check(error('provider_rate_limited'))).toEqual([['failure', 'header']]);
    expect(check(error('temporarily_unavailable'))).toEqual([]);
    expect(check(error('provider_rate_limited'), { 'retry-after': '2' })).toEqual([]);
    expect(check(error('provider_rate_limited'), { 'retry-after': '1.5' })).toEqual([['failure', 'header']]);
  });
});

describe('error semantics (issue 16)', () => {
  it('a catalog code answered at another status than the catalog gives it fails; an unknown code is a warning', () => {
    const wrong = checkResponse(ctx, op('createTransfer'), exchange(400, error('recipient_not_found')).response!);
    expect(judged(wrong)).toEqual([['failure', 'error-code']]);
    const unknown = checkResponse(ctx, op('createTransfer'), exchange(400, error('some_new_code')).response!);
    expect(judged(unknown)).toEqual([['warning', 'error-code']]);
  });

  it('a code whose status only the spec assumes (401 invalid_api_key) at another status is a warning saying "assumed", with the reason', () => {
    const reason = api.catalog.find((e) => e.code === 'invalid_api_key')!.assumedReason;
    const found = checkResponse(ctx, op('createTransfer'), exchange(403, error('invalid_api_key')).response!);
    expect(found).toMatchObject([{ severity: 'warning', rule: 'error-code', assumedReason: reason, message: expect.stringContaining('(assumed: the spec only assumes "invalid_api_key" at 401') }]);
  });

  it("a rejection must carry the broken constraint's x-error-code; where only an assumption was broken, a warning", () => {
    const mutation = { description: 'amount 1.005', expectedCode: 'invalid_checkout_session_amount' };
    expect(expectRejected(ctx, op('createCheckoutSession'), exchange(400, error('invalid_checkout_session_amount')), mutation)).toEqual([]);
    expect(judged(expectRejected(ctx, op('createCheckoutSession'), exchange(400, error('invalid_request')), mutation))).toEqual([['failure', 'error-code']]);
    const assumed = expectRejected(ctx, op('createCheckoutSession'), exchange(400, error('invalid_request')), { ...mutation, assumedReason: 'assumed bound' });
    expect(assumed).toMatchObject([{ severity: 'warning', rule: 'error-code', assumedReason: 'assumed bound' }]);
  });

  it('several codes are allowed where several constraints break at once (a missing field, a body of the wrong type)', () => {
    const loose = { description: 'missing "rail"', expectedCode: ['invalid_request', 'recipient_rail_unsupported'] };
    expect(expectRejected(ctx, op('createRecipient'), exchange(400, error('recipient_rail_unsupported')), loose)).toEqual([]);
    expect(judged(expectRejected(ctx, op('createRecipient'), exchange(400, error('recipient_nickname_already_exists')), loose))).toEqual([['failure', 'error-code']]);
  });

  it('a code the provider never named (the generic invalid_request is x-assumed): another one is a warning saying "assumed" with the reason', () => {
    const reason = api.catalog.find((e) => e.code === 'invalid_request')!.assumedReason;
    expect(reason).toMatch(/names no code/);
    const malformed = { description: 'malformed JSON', expectedCode: 'invalid_request' };
    expect(expectRejected(ctx, op('createRecipient'), exchange(400, error('validation_error')), malformed)).toMatchObject([
      { severity: 'warning', rule: 'error-code', assumedReason: reason, message: expect.stringContaining('(assumed:') },
    ]);
    // The documented code of a documented constraint stays a failure.
    const amount = { description: 'amount of 3 decimals', expectedCode: 'invalid_checkout_session_amount' };
    expect(judged(expectRejected(ctx, op('createCheckoutSession'), exchange(400, error('validation_error')), amount))).toEqual([['failure', 'error-code']]);
  });

  it('an accepted mutation of an assumed constraint is a warning with its reason, of a documented one a failure', () => {
    expect(judged(expectRejected(ctx, op('createRecipient'), exchange(201, { id: 'rcp_1' }), { description: 'nickname of 101' }))).toEqual([['failure', 'invalid-accepted']]);
    expect(expectRejected(ctx, op('createRecipient'), exchange(201, { id: 'rcp_1' }), { description: 'nickname of 101', assumedReason: 'bounds assumed' })).toMatchObject([
      { severity: 'warning', rule: 'invalid-accepted', assumedReason: 'bounds assumed' },
    ]);
  });
});
