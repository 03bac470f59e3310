// Mutations: a valid request with exactly one thing broken, chosen from the spec (a required field, a type, a
// bound, a const/enum, mutually exclusive fields, the Idempotency-Key, the JSON itself). Each mutated body is
// confirmed invalid with the document's Ajv before it is sent, so an "invalid" request is never valid by accident.
import fc from 'fast-check';
import { isObject, type Json, type JsonObject } from '@payments/spec';
import type { KitContext } from './context.ts';
import type { RequestPlan } from './generate.ts';
import { resolvePointer } from '@payments/spec';
import { assumedReasonOf, escapePointer, locate, VALIDATION_CODE, type OperationModel } from './spec-model.ts';

export type MutationKind =
  | 'missing-required'
  | 'wrong-type'
  | 'out-of-range'
  | 'exclusive-fields'
  | 'idempotency-key-missing'
  | 'idempotency-key-invalid'
  | 'malformed-json';

export interface Candidate {
  value: Json;
  why: string;
  /** The x-assumed-reason of the constraint the value breaks, when only the spec assumed it. */
  assumedReason?: string;
  /** The x-error-code of the node whose constraint the value breaks. */
  code?: string;
}

interface Mutator {
  kind: MutationKind;
  apply(plan: RequestPlan, pick: number): RequestPlan | undefined;
}

export function mutationArbitrary(ctx: KitContext, op: OperationModel, valid: fc.Arbitrary<RequestPlan>, exclude: MutationKind[]): fc.Arbitrary<RequestPlan> | undefined {
  const mutators = mutatorsFor(ctx, op).filter((m) => !exclude.includes(m.kind));
  if (mutators.length === 0) return undefined;
  return fc
    .tuple(valid, fc.constantFrom(...mutators), fc.nat())
    .map(([plan, mutator, pick]) => mutator.apply(plan, pick))
    .filter((plan): plan is RequestPlan => plan !== undefined);
}

/** The mutation kinds that apply to the operation, in a fixed order. */
export function mutationKinds(ctx: KitContext, op: OperationModel): MutationKind[] {
  return mutatorsFor(ctx, op).map((m) => m.kind);
}

/** Every mutator that applies to the operation, in a fixed order: the body's, then the Idempotency-Key's. */
function mutatorsFor(ctx: KitContext, op: OperationModel): Mutator[] {
  return [...bodyMutators(ctx, op), ...keyMutators(ctx, op)];
}

/** The plan with `change` applied, marked as an invalid request of this mutation. */
function invalid(plan: RequestPlan, kind: MutationKind, description: string, change: Partial<RequestPlan>): RequestPlan {
  return { ...plan, ...change, kind: 'invalid', mutation: kind, description };
}

/** The JSON body of a plan (undefined when it has none, or a raw one). */
const jsonOf = (plan: RequestPlan): Json | undefined => (plan.body && 'json' in plan.body ? plan.body.json : undefined);

/** What the body mutators share: the operation, its body schema, and whether a value breaks it (the document's Ajv). */
interface BodySchema {
  ctx: KitContext;
  op: OperationModel;
  pointer: string;
  isInvalid: (value: Json) => boolean;
}

function bodyMutators(ctx: KitContext, op: OperationModel): Mutator[] {
  if (!op.body) return [];
  const validate = ctx.api.validator.compile({ $ref: op.body.schemaPointer });
  const body: BodySchema = { ctx, op, pointer: op.body.schemaPointer, isInvalid: (value) => validate(value) !== true };
  const exclusive = exclusiveFields(ctx, body.pointer);
  const sample = exclusive && exampleValues(op, exclusive);
  return [
    ...(hasRequired(ctx, body.pointer) ? [missingRequired(body)] : []),
    wrongType(body),
    ...(hasBounds(ctx, body.pointer) ? [outOfRange(body)] : []),
    ...(exclusive && sample ? [exclusiveFieldsTogether(body, exclusive, sample)] : []),
    ...(ctx.caps.answersMalformedJson ? [malformedJson()] : []),
  ];
}

