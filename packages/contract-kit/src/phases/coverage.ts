// The deterministic coverage phase (Schemathesis' `coverage` phase), run before the random ones: from each of
// the operation's valid request examples (one per oneOf branch the spec illustrates), every constraint of the
// request is violated once and every documented boundary is hit once, so a bug on one field is caught on
// every seed, not by luck:
//  - valid: each string property at its minLength and maxLength, each enum value, the Idempotency-Key at its
//    minLength and maxLength. Each must be accepted (or meet a documented domain refusal);
//  - invalid: each required property missing, each property of a wrong type, each bound / pattern / const /
//    enum / multipleOf broken (a value one character longer than a valid one, too: `"1.005"` for an amount),
//    mutually exclusive properties together, the key missing or malformed, malformed JSON. Each must be
//    rejected with the broken constraint's `x-error-code` (else the catalog's validation code); a constraint
//    only the spec assumed makes its acceptance a warning.
// Every candidate is confirmed valid or invalid with the document's own Ajv before it is sent.
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { CheckRecorder } from '../check-result.ts';
import { acceptanceHint, bodyAssumedReason, expectAccepted, expectRejected, rejectionHint, type Mutation } from '../checks/expectations.ts';
import { checkResponse } from '../checks/response.ts';
import { curlOf, exchange, freshToken, type KitContext } from '../context.ts';
import { examplePlan, materialize, type RequestPlan } from '../generate.ts';
import { exclusiveCode, exclusiveFields, exampleValues, keyViolations, looseCodes, objectSchema, propertyFacts, violations, VALIDATION_CODE } from '../mutate.ts';
import { SetupError } from '../probes/admin.ts';
import { successBody, uniquify } from '../probes/stateful.ts';
import { assumedReasonOf, type OperationModel } from '../spec-model.ts';
import type { CheckResult, Finding } from '../types.ts';

interface Case {
  plan: RequestPlan;
  mutation?: Mutation;
  /** For a valid boundary the spec only assumes (a nickname of 100): its refusal is a warning with this reason. */
  assumedReason?: string | undefined;
}

