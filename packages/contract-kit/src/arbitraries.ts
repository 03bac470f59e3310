// A small JSON Schema → fast-check converter for the subset the spec uses (its lint rules keep it there):
// $ref, single allOf wrappers, type, const, enum, oneOf (by const or by type), pattern (fc.stringMatching),
// minLength/maxLength, minimum/maximum (exclusive too), multipleOf (decimal steps such as 0.01), properties,
// required, `not: {required}`, items. Anything else is refused with the pointer, never guessed. Every value is
// checked with the document's own Ajv validator afterwards, so the converter cannot silently drift from it.
import fc from 'fast-check';
import { isObject, type Json, type JsonObject, type OpenApiDocument, type SpecValidator } from '@payments/spec';
import { escapePointer, locate } from './spec-model.ts';

export class UnsupportedSchema extends Error {}

/** Which characters free-text strings are made of. */
export type StringUnit = 'text' | 'header' | 'path';

export interface ArbitraryOptions {
  unit: StringUnit;
  /** Upper bound for numbers the schema leaves unbounded. */
  maxNumber?: number;
}

const SIMPLE_KEYWORDS = new Set([
  'type', 'const', 'enum', 'oneOf', 'allOf', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'multipleOf', 'properties', 'required', 'not', 'items', 'minItems', 'maxItems', 'format', 'additionalProperties',
  '$ref', 'title', 'description', 'example', 'examples', 'default', 'readOnly', 'writeOnly', 'deprecated',
]);

const HEADER_CHARS = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));
// Path segments: URL-unreserved characters only (dot segments and encoded slashes are routing questions, not the contract's).
const PATH_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'];

function unitArbitrary(unit: StringUnit): fc.Arbitrary<string> | 'grapheme-ascii' {
  if (unit === 'header') return fc.constantFrom(...HEADER_CHARS);
  if (unit === 'path') return fc.constantFrom(...PATH_CHARS);
  return 'grapheme-ascii'; // printable ASCII: JSON-safe and the same length for every validator
}

export function schemaArbitrary(doc: OpenApiDocument, validator: SpecValidator, schemaPointer: string, schema: Json, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const arb = build(doc, schema, schemaPointer, options);
  const validate = validator.compile({ $ref: schemaPointer });
  return arb.filter((value) => validate(value) === true);
}

function build(doc: OpenApiDocument, value: Json, pointer: string, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const loc = locate(doc, value, pointer);
  if (!loc) {
    if (value === true) return fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>;
    throw new UnsupportedSchema(`${pointer}: not a schema object`);
  }
  const s = loc.node;
  const at = loc.pointer;
  for (const key of Object.keys(s)) {
    if (!SIMPLE_KEYWORDS.has(key) && !key.startsWith('x-')) throw new UnsupportedSchema(`${at}: keyword "${key}" is outside the generator's subset`);
  }
  if ('const' in s) return fc.constant(s.const!);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.allOf)) {
    if (s.allOf.length !== 1) throw new UnsupportedSchema(`${at}: allOf with ${s.allOf.length} parts`);
    const own = Object.keys(s).filter((k) => !['allOf', 'title', 'description', 'example', 'examples', 'default'].includes(k) && !k.startsWith('x-'));
    if (own.length > 0) throw new UnsupportedSchema(`${at}: allOf next to ${own.join(', ')}`);
    return build(doc, s.allOf[0]!, `${at}/allOf/0`, options);
  }
  if (Array.isArray(s.oneOf)) {
    return fc.oneof(...s.oneOf.map((branch, i) => build(doc, branch, `${at}/oneOf/${i}`, options)));
  }
  const types = Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : inferType(s, at);
  return fc.oneof(...types.map((type) => byType(doc, s, at, type, options)));
}

function inferType(s: JsonObject, at: string): string[] {
  if (isObject(s.properties) || Array.isArray(s.required)) return ['object'];
  throw new UnsupportedSchema(`${at}: no type`);
}

function byType(doc: OpenApiDocument, s: JsonObject, at: string, type: string, options: ArbitraryOptions): fc.Arbitrary<Json> {
  switch (type) {
    case 'string':
      return stringArbitrary(s, at, options);
    case 'integer':
    case 'number':
      return numberArbitrary(s, type, options);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = s.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : build(doc, s.items, `${at}/items`, options);
      return fc.array(items as fc.Arbitrary<Json>, { minLength: num(s.minItems) ?? 0, maxLength: Math.min(num(s.maxItems) ?? 4, 4) });
    }
    case 'object':
      return objectArbitrary(doc, s, at, options);
    default:
      throw new UnsupportedSchema(`${at}: type ${type}`);
  }
}

