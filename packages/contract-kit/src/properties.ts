// Generated requests as fast-check properties: every request sent, its response checked against the spec and
// against what the request deserves (accepted when valid, a 4xx with the error body when mutated). The first
// failing request is shrunk by fast-check to a minimal one, printed as curl.
import fc from 'fast-check';
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { CheckRecorder } from './check-result.ts';
import { checkResponse, snippet } from './checks/response.ts';
import { acceptanceHint, bodyAssumedReason, expectAccepted, expectRejected, INCONCLUSIVE, rejectionHint } from './checks/expectations.ts';
import { curlOf, exchange, type KitContext } from './context.ts';
import { examplePlan, materialize, validPlans, type RequestPlan } from './generate.ts';
import type { Exchange } from './http.ts';
import { branchRuleCases, mutationArbitrary, objectSchema, propertyFacts, type MutationKind } from './mutate.ts';
import { assumedReasonOf, escapePointer, locate, type OperationModel } from './spec-model.ts';
import { SetupError } from './probes/admin.ts';
import { uniquify } from './probes/stateful.ts';
import { createStep, evaluate, linksOf } from './probes/chain.ts';
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
  const plans = await favourDocumentedPaths(ctx, op, check, validPlans(ctx, op));
  await runProperty(ctx, op, check, plans, options, async (ex, plan) => {
    // A body the spec only assumes as a whole (e.g. "an open JSON object is the only honest contract"): a server
    // may require fields the contract cannot name, so its rejection is a warning with the reason.
    const findings = expectAccepted(ctx, op, ex, bodyAssumedReason(ctx, op, jsonBodyOf(plan)));
    if (!findings.some((f) => f.severity === 'failure' && f.rule === 'valid-rejected')) return findings;
    const reason = await rejectedOnlyForAssumedValues(ctx, op, plan, check);
    if (!reason) return findings;
    return findings.map((f) =>
      f.severity === 'failure' && f.rule === 'valid-rejected'
        ? { ...f, severity: 'warning', assumedReason: reason, message: `${f.message}; the same request with the spec example's values in the fields whose bounds are only assumed is accepted` }
        : f,
    );
  });
  return check.result();
}

export async function invalidRequestsCheck(ctx: KitContext, op: OperationModel, options: PropertyOptions, exclude: MutationKind[]): Promise<CheckResult | undefined> {
  // Mutations start from the documented paths too: a wallet address with a random mixed-case checksum would
  // otherwise answer invalid_destination_address first and hide the rule broken (a PIX recipient without its
  // PIX key was never seen by this check, issue 27).
  const arb = mutationArbitrary(ctx, op, withoutExcused(ctx, op, validPlans(ctx, op)), exclude);
  if (!arb) return undefined;
  const check = new CheckRecorder(op.operationId, 'invalid', 'mutated requests get a 4xx with the error body');
  if (!ctx.caps.answersMalformedJson && op.body) {
    check.warn({ rule: 'not-applicable', message: 'malformed-JSON bodies not sent: the target never answers one (Prism logs "Invalid JSON and unable to correct" and keeps the connection open)' });
  }
  const validate = op.body ? ctx.api.validator.compile({ $ref: op.body.schemaPointer }) : () => false;
  const examples = op.requestExamples.map((e) => uniquify(ctx, op, e, validate)).filter(isObject);
  const first = exclude.includes('missing-required') ? [] : branchRuleCases(ctx, op, examples, (body) => examplePlan(ctx, op, body));
  await runProperty(ctx, op, check, arb, options, (ex, plan) => expectRejected(ctx, op, ex, plan), first);
  return check.result();
}

