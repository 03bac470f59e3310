// Provider states the kit cannot reach by itself, made to happen through the sandbox admin API's faults
// (openapi-admin createFault), so every documented status of every operation is seen and checked: the
// temporary 503 (and that nothing was done: the retry with the same Idempotency-Key succeeds), the transfer
// under review (409), card issuance's 503 `provider_rate_limited` with its `Retry-After`, and the edge's
// 502/504 without a JSON body. Which fault kind produces which documented answer is the admin API's
// vocabulary (its createFault table); the answer expected is read from the public spec of the operation.
// A documented 503 (or the edge's 502/504) that is not the fault's answer is inconclusive here as in every
// check (issue 27): recorded, the request tried again, and a state never seen is skipped, never failed.
import { CheckRecorder } from '../check-result.ts';
import { inconclusive } from '../checks/expectations.ts';
import { errorCodeOf, label, snippet } from '../checks/response.ts';
import { curlOf, type KitContext } from '../context.ts';
import { examplePlan, materialize } from '../generate.ts';
import type { Exchange, HttpRequest, HttpResponse } from '../http.ts';
import { documentedResponse, type OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';
import { samplePlan } from './auth.ts';
import { INCONCLUSIVE_TRIES, send, sendUntilDefinite, successBody, unusable } from './stateful.ts';

interface FaultKind {
  kind: string;
  /** The documented answer the fault stands for: a status and, for JSON errors, a code. */
  expected(op: OperationModel): { status: number; code?: string } | undefined;
  extra?: Record<string, unknown>;
  /** Whether the action was not done, so a retry with the same key must succeed. */
  retrySucceeds: boolean;
}

const coded = (status: number, code: string) => (op: OperationModel) => (op.codes.get(status)?.has(code) ? { status, code } : undefined);
const edge = (status: number) => (op: OperationModel) => (documentedResponse(op, status)?.edge ? { status } : undefined);

// The admin API's fault kinds (openapi-admin/paths/admin_faults.yaml) and the documented answer each makes.
const KINDS: FaultKind[] = [
  { kind: 'unavailable', expected: coded(503, 'temporarily_unavailable'), retrySucceeds: true },
  { kind: 'pending_review', expected: coded(409, 'banking_transfer_attempt_pending_review'), retrySucceeds: true },
  { kind: 'provider_rate_limited', expected: coded(503, 'provider_rate_limited'), extra: { retryAfterSeconds: 1 }, retrySucceeds: true },
  { kind: 'edge_502', expected: edge(502), retrySucceeds: true },
  { kind: 'edge_504', expected: edge(504), retrySucceeds: true },
];

export const faultsApply = (_ctx: KitContext, op: OperationModel): boolean => KINDS.some((k) => k.expected(op) !== undefined);

export async function faultsCheck(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'faults', 'every documented provider state is answered as documented');
  const admin = ctx.admin;
  if (!admin || !ctx.organizationId) {
    check.skip('skipped, needs the admin API and the kit’s own organization (faults are scheduled for it alone)');
    return check.result();
  }
  try {
    for (const fault of KINDS) {
      const expected = fault.expected(op);
      if (!expected) continue;
      const matches = (r: HttpResponse) => r.status === expected.status && (expected.code === undefined || errorCodeOf(r) === expected.code);
      const body = op.method === 'POST' ? await successBody(ctx, op, check) : undefined;
      const plan = op.method === 'POST' ? examplePlan(ctx, op, body) : samplePlan(ctx, op, seed);
      const arm = async () => (await admin.createFault({ operationId: op.operationId, kind: fault.kind, count: 1, organizationId: ctx.organizationId, ...fault.extra })).id;
      const { ex, request } = await faultAnswer(ctx, op, check, () => materialize(ctx, op, plan), arm, matches);
      const response = ex.response;
      if (!response) continue; // send() reported it
      if (unusable(op, response, matches)) {
        check.skip(`skipped, fault ${fault.kind}: the documented answer was never seen, ${INCONCLUSIVE_TRIES} answers in a row were inconclusive (listed): the state was not checked`);
        continue;
      }
      const code = errorCodeOf(response);
      if (!matches(response)) {
        check.add([
          {
            severity: 'failure',
            rule: 'provider-state',
            message: `fault ${fault.kind}: ${label(op, response)} ${code ?? ''}; the spec documents ${expected.status}${expected.code ? ` ${expected.code}` : ''} for this state. Body ${snippet(response.text)}`,
            curl: curlOf(ctx, request),
          },
        ]);
        continue;
      }
      if (!fault.retrySucceeds || op.method !== 'POST') continue;
      const retry = await sendUntilDefinite(ctx, op, check, request);
      if (unusable(op, retry.response)) {
        check.skip(`skipped, fault ${fault.kind}: the retry with the same key got ${INCONCLUSIVE_TRIES} inconclusive answers in a row (listed): whether it is processed was not established`);
      } else if (retry.response && (retry.response.status < 200 || retry.response.status >= 300)) {
        check.add([
          {
            severity: 'failure',
            rule: 'provider-state',
            message: `fault ${fault.kind}: the retry with the same ${op.idempotencyKey?.name ?? 'key'} got ${label(op, retry.response)} ${snippet(retry.response.text)}; after ${expected.status} the action was not done, so the retry must be processed`,
            curl: curlOf(ctx, request),
          },
        ]);
      }
    }
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, ${err.message}`);
  }
  return check.result();
}

/**
 * The answer to a request meeting a scheduled fault. A documented 503 (or the edge's 502/504) that is not the
 * fault's answer says nothing (inconclusive, recorded): if it never reached the fault, the fault is still armed
 * and the same request is sent again; if it used the fault up, the fault is armed again for a new request.
 * At most INCONCLUSIVE_TRIES requests: an answer that stays inconclusive leaves the state unchecked.
 */
async function faultAnswer(ctx: KitContext, op: OperationModel, check: CheckRecorder, fresh: () => HttpRequest, arm: () => Promise<string>, matches: (r: HttpResponse) => boolean): Promise<{ ex: Exchange; request: HttpRequest }> {
  let id = await arm();
  let request = fresh();
  for (let tries = 1; ; tries++) {
    const ex = await send(ctx, op, check, request, { keepInconclusive: true });
    if (!ex.response || !unusable(op, ex.response, matches) || tries >= INCONCLUSIVE_TRIES) {
      if (ex.response && unusable(op, ex.response, matches)) check.add([{ ...inconclusive(op, ex.response)!, curl: curlOf(ctx, request) }]);
      return { ex, request };
    }
    check.add([{ ...inconclusive(op, ex.response, 'the fault was not seen; the probe tries again')!, curl: curlOf(ctx, request) }]);
    if (!(await ctx.admin!.faultArmed(id))) {
      id = await arm();
      request = fresh();
    }
  }
}
