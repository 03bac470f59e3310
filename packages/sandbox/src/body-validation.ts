// Request bodies checked as the spec says: Ajv validators made exact on decimal fields, and the error code a
// refused body gets (the `x-error-code` of the field, of a oneOf's discriminating property, or of a `not`
// rule; invalid_request otherwise). Nothing here names a field or a code: both come from the schemas.
import { deref, isObject, type Json, type JsonObject, type OpenApiDocument, type SpecValidator } from '@payments/spec';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { heldExactly, InvalidAmount, normalizeAmount, plainDecimal } from './money.ts';

export const INVALID_REQUEST = 'invalid_request';

/**
 * Why a body was refused: its code, and the errors that count (for a oneOf told apart by a property, those of
 * the branch the body names: Ajv's first error is the first branch's, e.g. "must have required property
 * 'pixKey'" for a usd_ach recipient whose nickname is empty).
 */
export interface BodyRefusal {
  code: string;
  errors: readonly ErrorObject[];
}

export interface BodyValidation {
  /** The operation's body validator, exact on its decimal fields. */
  validatorFor(operationId: string, bodySchema: JsonObject): ValidateFunction;
  /** The spec's code for a body that failed validation, and the errors that decided it. */
  refusal(bodySchema: JsonObject | undefined, data: unknown, errors: ErrorObject[]): BodyRefusal;
}

export function bodyValidation(doc: OpenApiDocument, validator: SpecValidator): BodyValidation {
  const branchValidators = new WeakMap<JsonObject, ValidateFunction>();
  const branchValidator = (schema: JsonObject): ValidateFunction => {
    let fn = branchValidators.get(schema);
    if (!fn) branchValidators.set(schema, (fn = validator.compile(schema)));
    return fn;
  };
  return {
    validatorFor: (operationId, bodySchema) => exactDecimals(doc, validator, operationId, bodySchema, validator.compile(bodySchema)),
    refusal: (bodySchema, data, errors) => bodyRefusal(doc, branchValidator, bodySchema, data, errors),
  };
}

/** Each JSON number no double holds exactly, as its plain decimal text, by the object and key it was read into (readJson). */
const inexactNumbers = new WeakMap<object, Map<string, string>>();

/**
 * JSON.parse, noting each number that no double holds exactly with the decimal it was sent as: 99999999999999.99
 * parses to the double that prints 99999999999999.98, and 37.45000000000000001 to 37.45. A decimal field
 * (exactDecimals) is then judged by that text, as the document means: "37.45" equals 37.45, and an amount has
 * at most two decimal places. `context.source` is Node 22's and later's.
 */
export function readJson(text: string): unknown {
  return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && context?.source !== undefined && !heldExactly(context.source, value)) {
      let texts = inexactNumbers.get(this);
      if (!texts) inexactNumbers.set(this, (texts = new Map()));
      texts.set(key, plainDecimal(context.source) ?? context.source);
    }
    return value;
  });
}

/** Follows $ref and single-entry allOf wrappers, collecting the first x-error-code met on the way. */
function unwrap(doc: OpenApiDocument, schema: Json): { schema: JsonObject | undefined; code: string | undefined } {
  let code: string | undefined;
  let current = deref(doc, schema);
  for (let i = 0; i < 10 && isObject(current); i++) {
    if (!code && typeof current['x-error-code'] === 'string') code = current['x-error-code'];
    if (Array.isArray(current.allOf) && current.allOf.length === 1) current = deref(doc, current.allOf[0]!);
    else break;
  }
  return { schema: isObject(current) ? current : undefined, code };
}

/** The multipleOf of a number schema, or of the number branch of a oneOf/anyOf: a decimal field's step. */
function decimalStep(doc: OpenApiDocument, schema: JsonObject): number | undefined {
  const candidates = [schema, ...[...((schema.oneOf ?? []) as Json[]), ...((schema.anyOf ?? []) as Json[])].map((b) => unwrap(doc, b).schema)];
  for (const candidate of candidates) {
    if (candidate?.type === 'number' && typeof candidate.multipleOf === 'number') return candidate.multipleOf;
  }
  return undefined;
}