export async function coverageCheck(ctx: KitContext, op: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'coverage', 'every constraint violated once, every documented boundary hit');
  let cases: Case[];
  try {
    cases = await coverageCases(ctx, op, check);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, ${err.message}`);
    return check.result();
  }
  for (const c of cases) {
    const request = materialize(ctx, op, c.plan);
    const ex = await exchange(ctx, request);
    check.sent(ex.response?.status);
    // The body's own x-assumed reason, as the `valid` check reads it: a body the spec only assumes as a whole
    // (a card's) may need fields the contract cannot name, so its refusal is the same warning in both checks.
    const bodyReason = c.mutation ? undefined : bodyAssumedReason(ctx, op, c.plan.body && 'json' in c.plan.body ? c.plan.body.json : undefined);
    const hint = c.mutation ? rejectionHint(ctx, c.mutation) : acceptanceHint(ctx, op, ex.response, bodyReason ?? c.assumedReason);
    const findings: Finding[] = [
      ...(ex.response ? checkResponse(ctx, op, ex.response, hint) : []),
      ...(c.mutation ? expectRejected(ctx, op, ex, c.mutation) : excuse(expectAccepted(ctx, op, ex, bodyReason), c.assumedReason)),
    ];
    const curl = curlOf(ctx, request);
    check.add(findings.map((f) => ({ ...f, message: `[${c.plan.description}] ${f.message}`, curl })));
  }
  return check.result();
}

/** Every case, in a fixed order. Bodies come from the spec's examples, made to succeed. */
export async function coverageCases(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<Case[]> {
  const cases: Case[] = [];
  const bodyValidate = op.body ? ctx.api.validator.compile({ $ref: op.body.schemaPointer }) : undefined;
  const examples = op.body ? op.requestExamples.filter((e) => bodyValidate!(e) === true) : [undefined];
  if (op.body && examples.length === 0) throw new SetupError(`the spec gives ${op.operationId} no valid request example`);
  const first = await successBody(ctx, op, check);
  const fresh = (example: Json | undefined): Json | undefined => {
    if (example === undefined || !op.body) return example;
    const base = uniquify(ctx, op, example, (v) => bodyValidate!(v) === true);
    // The first example's success body carries what must be real (a recipient the transfer can go to).
    return isObject(base) && isObject(first) ? { ...base, ...Object.fromEntries(Object.entries(first).filter(([k]) => k in base && isId(k))) } : base;
  };
  const valid = (body: Json | undefined, description: string, change: Partial<RequestPlan> = {}, assumedReason?: string): Case => ({
    plan: { ...examplePlan(ctx, op, body), description, ...change },
    assumedReason,
  });
  const invalid = (body: Json | undefined, mutation: Mutation, change: Partial<RequestPlan> = {}): Case => ({
    plan: { ...examplePlan(ctx, op, body), kind: 'invalid', description: mutation.description, ...change },
    mutation,
  });
  for (const [i, example] of examples.entries()) {
    const base = i === 0 && first !== undefined ? first : fresh(example);
    cases.push(valid(base, `example ${i + 1} as is`));
    if (!isObject(base) || !op.body) continue;
    const pointer = op.body.schemaPointer;
    const isValid = (v: Json) => bodyValidate!(v) === true;
    const shape = objectSchema(ctx, pointer, base);
    for (const name of shape.required) {
      if (!(name in base)) continue;
      const copy = { ...base };
      delete copy[name];
      const facts = shape.sites[name] ? propertyFacts(ctx, shape.sites[name].value, shape.sites[name].pointer) : undefined;
      if (!isValid(copy)) cases.push(invalid(copy, { description: `missing required field "${name}"`, expectedCode: looseCodes(op), assumedReason: facts?.nameAssumed }));
    }
    for (const [name, prop] of Object.entries(shape.properties)) {
      if (!(name in base)) continue; // an absent optional field: adding it could break another rule (exclusive fields)
      const site = shape.sites[name]!;
      const facts = propertyFacts(ctx, site.value, site.pointer);
      const code = facts.code ?? looseCodes(op);
      // valid boundaries
      for (const value of boundaries(prop.value)) {
        const body = { ...fresh(example) as JsonObject, [name]: value };
        if (isValid(body)) cases.push(valid(body, `boundary: "${name}" = ${short(value)}`, {}, facts.valueAssumed ?? assumedReasonOf(prop.value)));
      }
      // broken constraints
      const original = base[name];
      const candidates = [
        ...violations(ctx, prop.value, prop.pointer),
        ...(typeof original === 'string' ? [{ value: `${original}5`, why: 'one character more than a valid value' }] : []),
        ...(typeof original === 'number' ? [{ value: Number((original + 0.005).toFixed(3)), why: 'one decimal place more than a valid value' }] : []),
      ];
      const seen = new Set<string>();
      for (const c of candidates) {
        const body = { ...base, [name]: c.value };
        const key = JSON.stringify(c.value);
        if (seen.has(key) || isValid(body)) continue;
        seen.add(key);
        cases.push(invalid(body, { description: `"${name}" = ${short(c.value)} (${c.why})`, expectedCode: code, assumedReason: 'assumedReason' in c ? c.assumedReason : prop.value['x-assumed'] === true ? String(prop.value['x-assumed-reason']) : undefined }));
      }
      for (const wrong of [true, 12345, 'text', null] as Json[]) {
        if (typeof wrong === typeof original || (wrong === null && original === null)) continue;
        const body = { ...base, [name]: wrong };
        if (isValid(body)) continue;
        cases.push(invalid(body, { description: `"${name}" of the wrong type (${JSON.stringify(wrong)})`, expectedCode: code }));
        break;
      }
    }
    const exclusive = exclusiveFields(ctx, pointer);
    const together = exclusive ? exampleValues(op, exclusive) : undefined;
    if (together && i === 0) {
      const body = { ...base, ...together };
      if (!isValid(body)) cases.push(invalid(body, { description: `mutually exclusive ${exclusive!.join(' and ')} together`, expectedCode: exclusiveCode(ctx, pointer) ?? looseCodes(op) }));
    }
    if (i === 0) cases.push(invalid(undefined, { description: 'malformed JSON', expectedCode: VALIDATION_CODE }, { body: { raw: JSON.stringify(base).slice(0, -1) } }));
  }
  const key = op.idempotencyKey;
  if (key) {
    const keyCode = typeof key.schema['x-error-code'] === 'string' ? key.schema['x-error-code'] : VALIDATION_CODE;
    const body = () => fresh(examples[0]);
    for (const length of [key.schema.minLength, key.schema.maxLength].filter((n): n is number => typeof n === 'number')) {
      const value = keyOfLength(length);
      cases.push(valid(body(), `${key.name} of ${length} characters (a boundary${key.assumedReason ? ' the spec assumes' : ' the provider documents'})`, { idempotencyKey: value, freshKey: false }, key.assumedReason));
    }
    if (key.required) cases.push(invalid(body(), { description: `no ${key.name}`, expectedCode: keyCode }, { idempotencyKey: null, freshKey: false }));
    for (const c of keyViolations(key.schema)) {
      cases.push(invalid(body(), { description: `${key.name} ${short(c.value)} (${c.why})`, expectedCode: keyCode, assumedReason: c.why === 'empty' ? undefined : key.assumedReason }, { idempotencyKey: String(c.value), freshKey: false }));
    }
  }
  if (!ctx.caps.answersMalformedJson) return cases.filter((c) => !(c.plan.body && 'raw' in c.plan.body));
  return cases;
}

const isId = (name: string) => /id$/i.test(name);

/** A refusal of a valid value at a bound the spec only assumes is a warning with the assumption's reason. */
function excuse(findings: Finding[], assumedReason: string | undefined): Finding[] {
  if (!assumedReason) return findings;
  return findings.map((f) => (f.severity === 'failure' && f.rule === 'valid-rejected' ? { ...f, severity: 'warning', assumedReason } : f));
}

/** A fresh key of exactly `length` characters (unique, so it is a new request). */
function keyOfLength(length: number): string {
  const token = `ck${freshToken(24)}`;
  return (token + 'k'.repeat(Math.max(0, length))).slice(0, length);
}

/** The documented boundary values of a leaf schema: each enum value, the shortest and longest strings. */
function boundaries(schema: JsonObject): Json[] {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.type !== 'string' || typeof schema.pattern === 'string' || 'format' in schema) return [];
  const out: Json[] = [];
  const token = freshToken(10);
  for (const n of [schema.minLength, schema.maxLength]) {
    if (typeof n === 'number' && n > 0) out.push((token + 'x'.repeat(n)).slice(0, n));
  }
  return out;
}

const short = (v: Json): string => {
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 20)}…(${typeof v === 'string' ? v.length : text.length} chars)` : text;
};