/** A required field left out (one the valid plan sent). */
function missingRequired({ ctx, op, pointer, isInvalid }: BodySchema): Mutator {
  return {
    kind: 'missing-required',
    apply(plan, pick) {
      const body = jsonOf(plan);
      if (!isObject(body)) return undefined;
      const shape = objectSchema(ctx, pointer, body);
      const present = shape.required.filter((name) => name in body);
      const name = present[pick % Math.max(present.length, 1)];
      if (name === undefined) return undefined;
      const copy = { ...body };
      delete copy[name];
      if (!isInvalid(copy)) return undefined;
      const site = shape.sites[name];
      const facts = site ? propertyFacts(ctx, site.value, site.pointer) : undefined;
      return invalid(plan, 'missing-required', `missing required field "${name}"`, {
        body: { json: copy },
        expectedCode: looseCodes(op),
        ...(facts?.nameAssumed ? { assumedReason: facts.nameAssumed } : {}),
      });
    },
  };
}

/** The body, or one of its fields, replaced by a value of another JSON type. */
function wrongType({ ctx, op, pointer, isInvalid }: BodySchema): Mutator {
  return {
    kind: 'wrong-type',
    apply(plan, pick) {
      const body = jsonOf(plan);
      if (body === undefined) return undefined;
      const targets = isObject(body) ? [undefined, ...Object.keys(body)] : [undefined];
      const target = targets[pick % targets.length];
      const original = target === undefined ? body : (body as JsonObject)[target]!;
      for (const replacement of [true, 12345, 'text', [], {}, null] as Json[]) {
        if (jsonType(replacement) === jsonType(original)) continue;
        const mutated = target === undefined ? replacement : { ...(body as JsonObject), [target]: replacement };
        if (!isInvalid(mutated)) continue;
        const where = target === undefined ? 'the body' : `field "${target}"`;
        const site = target === undefined || !isObject(body) ? undefined : objectSchema(ctx, pointer, body).sites[target];
        const facts = site ? propertyFacts(ctx, site.value, site.pointer) : undefined;
        return invalid(plan, 'wrong-type', `wrong type: ${where} is ${jsonType(replacement)} ${JSON.stringify(replacement)} instead of ${jsonType(original)}`, {
          body: { json: mutated },
          expectedCode: facts?.code ?? looseCodes(op),
        });
      }
      return undefined;
    },
  };
}

/**
 * The rules that tell a oneOf body's branches apart, broken once each from the spec's own request examples:
 * each field one branch requires and another does not (a PIX recipient's PIX key) left out. The invalid check
 * runs these first, so it reaches each branch's own rule on every seed, not by luck (issue 27).
 */
export function branchRuleCases(ctx: KitContext, op: OperationModel, examples: readonly JsonObject[], plan: (body: JsonObject) => RequestPlan): RequestPlan[] {
  if (!op.body) return [];
  const pointer = op.body.schemaPointer;
  const validate = ctx.api.validator.compile({ $ref: pointer });
  const root = unwrap(ctx, { $ref: pointer }, pointer);
  if (!root || !Array.isArray(root.value.oneOf)) return [];
  const requiredSets = root.value.oneOf.map((b, i) => unwrap(ctx, b, `${root.pointer}/oneOf/${i}`)).map((b) => (Array.isArray(b?.value.required) ? b.value.required.map(String) : []));
  const everywhere = requiredSets.reduce((all, names) => all.filter((n) => names.includes(n)));
  const cases: RequestPlan[] = [];
  for (const example of examples.filter((e) => validate(e) === true)) {
    const shape = objectSchema(ctx, pointer, example);
    for (const name of shape.required.filter((n) => !everywhere.includes(n) && n in example)) {
      const copy = { ...example };
      delete copy[name];
      if (validate(copy) === true) continue;
      const site = shape.sites[name];
      const facts = site ? propertyFacts(ctx, site.value, site.pointer) : undefined;
      cases.push(invalid(plan(copy), 'missing-required', `missing required field "${name}"`, { expectedCode: looseCodes(op), ...(facts?.nameAssumed ? { assumedReason: facts.nameAssumed } : {}) }));
    }
  }
  return cases;
}

/** A field set to a value that breaks one of its bounds, patterns or const/enum. */
function outOfRange({ ctx, pointer, isInvalid }: BodySchema): Mutator {
  return {
    kind: 'out-of-range',
    apply(plan, pick) {
      const body = jsonOf(plan);
      if (!isObject(body)) return undefined;
      const { properties, sites } = objectSchema(ctx, pointer, body);
      const options: { name: string; candidate: Candidate }[] = [];
      for (const name of Object.keys(body)) {
        const prop = properties[name];
        if (!prop) continue;
        for (const candidate of violations(ctx, prop.value, prop.pointer)) options.push({ name, candidate });
      }
      const usable = options.filter(({ name, candidate }) => isInvalid({ ...body, [name]: candidate.value }));
      const chosen = usable[pick % Math.max(usable.length, 1)];
      if (!chosen) return undefined;
      const site = sites[chosen.name];
      const facts = site ? propertyFacts(ctx, site.value, site.pointer) : undefined;
      return invalid(plan, 'out-of-range', `out of range: field "${chosen.name}" = ${short(chosen.candidate.value)} (${chosen.candidate.why})`, {
        body: { json: { ...body, [chosen.name]: chosen.candidate.value } },
        expectedCode: facts?.code ?? VALIDATION_CODE,
        ...(chosen.candidate.assumedReason ? { assumedReason: chosen.candidate.assumedReason } : {}),
      });
    },
  };
}