const num = (v: Json | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

function stringArbitrary(s: JsonObject, at: string, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const minLength = num(s.minLength) ?? 0;
  const maxLength = num(s.maxLength) ?? 64;
  if (s.format === 'uuid') return fc.uuid();
  if (typeof s.pattern === 'string') {
    let regex: RegExp;
    try {
      regex = new RegExp(s.pattern);
    } catch {
      throw new UnsupportedSchema(`${at}: pattern ${s.pattern} is not a JavaScript regex`);
    }
    return fc.stringMatching(regex, { maxLength }).filter((v) => v.length >= minLength);
  }
  return fc.string({ unit: unitArbitrary(options.unit), minLength, maxLength });
}

function numberArbitrary(s: JsonObject, type: string, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const exclusiveMin = num(s.exclusiveMinimum);
  const exclusiveMax = num(s.exclusiveMaximum);
  const min = num(s.minimum) ?? exclusiveMin ?? -(options.maxNumber ?? 1e9);
  const max = num(s.maximum) ?? exclusiveMax ?? options.maxNumber ?? 1e9;
  const step = num(s.multipleOf) ?? (type === 'integer' ? 1 : undefined);
  if (step !== undefined) {
    // Values k·step, k an integer; a decimal step (0.01) divides exactly as k / (1/step), which prints as
    // the decimal it means (0.07, not 0.07000000000000001).
    const inverse = Math.round(1 / step);
    const exactInverse = step < 1 && Math.abs(inverse * step - 1) < 1e-12;
    const toValue = (k: number) => (exactInverse ? k / inverse : k * step);
    let kMin = Math.ceil(min / step - 1e-9);
    let kMax = Math.floor(max / step + 1e-9);
    if (exclusiveMin !== undefined && toValue(kMin) <= exclusiveMin) kMin++;
    if (exclusiveMax !== undefined && toValue(kMax) >= exclusiveMax) kMax--;
    kMin = Math.max(kMin, -2_147_483_647);
    kMax = Math.min(kMax, 2_147_483_647);
    return fc.integer({ min: kMin, max: kMax }).map(toValue);
  }
  return fc.double({
    min,
    max,
    minExcluded: exclusiveMin !== undefined,
    maxExcluded: exclusiveMax !== undefined,
    noNaN: true,
    noDefaultInfinity: true,
  }).map((v) => (Object.is(v, -0) ? 0 : v));
}

function objectArbitrary(doc: OpenApiDocument, s: JsonObject, at: string, options: ArbitraryOptions): fc.Arbitrary<Json> {
  const properties = isObject(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.map(String) : [];
  const names = Object.keys(properties);
  if (names.length === 0) {
    // An open object whose fields the document does not name: a few simple, unambiguous extra fields.
    const key = fc.stringMatching(/^[a-z][a-zA-Z]{0,11}$/);
    const leaf = fc.oneof(fc.string({ maxLength: 16 }), fc.integer(), fc.boolean());
    return fc.dictionary(key, leaf, { maxKeys: 3 }) as fc.Arbitrary<Json>;
  }
  const model: Record<string, fc.Arbitrary<Json>> = {};
  for (const name of names) model[name] = build(doc, properties[name]!, `${at}/properties/${escapePointer(name)}`, options);
  let arb = fc.record(model, { requiredKeys: required.filter((r) => r in model) }) as fc.Arbitrary<JsonObject>;
  const not = isObject(s.not) ? s.not : undefined;
  if (not) {
    const keys = Object.keys(not).filter((k) => !k.startsWith('x-') && k !== 'description');
    if (keys.length !== 1 || !Array.isArray(not.required)) throw new UnsupportedSchema(`${at}/not: only not.required is supported`);
    const exclusive = not.required.map(String);
    // Drop one of the mutually exclusive fields when all are present (keeps the distribution, no filtering).
    arb = fc.tuple(arb, fc.nat()).map(([obj, pick]) => {
      if (!exclusive.every((k) => k in obj)) return obj;
      const copy = { ...obj };
      delete copy[exclusive[pick % exclusive.length]!];
      return copy;
    });
  }
  return arb as fc.Arbitrary<Json>;
}
