// Generated requests as fast-check properties: every request sent, its response checked against the spec and
// against what the request deserves (accepted when valid, a 4xx with the error body when mutated). The first
// failing request is shrunk by fast-check to a minimal one, printed as curl.
import fc from 'fast-check';
import { resolvePointer } from '@payments/spec';
import { CheckRecorder } from './check-result.ts';
import { checkResponse, snippet } from './checks/response.ts';
import { expectAccepted, expectRejected, INCONCLUSIVE } from './checks/expectations.ts';
import { curlOf, exchange, type KitContext } from './context.ts';
import { invalidPlans, materialize, validPlans, type RequestPlan } from './generate.ts';
import type { Exchange } from './http.ts';
import type { MutationKind } from './mutate.ts';
import { locate, type OperationModel } from './spec-model.ts';
import type { CheckResult, Finding } from './types.ts';

class PropertyFailure extends Error {
  readonly failures: Finding[];
  readonly exchange: Exchange;
  constructor(failures: Finding[], ex: Exchange) {
    super(failures.map((f) => f.message).join('\n'));
    this.failures = failures;
    this.exchange = ex;
  }
}

export interface PropertyOptions {
  seed: number;
  runs: number;
  /** Stops generating (and shrinking) after this long; what ran still counts. */
  timeLimitMs: number;
}

export async function validRequestsCheck(ctx: KitContext, op: OperationModel, options: PropertyOptions): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'valid', 'valid generated requests are accepted and conform');
  // A body the spec only assumes as a whole (e.g. "an open JSON object is the only honest contract"): a server
  // may require fields the contract cannot name, so its rejection is a warning with the reason.
  const bodyAssumed = op.body ? locate(ctx.api.doc, resolvePointer(ctx.api.doc, op.body.schemaPointer), op.body.schemaPointer)?.assumedReason : undefined;
  await runProperty(ctx, op, check, validPlans(ctx, op), options, (ex) => expectAccepted(ctx, op, ex, bodyAssumed));
  return check.result();
}

export async function invalidRequestsCheck(ctx: KitContext, op: OperationModel, options: PropertyOptions, exclude: MutationKind[]): Promise<CheckResult | undefined> {
  const arb = invalidPlans(ctx, op, exclude);
  if (!arb) return undefined;
  const check = new CheckRecorder(op.operationId, 'invalid', 'mutated requests get a 4xx with the error body');
  if (!ctx.caps.answersMalformedJson && op.body) {
    check.warn({ rule: 'not-applicable', message: 'malformed-JSON bodies not sent: the target never answers one (Prism logs "Invalid JSON and unable to correct" and keeps the connection open)' });
  }
  await runProperty(ctx, op, check, arb, options, (ex, plan) => expectRejected(ctx, op, ex, plan));
  return check.result();
}

async function runProperty(
  ctx: KitContext,
  op: OperationModel,
  check: CheckRecorder,
  arb: fc.Arbitrary<RequestPlan>,
  options: PropertyOptions,
  expect: (ex: Exchange, plan: RequestPlan) => Finding[],
): Promise<void> {
  const property = fc.asyncProperty(arb, async (plan) => {
    const ex = await exchange(ctx, materialize(ctx, op, plan));
    check.sent(ex.response?.status);
    const findings = [...(ex.response ? checkResponse(ctx, op, ex.response) : []), ...expect(ex, plan)].map((f) =>
      plan.kind === 'invalid' ? { ...f, message: `[${plan.description}] ${f.message}` } : f,
    );
    const failures = findings.filter((f) => f.severity === 'failure');
    // An inconclusive answer keeps its reproduction: --strict-503 turns it into a failure.
    for (const w of findings.filter((f) => f.severity === 'warning')) check.warn(w.rule === INCONCLUSIVE ? { ...w, curl: curlOf(ctx, ex.request) } : w);
    if (failures.length > 0) throw new PropertyFailure(failures, ex);
  });
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.runs,
    plugins: [fc.interruptAfterTimeLimit(options.timeLimitMs)],
  });
  if (!details.failed) return;
  const error = details.errorInstance;
  if (error instanceof PropertyFailure) {
    const curl = curlOf(ctx, error.exchange.request);
    check.add(error.failures.map((f) => ({ ...f, curl })));
    check.counterexample = {
      curl,
      status: error.exchange.response?.status ?? null,
      body: snippet(error.exchange.response?.text ?? error.exchange.error ?? '', 500),
      numRuns: details.numRuns,
      numShrinks: details.numShrinks,
    };
  } else if (details.counterexample === null) {
    check.add([{ severity: 'failure', rule: 'generator', message: `${op.operationId}: fast-check gave up (${details.interrupted ? 'time limit reached' : 'could not generate requests'}) after ${details.numRuns} runs` }]);
  } else {
    check.add([{ severity: 'failure', rule: 'kit-error', message: `${op.operationId}: the kit itself failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}` }]);
  }
}

/** The seed of one property: the run's seed mixed with the check's id, so --seed replays every property. */
export function propertySeed(seed: number, id: string): number {
  let h = seed | 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) | 0;
  return h;
}