/** Mutually exclusive fields sent together (values from the operation's examples). */
function exclusiveFieldsTogether({ ctx, op, pointer, isInvalid }: BodySchema, exclusive: string[], sample: JsonObject): Mutator {
  return {
    kind: 'exclusive-fields',
    apply(plan) {
      const body = jsonOf(plan);
      if (!isObject(body)) return undefined;
      const mutated = { ...body, ...sample };
      if (!isInvalid(mutated)) return undefined;
      return invalid(plan, 'exclusive-fields', `mutually exclusive fields together: ${exclusive.map((f) => `"${f}"`).join(' and ')}`, {
        body: { json: mutated },
        expectedCode: exclusiveCode(ctx, pointer) ?? looseCodes(op),
      });
    },
  };
}

/** The body's JSON cut short by its last character. */
function malformedJson(): Mutator {
  return {
    kind: 'malformed-json',
    apply(plan) {
      const body = jsonOf(plan);
      if (body === undefined) return undefined;
      const text = JSON.stringify(body);
      const raw = text.length > 1 ? text.slice(0, -1) : '{';
      return invalid(plan, 'malformed-json', `malformed JSON body ${short(raw)}`, { body: { raw }, expectedCode: VALIDATION_CODE });
    },
  };
}

/** The Idempotency-Key left out (when required) or sent malformed (values its schema refuses). */
function keyMutators(ctx: KitContext, op: OperationModel): Mutator[] {
  const key = op.idempotencyKey;
  if (!key) return [];
  const keyCode = (typeof key.schema['x-error-code'] === 'string' ? key.schema['x-error-code'] : undefined) ?? VALIDATION_CODE;
  const validateKey = ctx.api.validator.compile({ $ref: key.schemaPointer });
  const candidates = keyViolations(key.schema).filter((c) => validateKey(c.value) !== true);
  const missing: Mutator = {
    kind: 'idempotency-key-missing',
    apply: (plan) => invalid(plan, 'idempotency-key-missing', `no ${key.name} header`, { idempotencyKey: null, freshKey: false, expectedCode: keyCode }),
  };
  const malformed: Mutator = {
    kind: 'idempotency-key-invalid',
    apply(plan, pick) {
      const c = candidates[pick % candidates.length]!;
      return invalid(plan, 'idempotency-key-invalid', `malformed ${key.name}: ${short(c.value)} (${c.why})`, {
        idempotencyKey: String(c.value),
        freshKey: false,
        expectedCode: keyCode,
        ...(key.assumedReason && c.why !== 'empty' ? { assumedReason: key.assumedReason } : {}),
      });
    },
  };
  return [...(key.required ? [missing] : []), ...(candidates.length > 0 ? [malformed] : [])];
}

