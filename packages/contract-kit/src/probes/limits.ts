// The body limit the spec only assumes (provider section 8 gives none), made to happen so its documented
// answer is seen, not just listed as never exercised: `body-limit`: a 1 MiB JSON body gets a 4xx with the
// error body (the spec's 413 `payload_too_large`, itself assumed: another 4xx, or acceptance, is a warning
// with its reason); never a 5xx, never no answer. The rate limit has its own probe (rate-limit.ts).
import { CheckRecorder } from '../check-result.ts';
import { expectRejected } from '../checks/expectations.ts';
import { checkResponse, label, snippet } from '../checks/response.ts';
import { curlOf, type KitContext } from '../context.ts';
import { materialize } from '../generate.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
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
    // A server that answers early and closes with the body unread resets the connection: the client loses the
    // answer and, the outcome unknown, sends the same body again. Said in the finding, with what fixes it.
    const reset = /EPIPE|ECONNRESET|closed|socket/i.test(ex.error ?? '');
    const hint = reset ? '; a server that closes with the body unread resets the connection, and the answer is lost: read the rest and discard it before closing' : '';
    check.add([{ severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no answer to a 1 MiB body (${ex.error})${hint}`, curl: '(a 1 MiB body)' }]);
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
