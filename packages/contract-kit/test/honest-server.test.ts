// False failures of the kit against an honest server (docs/reports/2026-11-28-c/qa-honest-server.md): a server
// written from the provider's document alone, making its own choices where the document is silent. Each case
// is a tiny node:http server on 127.0.0.1 answering the way the QA pass's Python server did, or a hand-made
// exchange. Codes and statuses the spec gives are read from the bundled spec, never typed here.
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from '../src/capabilities.ts';
import { bodyAssumedReason, checkAnswerToValid, expectAccepted } from '../src/checks/expectations.ts';
import { checkResponse } from '../src/checks/response.ts';
import { createContext } from '../src/context.ts';
import { CoverageRecorder, unexercised, unexercisedAssumed } from '../src/coverage.ts';
import type { Exchange, HttpResponse } from '../src/http.ts';
import { judgeRefusal } from '../src/probes/auth.ts';
import { run, UsageError } from '../src/run.ts';
import { assumedReasonOf, loadApi, locate, VALIDATION_CODE } from '../src/spec-model.ts';
import type { Report } from '../src/types.ts';
import type { Json } from '@payments/spec';
import { check, describeFailures } from './support.ts';

const api = loadApi();
const ctx = createContext(api, { baseUrl: 'http://unused.invalid', timeoutMs: 1000 }, 'svc_live_unit', 'server', capabilitiesOf('server', false));
const op = (id: string) => api.byId.get(id)!;
const REQUEST_ID = '0b0e7b1c-7e51-4a51-9f5a-4f8d0c6b7a11';
const error = (code: string, message = 'message') => ({ error: message, code, requestId: REQUEST_ID });
/** The spec's own generic validation refusal (x-assumed): its status and reason, read from the catalog. */
const generic = api.catalog.find((e) => e.code === VALIDATION_CODE)!;
/** A code the provider's document states, with its status (a stated refusal of another operation). */
const stated = (operationId: string) => api.catalog.find((e) => e.operationId === operationId && !e.assumed && e.status >= 400 && e.status < 500)!;
/** The honest server's status for a generic validation failure: one the spec does not document for sessions. */
const UNDOCUMENTED_4XX = 422;
expect(api.byId.get('createCheckoutSession')!.responses.some((r) => r.status === String(UNDOCUMENTED_4XX))).toBe(false);
const HONEST_CODE = 'validation_failed'; // the honest server's own code: the spec never names it
expect(api.catalog.some((e) => e.code === HONEST_CODE)).toBe(false);

function exchange(status: number, body: unknown): Exchange {
  const response: HttpResponse = { status, headers: new Headers({ 'content-type': 'application/json' }), text: JSON.stringify(body), ms: 1 };
  return { request: { method: 'POST', path: '/x', headers: {} }, response, error: undefined };
}
const judged = (findings: { severity: string; rule: string }[]) => findings.map((f) => [f.severity, f.rule]);

type Handler = (req: IncomingMessage, body: string) => { status: number; body?: unknown };

/** A tiny server on 127.0.0.1: `handle` answers each request; every answer is JSON. */
async function withServer<T>(handle: Handler, fn: (url: string) => Promise<T>): Promise<T> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const answer = handle(req, body);
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : { 'content-length': 0 });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const kit = (url: string, operations: string[], checks: string[]): Promise<Report> =>
  run({ baseUrl: url, apiKey: 'svc_live_honestkey', seed: 7, runs: 5, operations, checks, timeoutMs: 5000, target: 'server' }, { propertyTimeLimitMs: 20_000 });

const isRead = (req: IncomingMessage) => req.method === 'GET';