const jsonType = (v: Json | undefined): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const short = (v: Json): string => {
  const text = JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 20)}…(${typeof v === 'string' ? v.length : text.length} chars)` : text;
};

interface LocatedSchema {
  value: JsonObject;
  pointer: string;
}

/** Follows $ref and single allOf wrappers. */
function unwrap(ctx: KitContext, value: Json, pointer: string): LocatedSchema | undefined {
  let loc = locate(ctx.api.doc, value, pointer);
  for (let i = 0; loc && i < 10 && Array.isArray(loc.node.allOf) && loc.node.allOf.length === 1; i++) {
    loc = locate(ctx.api.doc, loc.node.allOf[0]!, `${loc.pointer}/allOf/0`);
  }
  return loc ? { value: loc.node, pointer: loc.pointer } : undefined;
}

/** The object schema that applies to `body`: the root, or the oneOf branch whose const properties it carries. */
export function objectSchema(ctx: KitContext, pointer: string, body: JsonObject): { required: string[]; properties: Record<string, LocatedSchema>; sites: Record<string, LocatedSchema> } {
  let schema = unwrap(ctx, { $ref: pointer }, pointer);
  if (schema && Array.isArray(schema.value.oneOf)) {
    const branches = schema.value.oneOf.map((b, i) => unwrap(ctx, b, `${schema!.pointer}/oneOf/${i}`)).filter((b): b is LocatedSchema => Boolean(b));
    schema =
      branches.find((b) => {
        const props = isObject(b.value.properties) ? b.value.properties : {};
        const consts = Object.entries(props).filter(([, p]) => isObject(p) && 'const' in p);
        return consts.length > 0 && consts.every(([name, p]) => (p as JsonObject).const === body[name]);
      }) ?? branches[0];
  }
  if (!schema) return { required: [], properties: {}, sites: {} };
  const props = isObject(schema.value.properties) ? schema.value.properties : {};
  const properties: Record<string, LocatedSchema> = {};
  const sites: Record<string, LocatedSchema> = {};
  for (const [name, prop] of Object.entries(props)) {
    const at = `${schema.pointer}/properties/${escapePointer(name)}`;
    const located = unwrap(ctx, prop, at);
    if (located) properties[name] = located;
    if (isObject(prop)) sites[name] = { value: prop, pointer: at };
  }
  return { required: Array.isArray(schema.value.required) ? schema.value.required.map(String) : [], properties, sites };
}

function hasRequired(ctx: KitContext, pointer: string): boolean {
  const schema = unwrap(ctx, { $ref: pointer }, pointer);
  if (!schema) return false;
  if (Array.isArray(schema.value.required) && schema.value.required.length > 0) return true;
  return Array.isArray(schema.value.oneOf) && schema.value.oneOf.some((b, i) => {
    const branch = unwrap(ctx, b, `${schema.pointer}/oneOf/${i}`);
    return Array.isArray(branch?.value.required) && branch.value.required.length > 0;
  });
}

/** Whether some property of the body (or of a oneOf branch) has a bound, a pattern or a const/enum to break. */
function hasBounds(ctx: KitContext, pointer: string): boolean {
  const schema = unwrap(ctx, { $ref: pointer }, pointer);
  if (!schema) return false;
  const objects = Array.isArray(schema.value.oneOf)
    ? schema.value.oneOf.map((b, i) => unwrap(ctx, b, `${schema.pointer}/oneOf/${i}`)).filter((b): b is LocatedSchema => Boolean(b))
    : [schema];
  return objects.some((o) =>
    Object.entries(isObject(o.value.properties) ? o.value.properties : {}).some(([name, prop]) => {
      const located = unwrap(ctx, prop, `${o.pointer}/properties/${escapePointer(name)}`);
      return located !== undefined && violations(ctx, located.value, located.pointer).length > 0;
    }),
  );
}

export function exclusiveFields(ctx: KitContext, pointer: string): string[] | undefined {
  const schema = unwrap(ctx, { $ref: pointer }, pointer);
  const not = schema && isObject(schema.value.not) ? schema.value.not : undefined;
  return not && Array.isArray(not.required) ? not.required.map(String) : undefined;
}

/** The x-error-code of the body's `not` (mutually exclusive fields), if any. */
export function exclusiveCode(ctx: KitContext, pointer: string): string | undefined {
  const schema = unwrap(ctx, { $ref: pointer }, pointer);
  const not = schema && isObject(schema.value.not) ? schema.value.not : undefined;
  return not && typeof not['x-error-code'] === 'string' ? not['x-error-code'] : undefined;
}

/** Values for `fields` from the operation's request examples (each example may carry some of them). */
export function exampleValues(op: OperationModel, fields: string[]): JsonObject | undefined {
  const found: JsonObject = {};
  for (const example of op.requestExamples) {
    if (!isObject(example)) continue;
    for (const f of fields) if (!(f in found) && f in example) found[f] = example[f]!;
  }
  return fields.every((f) => f in found) ? found : undefined;
}

/** Values that break one constraint of a (property) schema: bounds, pattern, const/enum, multipleOf. Each
 *  carries the x-assumed-reason of the node it breaks (a constraint only the spec assumed). */
export function violations(ctx: KitContext, schema: JsonObject, pointer: string, inherited?: string): Candidate[] {
  const own = assumedReasonOf(schema) ?? inherited;
  const out: Candidate[] = [];
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const key = Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf';
    (schema[key] as Json[]).forEach((branch, i) => {
      const b = unwrap(ctx, branch, `${pointer}/${key}/${i}`);
      if (b) out.push(...violations(ctx, b.value, b.pointer, own));
    });
    return out;
  }
  const leaf = leafViolations(schema);
  return own ? leaf.map((c) => ({ ...c, assumedReason: own })) : leaf;
}

function leafViolations(schema: JsonObject): Candidate[] {
  const out: Candidate[] = [];
  if ('const' in schema) out.push({ value: `unsupported_${String(schema.const)}`, why: `not the const ${JSON.stringify(schema.const)}` });
  if (Array.isArray(schema.enum)) out.push({ value: 'unsupported_value', why: `not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  if (typeof schema.maxLength === 'number') out.push({ value: 'x'.repeat(schema.maxLength + 1), why: `longer than maxLength ${schema.maxLength}` });
  if (typeof schema.minLength === 'number' && schema.minLength > 0) out.push({ value: 'x'.repeat(schema.minLength - 1), why: `shorter than minLength ${schema.minLength}` });
  if (typeof schema.pattern === 'string') out.push({ value: '#not-matching#', why: `does not match ${schema.pattern}` });
  if (typeof schema.minimum === 'number') out.push({ value: schema.minimum - 1, why: `below minimum ${schema.minimum}` });
  if (typeof schema.exclusiveMinimum === 'number') out.push({ value: schema.exclusiveMinimum, why: `not above exclusiveMinimum ${schema.exclusiveMinimum}` });
  if (typeof schema.maximum === 'number') out.push({ value: schema.maximum + 1, why: `above maximum ${schema.maximum}` });
  if (typeof schema.exclusiveMaximum === 'number') out.push({ value: schema.exclusiveMaximum, why: `not below exclusiveMaximum ${schema.exclusiveMaximum}` });
  if (typeof schema.multipleOf === 'number') {
    const value = Number((1 + schema.multipleOf / 2).toPrecision(12));
    out.push({ value, why: `not a multiple of ${schema.multipleOf}` });
  }
  return out;
}

