// The limits the spec only assumes (provider section 8 gives neither the body limit nor the 429's shape), made
// to happen so their documented answers are seen, not just listed as never exercised:
//  - `body-limit`: a 1 MiB JSON body gets a 4xx with the error body (the spec's 413 `payload_too_large`, itself
//    assumed: another 4xx, or acceptance, is a warning with its reason); never a 5xx, never no answer;
//  - `rate-limit`: on an operation with its own stricter `x-rate-limit` (card issuance), a fresh key of the
//    kit's organization sends limit + 1 requests (invalid ones: every authenticated request counts, and none
//    creates anything); the last must be refused with 429 and a `Retry-After` (both assumed: a warning).
import { CheckRecorder } from '../check-result.ts';
import { expectRejected } from '../checks/expectations.ts';
import { checkResponse, label, snippet } from '../checks/response.ts';
import { curlOf, exchange, type KitContext } from '../context.ts';
import { toCurl } from '../http.ts';
import { materialize } from '../generate.ts';
import { rateLimitsOf } from '../pacing.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';
import { samplePlan } from './auth.ts';
import { exchangeUntilDefinite } from './stateful.ts';

const ONE_MIB = 1024 * 1024;

export async function bodyLimitProbe(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'body-limit', 'a 1 MiB body is refused with a 4xx and the error body');
  const plan = samplePlan(ctx, op, seed);
  const request = materialize(ctx, op, { ...plan, body: { raw: JSON.stringify({ padding: 'x'.repeat(ONE_MIB) }) } });
  const short = { ...request, body: '{"padding":"x…(1 MiB)"}' };
  const ex = await exchangeUntilDefinite(ctx, op, check, request, curlOf(ctx, short));
  check.sent(ex.response?.status);
  const documented = op.responses.find((r) => r.status === '413');
  const reason = documented?.assumedReason ?? 'the provider gives no body size limit';
  if (!ex.response) {
    check.add([{ severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no answer to a 1 MiB body (${ex.error})`, curl: '(a 1 MiB body)' }]);
    return check.result();
  }
  check.add(checkResponse(ctx, op, ex.response).map((f) => ({ ...f, curl: curlOf(ctx, short) })));
  const findings = expectRejected(ctx, op, ex, { description: 'a 1 MiB body', assumedReason: reason });
  check.add(findings.map((f) => ({ ...f, curl: curlOf(ctx, short) })));
  if (ex.response.status >= 400 && ex.response.status < 500 && ex.response.status !== 413) {
    check.warn({ rule: 'status', message: `${label(op, ex.response)}: a 1 MiB body refused, but not with the spec's 413`, assumedReason: reason });
  }
  return check.result();
}

export const rateLimitApplies = (ctx: KitContext, op: OperationModel): boolean => rateLimitsOf(ctx.api, op).some((l) => l.bucket === op.operationId && l.limit <= 100);

export async function rateLimitProbe(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'rate-limit', 'past its x-rate-limit a key gets 429 with Retry-After');
  const limit = rateLimitsOf(ctx.api, op).find((l) => l.bucket === op.operationId);
  const admin = ctx.admin;
  if (!limit || !admin || !ctx.organizationId) {
    check.skip('skipped, needs the admin API (a fresh key of the kit’s organization is spent)');
    return check.result();
  }
  let key: string;
  try {
    ({ key } = await admin.createApiKey(ctx.organizationId));
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, ${err.message}`);
    return check.result();
  }
  const plan = samplePlan(ctx, op, seed);
  // Malformed JSON: refused, nothing created, and counted like any authenticated request.
  const request = materialize(ctx, op, { ...plan, body: { raw: '{' } }, { headers: { [ctx.api.apiKeyHeader]: key } });
  const curl = toCurl(ctx.transport.baseUrl, request, key, 'FRESH_KEY');
  let last;
  for (let i = 0; i <= limit.limit; i++) {
    last = await exchange(ctx, request);
    check.sent(last.response?.status);
    if (last.response?.status === 429) break;
  }
  const response = last?.response;
  const documented = op.responses.find((r) => r.status === '429');
  const reason = documented?.assumedReason ?? 'the provider does not show the rate-limit answer';
  if (!response) return check.result();
  if (response.status !== 429) {
    check.warn({ rule: 'rate-limit', message: `${label(op, response)} after ${limit.limit + 1} requests with one key; the spec's x-rate-limit (${limit.limit} per ${limit.windowMs / 1000} s) says 429. Body ${snippet(response.text)}`, assumedReason: reason, curl });
    return check.result();
  }
  // The 429 is the expected answer here, not a rate limit the kit ran into: check it as a response.
  check.add(checkResponse(ctx, op, response).map((f) => ({ ...f, curl })));
  if (response.headers.get('retry-after') === null) check.warn({ rule: 'header', message: `${label(op, response)} without Retry-After`, assumedReason: reason, curl });
  return check.result();
}