describe('1, 2: a valid request refused with a generic 4xx the spec does not document (422 validation_failed)', () => {
  it('is a warning of `valid` saying why, with the assumed reason; `cors` judges CORS headers only', { timeout: 60_000 }, async () => {
    const report = await withServer(
      (req) => (isRead(req) ? { status: 200, body: { available: [] } } : { status: UNDOCUMENTED_4XX, body: error(HONEST_CODE, 'discountPercent must be below 100.') }),
      (url) => kit(url, ['createCheckoutSession'], ['valid', 'cors']),
    );
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id), describeFailures(report)).toEqual([]);
    const refused = check(report, 'createCheckoutSession/valid').warnings.find((w) => w.rule === 'valid-rejected');
    expect(refused?.assumedReason).toBe(generic.assumedReason);
    expect(refused?.message).toMatch(new RegExp(`refused with ${HONEST_CODE}.*generic refusal`));
    expect(check(report, 'createCheckoutSession/cors').warnings.filter((w) => w.rule === 'status')).toEqual([]);
  });

  it('stays a failure for a code the document names for something else, the spec’s own invalid_request, a 5xx, or no error code', () => {
    const transfer = op('createTransfer');
    const elsewhere = stated('createCheckoutSession'); // e.g. 400 invalid_checkout_session_amount, never a transfer's
    expect(judged(expectAccepted(ctx, transfer, exchange(elsewhere.status, error(elsewhere.code)), undefined))).toEqual([['failure', 'valid-rejected']]);
    expect(judged(expectAccepted(ctx, transfer, exchange(generic.status, error(VALIDATION_CODE)), undefined))).toEqual([['failure', 'valid-rejected']]);
    expect(judged(expectAccepted(ctx, transfer, exchange(500, error(HONEST_CODE)), undefined))).toEqual([['failure', 'server-error']]);
    expect(judged(expectAccepted(ctx, transfer, exchange(UNDOCUMENTED_4XX, { error: 'no code' }), undefined))).toEqual([['failure', 'valid-rejected']]);
    // A status the document gives the operation its own meaning (404: not found), with a code it never names.
    expect(judged(expectAccepted(ctx, transfer, exchange(404, error(HONEST_CODE)), undefined))).toEqual([['failure', 'valid-rejected']]);
  });

  it('the generic refusal at the spec’s assumed status (400 validation_failed) is the same warning', () => {
    const found = expectAccepted(ctx, op('createRecipient'), exchange(generic.status, error(HONEST_CODE)), undefined);
    expect(found).toMatchObject([{ severity: 'warning', rule: 'valid-rejected', assumedReason: generic.assumedReason }]);
  });
});

describe('3: a field the document does not show, required by the server', () => {
  it('a card refused for a field the open body cannot name warns in `coverage` as in `valid`, with the body’s reason', { timeout: 60_000 }, async () => {
    // A server built from the spec's own vocabulary: the spec's generic validation code, at its status.
    const report = await withServer(
      (req) => (isRead(req) ? { status: 200, body: { available: [] } } : { status: generic.status, body: error(VALIDATION_CODE, 'cardholderName is required.') }),
      (url) => kit(url, ['issueCard'], ['coverage', 'valid']),
    );
    const refusals = (id: string) => check(report, id).warnings.filter((w) => w.rule === 'valid-rejected');
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id), describeFailures(report)).toEqual([]);
    const reason = refusals('issueCard/valid')[0]?.assumedReason;
    expect(reason).toMatch(/open JSON object/);
    expect(refusals('issueCard/coverage').map((w) => w.assumedReason)).toContain(reason);
  });

  it('the replay and concurrent-key probes skip on such a refusal at 422 as they do at 400, never fail (QA: 422 failed them)', { timeout: 60_000 }, async () => {
    const report = await withServer(
      (req) => (isRead(req) ? { status: 200, body: { available: [] } } : { status: UNDOCUMENTED_4XX, body: error(HONEST_CODE, 'cardholderName is required.') }),
      (url) => kit(url, ['issueCard'], ['idempotent-replay', 'concurrent-key']),
    );
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id), describeFailures(report)).toEqual([]);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['issueCard/idempotent-replay', 'skipped'],
      ['issueCard/concurrent-key', 'skipped'],
    ]);
  });
});

describe('4: wording about what only the spec assumes', () => {
  it('a code at a status whose codes are all x-assumed (413 payload_too_large) says "assumed", not "the document gives"', () => {
    const tooLarge = api.catalog.find((e) => e.operationId === 'createRecipient' && e.assumed && e.status === 413)!;
    const found = checkResponse(ctx, op('createRecipient'), exchange(tooLarge.status, error('body_too_large')).response!);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).not.toMatch(/the document gives/);
    expect(found[0]!.message).toMatch(/assumes/);
    expect(found[0]!.assumedReason).toBeTruthy();
  });

  it('a mixed list names the stated codes as the document’s and invalid_request as assumed', () => {
    const found = checkResponse(ctx, op('createRecipient'), exchange(generic.status, error(HONEST_CODE)).response!);
    const message = found.find((f) => f.rule === 'error-code')!.message;
    expect(message).toMatch(new RegExp(`the document gives createRecipient for ${generic.status} \\([^)]*\\)`));
    expect(/the document gives createRecipient for \d+ \(([^)]*)\)/.exec(message)![1]).not.toContain(VALIDATION_CODE);
    expect(message).toMatch(new RegExp(`the spec assumes \\(${VALIDATION_CODE}\\)`));
  });

  it('responses and codes the spec only assumes are not "documented responses never exercised"', () => {
    const rows = new CoverageRecorder(api).rows(api.operations);
    const assumedStatuses = api.operations.flatMap((o) => o.responses.filter((r) => r.assumedReason && r.status.startsWith('4')).map((r) => `${o.operationId} ${r.status}`));
    expect(assumedStatuses.length).toBeGreaterThan(0);
    const documented = unexercised(rows);
    for (const s of assumedStatuses) expect(documented.some((line) => line === s || line.startsWith(`${s} `)), s).toBe(false);
    expect(documented.some((line) => line.includes(VALIDATION_CODE))).toBe(false);
    const assumed = unexercisedAssumed(rows);
    for (const s of assumedStatuses) expect(assumed.some((line) => line === s || line.startsWith(`${s} `)), s).toBe(true);
  });

  it('a bad key answered 403 with the server’s own code is reported once', () => {
    const refusal = exchange(403, error('authentication_failed'));
    const found = judgeRefusal(ctx, op('getBankingBalance'), refusal, 'refuses a malformed key');
    expect(judged(found)).toEqual([['warning', 'auth']]);
    expect(found[0]!.message).toContain('403 authentication_failed');
  });
});

