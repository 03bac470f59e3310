// Mutations: a valid request with exactly one thing broken, chosen from the spec (a required field, a type, a
// bound, a const/enum, mutually exclusive fields, the Idempotency-Key, the JSON itself). Each mutated body is
// confirmed invalid with the document's Ajv before it is sent, so an "invalid" request is never valid by accident.
import fc from 'fast-check';
import { isObject, type Json, type JsonObject } from '@payments/spec';
import type { KitContext } from './context.ts';
import type { RequestPlan } from './generate.ts';
import { escapePointer, locate, type OperationModel } from './spec-model.ts';

export type MutationKind =
  | 'missing-required'
  | 'wrong-type'
  | 'out-of-range'
  | 'exclusive-fields'
  | 'idempotency-key-missing'
  | 'idempotency-key-invalid'
  | 'malformed-json';

interface Candidate {
  value: Json;
  why: string;
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

function mutatorsFor(ctx: KitContext, op: OperationModel): Mutator[] {
  const list: Mutator[] = [];
  const invalid = (plan: RequestPlan, kind: MutationKind, description: string, change: Partial<RequestPlan>): RequestPlan => ({
    ...plan,
    ...change,
    kind: 'invalid',
    mutation: kind,
    description,
  });
  if (op.body) {
    const bodyPointer = op.body.schemaPointer;
    const validate = ctx.api.validator.compile({ $ref: bodyPointer });
    const isInvalid = (value: Json) => validate(value) !== true;
    const jsonOf = (plan: RequestPlan): Json | undefined => (plan.body && 'json' in plan.body ? plan.body.json : undefined);

    if (hasRequired(ctx, bodyPointer)) {
      list.push({
        kind: 'missing-required',
        apply(plan, pick) {
          const body = jsonOf(plan);
          if (!isObject(body)) return undefined;
          const present = objectSchema(ctx, bodyPointer, body).required.filter((name) => name in body);
          const name = present[pick % Math.max(present.length, 1)];
          if (name === undefined) return undefined;
          const copy = { ...body };
          delete copy[name];
          if (!isInvalid(copy)) return undefined;
          return invalid(plan, 'missing-required', `missing required field "${name}"`, { body: { json: copy } });
        },
      });
    }
    list.push({
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
          return invalid(plan, 'wrong-type', `wrong type: ${where} is ${jsonType(replacement)} ${JSON.stringify(replacement)} instead of ${jsonType(original)}`, { body: { json: mutated } });
        }
        return undefined;
      },
    });
    if (hasBounds(ctx, bodyPointer)) {
      list.push({
        kind: 'out-of-range',
        apply(plan, pick) {
          const body = jsonOf(plan);
          if (!isObject(body)) return undefined;
          const { properties } = objectSchema(ctx, bodyPointer, body);
          const options: { name: string; candidate: Candidate }[] = [];
          for (const name of Object.keys(body)) {
            const prop = properties[name];
            if (!prop) continue;
            for (const candidate of violations(ctx, prop.value, prop.pointer)) options.push({ name, candidate });
          }
          const usable = options.filter(({ name, candidate }) => isInvalid({ ...body, [name]: candidate.value }));
          const chosen = usable[pick % Math.max(usable.length, 1)];
          if (!chosen) return undefined;
          return invalid(plan, 'out-of-range', `out of range: field "${chosen.name}" = ${short(chosen.candidate.value)} (${chosen.candidate.why})`, {
            body: { json: { ...body, [chosen.name]: chosen.candidate.value } },
          });
        },
      });
    }
    const exclusive = exclusiveFields(ctx, bodyPointer);
    if (exclusive) {
      const sample = exampleValues(op, exclusive);
      if (sample) {
        list.push({
          kind: 'exclusive-fields',
          apply(plan) {
            const body = jsonOf(plan);
            if (!isObject(body)) return undefined;
            const mutated = { ...body, ...sample };
            if (!isInvalid(mutated)) return undefined;
            return invalid(plan, 'exclusive-fields', `mutually exclusive fields together: ${exclusive.map((f) => `"${f}"`).join(' and ')}`, { body: { json: mutated } });
          },
        });
      }
    }
    if (ctx.target !== 'prism') {
      list.push({
        kind: 'malformed-json',
        apply(plan) {
          const body = jsonOf(plan);
          if (body === undefined) return undefined;
          const text = JSON.stringify(body);
          const raw = text.length > 1 ? text.slice(0, -1) : '{';
          return invalid(plan, 'malformed-json', `malformed JSON body ${short(raw)}`, { body: { raw } });
        },
      });
    }
  }
  const key = op.idempotencyKey;
  if (key?.required) {
    list.push({
      kind: 'idempotency-key-missing',
      apply: (plan) => invalid(plan, 'idempotency-key-missing', `no ${key.name} header`, { idempotencyKey: null, freshKey: false }),
    });
  }
  if (key) {
    const validateKey = ctx.api.validator.compile({ $ref: key.schemaPointer });
    const candidates = keyViolations(key.schema).filter((c) => validateKey(c.value) !== true);
    if (candidates.length > 0) {
      list.push({
        kind: 'idempotency-key-invalid',
        apply(plan, pick) {
          const c = candidates[pick % candidates.length]!;
          return invalid(plan, 'idempotency-key-invalid', `malformed ${key.name}: ${short(c.value)} (${c.why})`, { idempotencyKey: String(c.value), freshKey: false });
        },
      });
    }
  }
  return list;
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
function objectSchema(ctx: KitContext, pointer: string, body: JsonObject): { required: string[]; properties: Record<string, LocatedSchema> } {
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
  if (!schema) return { required: [], properties: {} };
  const props = isObject(schema.value.properties) ? schema.value.properties : {};
  const properties: Record<string, LocatedSchema> = {};
  for (const [name, prop] of Object.entries(props)) {
    const located = unwrap(ctx, prop, `${schema.pointer}/properties/${escapePointer(name)}`);
    if (located) properties[name] = located;
  }
  return { required: Array.isArray(schema.value.required) ? schema.value.required.map(String) : [], properties };
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

function exclusiveFields(ctx: KitContext, pointer: string): string[] | undefined {
  const schema = unwrap(ctx, { $ref: pointer }, pointer);
  const not = schema && isObject(schema.value.not) ? schema.value.not : undefined;
  return not && Array.isArray(not.required) ? not.required.map(String) : undefined;
}

/** Values for `fields` from the operation's request examples (each example may carry some of them). */
function exampleValues(op: OperationModel, fields: string[]): JsonObject | undefined {
  const found: JsonObject = {};
  for (const example of op.requestExamples) {
    if (!isObject(example)) continue;
    for (const f of fields) if (!(f in found) && f in example) found[f] = example[f]!;
  }
  return fields.every((f) => f in found) ? found : undefined;
}

/** Values that break one constraint of a (property) schema: bounds, pattern, const/enum, multipleOf. */
function violations(ctx: KitContext, schema: JsonObject, pointer: string): Candidate[] {
  const out: Candidate[] = [];
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const key = Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf';
    (schema[key] as Json[]).forEach((branch, i) => {
      const b = unwrap(ctx, branch, `${pointer}/${key}/${i}`);
      if (b) out.push(...violations(ctx, b.value, b.pointer));
    });
    return out;
  }
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

/** Keys that break the Idempotency-Key parameter's schema. */
function keyViolations(schema: JsonObject): Candidate[] {
  const out: Candidate[] = [];
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  if (min > 0) out.push({ value: '', why: 'empty' });
  if (min > 1) out.push({ value: 'k'.repeat(min - 1), why: `shorter than minLength ${min}` });
  if (typeof schema.maxLength === 'number') out.push({ value: 'k'.repeat(schema.maxLength + 1), why: `longer than maxLength ${schema.maxLength}` });
  if (typeof schema.pattern === 'string') out.push({ value: `bad key!${'k'.repeat(Math.max(0, min - 8))}`, why: `does not match ${schema.pattern}` });
  return out;
}