/**
 * What a property's site and the schemas it refers to say about a violation of that property: the error
 * code the nearest carrier gives (`x-error-code`, outermost first) and whether its NAME is assumed (x-assumed
 * on the site itself, the `$ref`/`allOf` wrapper under `properties`: that excuses only its absence).
 */
export function propertyFacts(ctx: KitContext, site: Json, pointer: string): { code: string | undefined; nameAssumed: string | undefined; valueAssumed: string | undefined } {
  const nameAssumed = assumedReasonOf(site);
  let code: string | undefined;
  let valueAssumed: string | undefined;
  let current: Json | undefined = site;
  let at = pointer;
  for (let hops = 0; isObject(current) && hops < 20; hops++) {
    if (typeof current['x-error-code'] === 'string') code ??= current['x-error-code'];
    if (hops > 0 || hasConstraints(current)) valueAssumed ??= assumedReasonOf(current);
    if (typeof current.$ref === 'string') {
      at = current.$ref;
      current = resolvePointer(ctx.api.doc, current.$ref);
    } else if (Array.isArray(current.allOf) && current.allOf.length === 1) {
      at = `${at}/allOf/0`;
      current = current.allOf[0];
    } else break;
  }
  return { code, nameAssumed, valueAssumed };
}

const CONSTRAINTS = ['type', 'const', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format', 'oneOf', 'properties', 'required'];
const hasConstraints = (node: JsonObject): boolean => CONSTRAINTS.some((k) => k in node);

/** The codes a rejection may carry when no single property's constraint decides: the catalog's validation
 *  code or any code the body's schema carries (a missing field, a body of the wrong type). */
export const looseCodes = (op: OperationModel): string[] => [VALIDATION_CODE, ...op.schemaCodes.keys()];

export { VALIDATION_CODE };

/** Keys that break the Idempotency-Key parameter's schema. */
export function keyViolations(schema: JsonObject): Candidate[] {
  const out: Candidate[] = [];
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (min > 0) out.push({ value: '', why: 'empty' });
  if (min > 1) out.push({ value: 'k'.repeat(min - 1), why: `shorter than minLength ${min}` });
  if (typeof schema.maxLength === 'number') out.push({ value: 'k'.repeat(schema.maxLength + 1), why: `longer than maxLength ${schema.maxLength}` });
  if (typeof schema.pattern === 'string') out.push({ value: `bad key!${'k'.repeat(Math.max(0, min - 8))}`, why: `does not match ${schema.pattern}` });
  return out;
}