describe('5: a wrong --api-key against a server that answers 403', () => {
  const badKeyServer: Handler = () => ({ status: 403, body: error('authentication_failed', 'The API key is not valid.') });

  it('stops the run with a usage error before any check', async () => {
    await withServer(badKeyServer, async (url) => {
      await expect(kit(url, ['getBankingBalance'], ['valid'])).rejects.toThrow(UsageError);
      await expect(kit(url, ['getBankingBalance'], ['valid'])).rejects.toThrow(/refused the API key: GET \/v1\/banking\/balance with it answered 403 authentication_failed/);
    });
  });

  it('the command exits 2 with the usage-style error', { timeout: 30_000 }, async () => {
    const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
    await withServer(badKeyServer, async (url) => {
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [CLI, '--base-url', url, '--api-key', 'svc_live_wrong', '--target', 'server'], { env: { ...process.env, PAYMENTS_API_KEY: '', SANDBOX_ADMIN_TOKEN: '' }, timeout: 25_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
        ),
      );
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^contract-kit: the server refused the API key: .*\nRun with --help for usage\.\n$/m);
    });
  });

  it('a key the server knows but whose organization lacks the product (a documented 403 code) is not stopped', { timeout: 60_000 }, async () => {
    const access = [...op('getBankingBalance').codes.get(403)!].find((c) => api.catalog.some((e) => e.code === c && !e.assumed))!;
    const report = await withServer(
      (req) => (req.headers['x-api-key'] === 'svc_live_honestkey' ? { status: 403, body: error(access) } : { status: 403, body: error('authentication_failed') }),
      (url) => kit(url, ['getBankingBalance'], ['valid']),
    );
    expect(report.checks.map((c) => c.id)).toEqual(['getBankingBalance/valid']);
  });
});