/** Top-level properties of a body schema, those of a oneOf's object branches included. */
function bodyProperties(doc: OpenApiDocument, schema: Json): [string, Json][] {
  const top = unwrap(doc, schema).schema;
  if (!top) return [];
  const objects = [top, ...((Array.isArray(top.oneOf) ? top.oneOf : []) as Json[]).map((b) => unwrap(doc, b).schema)];
  return objects.flatMap((o) => (o && isObject(o.properties) ? Object.entries(o.properties) : []));
}

/** For a oneOf of objects told apart by a required const property: that property's name. */
function discriminator(doc: OpenApiDocument, branches: JsonObject[]): string | undefined {
  const first = branches[0];
  for (const prop of (first?.required ?? []) as string[]) {
    if (branches.every((b) => isObject(b.properties) && isObject(deref(doc, b.properties[prop] ?? null)) && 'const' in (deref(doc, b.properties[prop] ?? null) as JsonObject))) {
      return prop;
    }
  }
  return undefined;
}

/** The code of a refused body: its oneOf branch's, its `not` rule's, or the first refused field's. */
function bodyRefusal(
  doc: OpenApiDocument,
  branchValidator: (schema: JsonObject) => ValidateFunction,
  bodySchema: JsonObject | undefined,
  data: unknown,
  errors: ErrorObject[],
): BodyRefusal {
  let schema = unwrap(doc, bodySchema ?? null).schema;
  // A oneOf told apart by a const property: a value no branch has gets that property's code; otherwise
  // the errors that matter are those of the branch the value selects.
  if (schema && Array.isArray(schema.oneOf) && isObject(data)) {
    const branches = schema.oneOf.map((b) => unwrap(doc, b).schema).filter((b): b is JsonObject => Boolean(b));
    const prop = discriminator(doc, branches);
    if (prop) {
      const branch = branches.find((b) => (deref(doc, (b.properties as JsonObject)[prop]!) as JsonObject).const === data[prop]);
      if (!branch) return { code: unwrap(doc, (branches[0]!.properties as JsonObject)[prop]!).code ?? INVALID_REQUEST, errors: errors.filter((e) => e.instancePath === `/${prop}`) };
      schema = branch;
      const own = branchValidator(branch);
      own(data);
      if (own.errors?.length) errors = [...own.errors]; // else: the exact-decimal errors, kept
    }
  }
  // A body that is not an object is that, whatever rule it also breaks vacuously (edge QA: `null` on a
  // checkout session was told "both amount and discountPercent were supplied", by the schema's `not`).
  const notAnObject = isObject(data) ? [] : errors.filter((e) => e.keyword === 'type' && e.instancePath === '');
  if (notAnObject.length > 0) return { code: INVALID_REQUEST, errors: notAnObject };
  for (const error of errors) {
    if (error.keyword === 'not' && error.instancePath === '' && isObject(schema?.not) && typeof schema.not['x-error-code'] === 'string') {
      return { code: schema.not['x-error-code'], errors };
    }
    const [, field] = error.instancePath.split('/');
    if (!field || !schema || !isObject(schema.properties)) continue;
    const prop = schema.properties[field.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (prop === undefined) continue;
    const { schema: target, code } = unwrap(doc, prop);
    const nested = target ? unwrap(doc, target).code : undefined;
    if (code ?? nested) return { code: (code ?? nested)!, errors };
  }
  return { code: INVALID_REQUEST, errors };
}

/**
 * The body validator, exact on decimal fields (a number schema with `multipleOf`, e.g. the spec's Amount).
 * A number no double holds exactly is first put back as the decimal it was sent as (readJson), a string; any
 * other the spec's validator reads by its shortest round-trip decimal (String(n), @payments/spec's
 * decimal.ts). Here that decimal must also have a canonical form the sandbox can store and answer
 * (money.ts, integer cents) that is itself valid for the field (e.g. within the string form's length), as
 * every response is checked against the spec. A refusal is an error at the field's path, so the field's
 * code applies (bodyErrorCode).
 */
function exactDecimals(doc: OpenApiDocument, validator: SpecValidator, operationId: string, bodySchema: JsonObject, compiled: ValidateFunction): ValidateFunction {
  const fields = bodyProperties(doc, bodySchema).flatMap(([name, schema]) => {
    const target = unwrap(doc, schema).schema;
    const step = target ? decimalStep(doc, target) : undefined;
    if (step === undefined) return [];
    // money.ts keeps amounts in integer cents: a field of another step would need another unit.
    if (step !== 0.01) throw new Error(`${operationId}: the sandbox keeps amounts in cents, but ${name} has multipleOf ${step}`);
    return [{ name, canonicalValid: validator.compile(schema as JsonObject) }];
  });
  if (fields.length === 0) return compiled;
  const validate = ((data: unknown) => {
    // A number no double holds is judged, and kept, as the decimal text it was sent as (readJson).
    const texts = isObject(data) ? inexactNumbers.get(data) : undefined;
    for (const { name } of texts ? fields : []) {
      const text = texts!.get(name);
      if (text !== undefined) (data as JsonObject)[name] = text;
    }
    const ok = compiled(data);
    validate.errors = ok ? null : saidPlainly(compiled.errors ?? [], data, fields.map((f) => f.name));
    if (!ok || !isObject(data)) return ok;
    const errors: ErrorObject[] = [];
    for (const { name, canonicalValid } of fields) {
      const value = data[name];
      if (value === undefined) continue;
      let canonical: string;
      try {
        canonical = normalizeAmount(value);
      } catch (err) {
        if (!(err instanceof InvalidAmount)) throw err;
        errors.push(amountRuleError(name, value));
        continue;
      }
      if (!canonicalValid(canonical)) errors.push(fieldError(name, `is out of range: its canonical form ${canonical} is not a valid amount`, { canonical }));
    }
    if (errors.length === 0) return true;
    validate.errors = errors;
    return false;
  }) as ValidateFunction;
  return Object.assign(validate, { schema: compiled.schema, schemaEnv: compiled.schemaEnv });
}

/**
 * Ajv's errors at a decimal field ("must be number" from the oneOf's other branch for a string, "must match
 * pattern ^(?:0\.(…" for it) as one that says the rule, first; the other fields' errors after it, as Ajv gave them.
 */
function saidPlainly(errors: readonly ErrorObject[], data: unknown, names: readonly string[]): ErrorObject[] {
  const failed = names.filter((name) => errors.some((e) => e.instancePath === fieldPath(name)));
  const plain = failed.map((name) => amountRuleError(name, isObject(data) ? data[name] : undefined));
  return [...plain, ...errors.filter((e) => !failed.some((name) => e.instancePath === fieldPath(name)))];
}

/** The amount rule, said at the field that breaks it. */
const amountRuleError = (name: string, value: unknown): ErrorObject =>
  fieldError(name, `must be a positive decimal with at most two decimal places, as a number or a string (${JSON.stringify(value) ?? 'undefined'} is not)`, { multipleOf: 0.01 });

/** The JSON pointer of a top-level field, as Ajv's instancePath writes it. */
const fieldPath = (name: string) => `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/** An Ajv-shaped error at a top-level field (so bodyErrorCode finds the field's code). */
function fieldError(name: string, message: string, params: Record<string, unknown>): ErrorObject {
  return {
    instancePath: fieldPath(name),
    schemaPath: `#/properties/${name}`,
    keyword: 'multipleOf',
    params,
    message,
  };
}