async function runProperty(
  ctx: KitContext,
  op: OperationModel,
  check: CheckRecorder,
  arb: fc.Arbitrary<RequestPlan>,
  options: PropertyOptions,
  expect: (ex: Exchange, plan: RequestPlan) => Finding[] | Promise<Finding[]>,
  /** Plans run before the generated ones (fast-check `examples`), on every seed. */
  first: RequestPlan[] = [],
): Promise<void> {
  const property = fc.asyncProperty(arb, async (plan) => {
    const ex = await exchange(ctx, materialize(ctx, op, plan));
    check.sent(ex.response?.status);
    // Another 4xx where only an assumed code is expected; for a valid request, a refusal expectAccepted excuses.
    const hint = plan.kind === 'invalid' ? rejectionHint(ctx, plan) : acceptanceHint(ctx, op, ex.response, bodyAssumedReason(ctx, op, jsonBodyOf(plan)));
    const findings = [...(ex.response ? checkResponse(ctx, op, ex.response, hint) : []), ...(await expect(ex, plan))].map((f) =>
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
    examples: first.map((plan) => [plan] as [RequestPlan]),
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

/** The plan's JSON body, if it has one (not a raw, malformed one). */
const jsonBodyOf = (plan: RequestPlan): Json | undefined => (plan.body && 'json' in plan.body ? plan.body.json : undefined);

/** The seed of one property: the run's seed mixed with the check's id, so --seed replays every property. */
export function propertySeed(seed: number, id: string): number {
  let h = seed | 0;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 31) + id.charCodeAt(i)) | 0;
  return h;
}

/**
 * Valid generation favours what the spec documents over what it excuses: three requests in four to an
 * operation some link leads to use a real resource made by the link's source (a transfer to a recipient that
 * exists, a lookup of a transfer that exists: else every one is a 404), and an optional field whose error code
 * sits on an x-assumed node (a wallet address, whose EIP-55 checksum no pattern carries) is left out.
 */
async function favourDocumentedPaths(ctx: KitContext, op: OperationModel, check: CheckRecorder, plans: fc.Arbitrary<RequestPlan>): Promise<fc.Arbitrary<RequestPlan>> {
  const trimmed = withoutExcused(ctx, op, plans);
  const linked = ctx.caps.stateful ? await linkedValues(ctx, op, check) : undefined;
  if (!linked) return trimmed;
  return fc.tuple(trimmed, fc.nat(3)).map(([plan, n]) => (n === 0 ? plan : withLinked(ctx, op, plan, linked)));
}

/** The plans without the optional fields whose error code sits on an x-assumed node. */
function withoutExcused(ctx: KitContext, op: OperationModel, plans: fc.Arbitrary<RequestPlan>): fc.Arbitrary<RequestPlan> {
  const excused = excusedOptionalFields(ctx, op);
  return excused.length === 0 ? plans : plans.map((plan) => withoutFields(ctx, op, plan, excused));
}

function excusedOptionalFields(ctx: KitContext, op: OperationModel): string[] {
  if (!op.body) return [];
  const root = locate(ctx.api.doc, { $ref: op.body.schemaPointer }, op.body.schemaPointer);
  if (!root) return [];
  const branches = Array.isArray(root.node.oneOf) ? root.node.oneOf.map((b, i) => locate(ctx.api.doc, b, `${root.pointer}/oneOf/${i}`)) : [root];
  const names = new Set<string>();
  for (const b of branches) {
    if (!b || !isObject(b.node.properties)) continue;
    const required = Array.isArray(b.node.required) ? b.node.required : [];
    for (const [name, site] of Object.entries(b.node.properties)) {
      const { code } = propertyFacts(ctx, site, `${b.pointer}/properties/${escapePointer(name)}`);
      if (code && !required.includes(name) && op.schemaCodes.get(code)?.assumedReason) names.add(name);
    }
  }
  return [...names];
}

function withoutFields(ctx: KitContext, op: OperationModel, plan: RequestPlan, names: string[]): RequestPlan {
  const body = plan.body && 'json' in plan.body ? plan.body.json : undefined;
  if (!isObject(body) || !names.some((n) => n in body)) return plan;
  const copy: JsonObject = Object.fromEntries(Object.entries(body).filter(([k]) => !names.includes(k)));
  return ctx.api.validator.compile({ $ref: op.body!.schemaPointer })(copy) === true ? { ...plan, body: { json: copy } } : plan;
}

interface Linked {
  path: Record<string, string>;
  body: JsonObject;
}

/** Values for the operation from a resource its link source creates (once per check). */
async function linkedValues(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<Linked | undefined> {
  for (const source of ctx.api.operations) {
    const link = linksOf(source).find((l) => l.operationId === op.operationId);
    if (!link) continue;
    try {
      const step = await createStep(ctx, source, check);
      if (!step.body) return undefined;
      const path: Record<string, string> = {};
      for (const [name, expression] of Object.entries(link.parameters)) {
        const value = evaluate(expression, step.body);
        if (typeof value === 'string' || typeof value === 'number') path[name.replace(/^path\./, '')] = String(value);
      }
      const extra = link.requestBody === undefined ? {} : evaluate(link.requestBody, step.body);
      return { path, body: isObject(extra) ? extra : {} };
    } catch (err) {
      if (err instanceof SetupError) return undefined;
      throw err;
    }
  }
  return undefined;
}

function withLinked(ctx: KitContext, op: OperationModel, plan: RequestPlan, linked: Linked): RequestPlan {
  const body = plan.body && 'json' in plan.body ? plan.body.json : undefined;
  const merged = isObject(body) && Object.keys(linked.body).length > 0 ? { ...body, ...linked.body } : body;
  const valid = merged === undefined || !op.body || ctx.api.validator.compile({ $ref: op.body.schemaPointer })(merged) === true;
  return { ...plan, pathValues: { ...plan.pathValues, ...linked.path }, ...(valid && merged !== undefined ? { body: { json: merged } } : {}) };
}

/**
 * A valid request refused as invalid: was it only for a value the spec merely assumes valid (a nickname of 100
 * characters, where the provider gives no bound; a 255-character key)? The same request is sent again with the
 * spec example's values in those fields (made unique, and a plain key); if that one succeeds, the refusal was
 * about an assumption: a warning with its reason, not a failure.
 */
async function rejectedOnlyForAssumedValues(ctx: KitContext, op: OperationModel, plan: RequestPlan, check: CheckRecorder): Promise<string | undefined> {
  const body = plan.body && 'json' in plan.body ? plan.body.json : undefined;
  const reasons: string[] = [];
  let tame: RequestPlan = plan;
  if (op.body && isObject(body)) {
    const shape = objectSchema(ctx, op.body.schemaPointer, body);
    const copy: JsonObject = { ...body };
    for (const name of Object.keys(body)) {
      const site = shape.sites[name];
      const prop = shape.properties[name];
      if (!site || !prop) continue;
      const reason = propertyFacts(ctx, site.value, site.pointer).valueAssumed ?? assumedReasonOf(prop.value);
      const example = op.requestExamples.find((e) => isObject(e) && name in e) as JsonObject | undefined;
      if (!reason || !example) continue;
      copy[name] = example[name]!;
      reasons.push(reason);
    }
    const validate = ctx.api.validator.compile({ $ref: op.body.schemaPointer });
    if (validate(copy) !== true) return undefined;
    // Unique where uniqueness matters (the example's nickname or PIX key may already be taken).
    tame = { ...tame, body: { json: uniquify(ctx, op, copy, (v) => validate(v) === true) } };
  }
  if (op.idempotencyKey?.assumedReason && typeof plan.idempotencyKey === 'string') {
    tame = { ...tame, idempotencyKey: 'ck-assumed-bounds-probe', freshKey: true };
    reasons.push(op.idempotencyKey.assumedReason);
  }
  if (reasons.length === 0) return undefined;
  const ex = await exchange(ctx, materialize(ctx, op, tame));
  check.sent(ex.response?.status);
  // Only a success proves the assumed values were the cause: a domain refusal (404 recipient_not_found for the
  // example's recipient) proves nothing, so the failure stands.
  if (!ex.response || ex.response.status < 200 || ex.response.status >= 300) return undefined;
  return [...new Set(reasons)].join(' | ');
}