describe('6: USD ACH and USD Wire recipients, whose account fields the document does not show', () => {
  const recipients = op('createRecipient');
  const bodyPointer = recipients.body!.schemaPointer;
  const validBody = api.validator.compile({ $ref: bodyPointer });
  const validKey = api.validator.compile({ $ref: recipients.idempotencyKey!.schemaPointer });
  // Each rail's create variant, read from the spec: its `rail` const and the x-assumed reason on its unnamed
  // fields (`additionalProperties`), if any.
  const root = locate(api.doc, { $ref: bodyPointer }, bodyPointer)!;
  const variants = (root.node.oneOf as { $ref: string }[]).map((branch) => {
    const node = locate(api.doc, branch, branch.$ref)!.node as { properties: { rail: { const: string } }; additionalProperties?: Json };
    return { rail: node.properties.rail.const, reason: assumedReasonOf(node.additionalProperties) };
  });
  const reasonOf = (rail: string) => variants.find((v) => v.rail === rail)?.reason;
  const ACCOUNT = 'accountNumber'; // the server's own field, one the contract cannot name

  it('the spec marks the ACH and Wire variants x-assumed for their unnamed account fields, not the PIX one', () => {
    expect(reasonOf('usd_ach')).toMatch(/account fields/);
    expect(reasonOf('usd_wire')).toMatch(/account fields/);
    expect(reasonOf('brl_pix')).toBeUndefined();
  });

  /**
   * A server that follows the spec, except that it requires `accountNumber` on the rails in `needsAccount`
   * (400 invalid_request without it): an unsupported rail gets recipient_rail_unsupported, a body the spec
   * refuses invalid_request, a key is replayed with its original answer.
   */
  function recipientServer(needsAccount: string[]): Handler {
    const replies = new Map<string, { status: number; body: unknown }>();
    let next = 0;
    return (req, text) => {
      if (isRead(req)) return { status: 200, body: { available: [] } };
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || validKey(key) !== true) return { status: generic.status, body: error(VALIDATION_CODE, 'Idempotency-Key is invalid.') };
      const earlier = replies.get(key);
      if (earlier) return earlier;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return { status: generic.status, body: error(VALIDATION_CODE, 'Malformed JSON.') };
      }
      if (body !== null && typeof body === 'object' && 'rail' in body && !variants.some((v) => v.rail === body.rail)) {
        return { status: 400, body: error('recipient_rail_unsupported', 'Unsupported rail.') };
      }
      if (validBody(body) !== true) {
        const address = (validBody.errors ?? []).some((e) => e.instancePath.startsWith('/destinationAddress'));
        return { status: 400, body: address ? error('invalid_destination_address') : error(VALIDATION_CODE, 'The body is invalid.') };
      }
      if (needsAccount.includes(String(body.rail)) && typeof body[ACCOUNT] !== 'string') {
        return { status: generic.status, body: error(VALIDATION_CODE, `${ACCOUNT} is required for ${String(body.rail)} recipients.`) };
      }
      const reply = { status: 201, body: { id: `rcp_${++next}`, nickname: body.nickname, rail: body.rail, ...('pixKey' in body ? { pixKey: body.pixKey } : {}), active: true, idempotencyKey: key } };
      replies.set(key, reply);
      return reply;
    };
  }
  const CHECKS = ['valid', 'coverage', 'idempotent-replay', 'concurrent-key'];

  it('refusing an ACH or Wire body without accountNumber (400 invalid_request) is a warning naming the variant’s reason', { timeout: 60_000 }, async () => {
    const report = await withServer(recipientServer(['usd_ach', 'usd_wire']), (url) => kit(url, ['createRecipient'], CHECKS));
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id), describeFailures(report)).toEqual([]);
    const refusals = report.checks.flatMap((c) => c.warnings.filter((w) => w.rule === 'valid-rejected').map((w) => ({ check: c.id, ...w })));
    // The coverage phase sends the spec's ACH example as is; `valid` may generate either rail.
    expect(refusals.filter((w) => w.check === 'createRecipient/coverage').map((w) => w.assumedReason)).toContain(reasonOf('usd_ach'));
    expect(refusals.some((w) => w.check === 'createRecipient/valid')).toBe(true);
    for (const w of refusals) {
      expect([reasonOf('usd_ach'), reasonOf('usd_wire')], w.message).toContain(w.assumedReason);
      expect(w.message).toContain(VALIDATION_CODE);
    }
  });

  it('the same refusal of a valid PIX body (its fields are named) still fails `valid` and `coverage`', { timeout: 60_000 }, async () => {
    const report = await withServer(recipientServer(['brl_pix', 'usd_ach', 'usd_wire']), (url) => kit(url, ['createRecipient'], ['valid', 'coverage']));
    const failed = report.checks.flatMap((c) => c.failures.filter((f) => f.rule === 'valid-rejected').map((f) => ({ check: c.id, ...f })));
    expect(new Set(failed.map((f) => f.check))).toEqual(new Set(['createRecipient/valid', 'createRecipient/coverage']));
    expect(failed.every((f) => /brl_pix/.test(f.message)), describeFailures(report)).toBe(true);
  });

  it('a 5xx, a refusal without a code or with a code meaning something else, and a wrong success body still fail', () => {
    const ach = { rail: 'usd_ach', nickname: 'Acme Supplies LLC' };
    const reason = bodyAssumedReason(ctx, recipients, ach);
    expect(reason).toBe(reasonOf('usd_ach'));
    expect(judged(expectAccepted(ctx, recipients, exchange(500, error(VALIDATION_CODE)), reason))).toEqual([['failure', 'server-error']]);
    expect(judged(expectAccepted(ctx, recipients, exchange(generic.status, { error: `${ACCOUNT} is required.` }), reason))).toEqual([['failure', 'valid-rejected']]);
    const elsewhere = stated('createCheckoutSession'); // a stated code of another operation, e.g. invalid_checkout_session_amount
    expect(judged(expectAccepted(ctx, recipients, exchange(elsewhere.status, error(elsewhere.code)), reason))).toEqual([['failure', 'valid-rejected']]);
    const request = { method: 'POST', path: recipients.path, headers: {}, body: JSON.stringify(ach) };
    const noNickname = exchange(201, { id: 'rcp_1', rail: 'usd_ach' }).response!;
    expect(judged(checkAnswerToValid(ctx, recipients, noNickname, request))).toContainEqual(['failure', 'body-schema']);
  });
});
