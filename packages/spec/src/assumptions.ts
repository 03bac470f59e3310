// Every conventional choice the contract makes where the provider's document is silent: nodes marked
// `x-assumed: true`, with their JSON pointer in the bundled document and their reason.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { isObject, resolvePointer, type Json, type JsonObject, type OpenApiDocument } from './document.ts';
import type { SpecValidator } from './validator.ts';

export interface Assumption {
  pointer: string;
  reason: string;
}

export function assumptions(doc: OpenApiDocument): Assumption[] {
  const found: Assumption[] = [];
  const visit = (node: Json, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => visit(child, `${pointer}/${i}`));
      return;
    }
    if (!isObject(node)) return;
    if (node['x-assumed'] === true) found.push({ pointer: pointer || '/', reason: String(node['x-assumed-reason'] ?? '') });
    for (const [key, child] of Object.entries(node)) visit(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(doc, '');
  return found;
}

export const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

export interface Located {
  node: JsonObject;
  /** Where the node lives, e.g. `#/components/responses/Unauthorized`. */
  pointer: string;
  /** The x-assumed-reason of the node or of a $ref site on the way to it. */
  assumedReason: string | undefined;
}

/** Follows $refs from `value` (found at `pointer`) to the node they name. */
export function locate(doc: OpenApiDocument, value: Json | undefined, pointer: string): Located | undefined {
  let current: Json | undefined = value;
  let at = pointer;
  let assumedReason: string | undefined;
  for (let hops = 0; isObject(current); hops++) {
    assumedReason ??= assumedReasonOf(current);
    if (typeof current.$ref !== 'string') return { node: current, pointer: at, assumedReason };
    if (hops > 20) throw new Error(`$ref cycle at ${at}`);
    at = current.$ref;
    current = resolvePointer(doc, current.$ref);
  }
  return undefined;
}

export function assumedReasonOf(node: Json | undefined): string | undefined {
  if (!isObject(node) || node['x-assumed'] !== true) return undefined;
  return typeof node['x-assumed-reason'] === 'string' ? node['x-assumed-reason'] : 'marked x-assumed (no reason given)';
}

// The x-assumed rule (moved here from the contract kit so the sandbox's client audit applies it too): where
// the provider's document is silent the spec makes a conventional choice marked `x-assumed: true`; a mismatch
// only there is not the provider's rule. Two questions, answered on the document itself:
//  - was the mismatch ONLY on assumptions? The value is checked again against a relaxed copy of the schema
//    in which every x-assumed node accepts anything (and an assumed property is no longer required);
//  - which assumption? The nearest x-assumed node on the path of the failing value (or missing property).

const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);
const SUBSCHEMA = new Set(['items', 'additionalProperties', 'contains', 'propertyNames']);

export class Assumptions {
  readonly #doc: OpenApiDocument;
  readonly #validator: SpecValidator;
  readonly #relaxed = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument, validator: SpecValidator) {
    this.#doc = doc;
    this.#validator = validator;
  }

  /** A validator of the schema at `schemaPointer` with every x-assumed node relaxed away. */
  relaxedValidator(schemaPointer: string): ValidateFunction {
    let fn = this.#relaxed.get(schemaPointer);
    if (!fn) {
      const schema = relax(this.#doc, resolvePointer(this.#doc, schemaPointer), schemaPointer, new Set());
      fn = this.#validator.compile(isObject(schema) ? schema : {});
      this.#relaxed.set(schemaPointer, fn);
    }
    return fn;
  }

  /**
   * The nearest x-assumed node on the way from the schema at `schemaPointer` to the value at `instancePath`
   * (one step further into `missingProperty` for a `required` error). Every branch of allOf/oneOf/anyOf is
   * followed; the deepest assumption met wins.
   */
  nearest(schemaPointer: string, instancePath: string, missingProperty?: string): Assumption | undefined {
    const segments = instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (missingProperty !== undefined) segments.push(missingProperty);
    let cursors = this.#expand({ value: resolvePointer(this.#doc, schemaPointer), pointer: schemaPointer, nearest: undefined, depth: 0 });
    let best: Assumption | undefined;
    let bestDepth = -1;
    const consider = (list: Cursor[]) => {
      for (const c of list) if (c.nearest && c.depth >= bestDepth) [best, bestDepth] = [c.nearest, c.depth];
    };
    consider(cursors);
    for (const segment of segments) {
      const next: Cursor[] = [];
      for (const c of cursors) {
        const node = c.value;
        if (!isObject(node)) continue;
        const depth = c.depth + 1;
        if (isObject(node.properties) && segment in node.properties) {
          next.push(...this.#expand({ value: node.properties[segment]!, pointer: `${c.pointer}/properties/${escapePointer(segment)}`, nearest: c.nearest, depth }));
        } else if (/^\d+$/.test(segment) && isObject(node.items)) {
          next.push(...this.#expand({ value: node.items, pointer: `${c.pointer}/items`, nearest: c.nearest, depth }));
        } else if (isObject(node.additionalProperties)) {
          next.push(...this.#expand({ value: node.additionalProperties, pointer: `${c.pointer}/additionalProperties`, nearest: c.nearest, depth }));
        }
      }
      if (next.length === 0) break;
      cursors = next;
      consider(cursors);
    }
    return best;
  }

  /**
   * For a value that failed the schema: whether it passes once assumptions are relaxed, and the assumptions
   * nearest to each failing location (deduplicated).
   */
  explain(schemaPointer: string, value: unknown, errors: readonly ErrorObject[]): { onlyAssumptions: boolean; assumptions: Assumption[] } {
    const onlyAssumptions = this.relaxedValidator(schemaPointer)(value) === true;
    const found = new Map<string, Assumption>();
    for (const error of errors) {
      const missing = error.keyword === 'required' ? String((error.params as { missingProperty?: string }).missingProperty) : undefined;
      const a = this.nearest(schemaPointer, error.instancePath, missing);
      if (a) found.set(a.pointer, a);
    }
    return { onlyAssumptions, assumptions: [...found.values()] };
  }

  #expand(cursor: Cursor): Cursor[] {
    const loc = locate(this.#doc, cursor.value, cursor.pointer);
    if (!loc) return [];
    const here: Cursor = {
      value: loc.node,
      pointer: loc.pointer,
      nearest: loc.assumedReason ? { pointer: loc.pointer, reason: loc.assumedReason } : cursor.nearest,
      depth: cursor.depth,
    };
    const out = [here];
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const branches = loc.node[key];
      if (!Array.isArray(branches)) continue;
      branches.forEach((branch, i) => out.push(...this.#expand({ value: branch, pointer: `${loc.pointer}/${key}/${i}`, nearest: here.nearest, depth: cursor.depth })));
    }
    return out;
  }
}

interface Cursor {
  value: Json;
  pointer: string;
  nearest: Assumption | undefined;
  depth: number;
}

/**
 * A copy of the schema with $refs inlined and each assumption relaxed to exactly what it assumes, and oneOf
 * read as anyOf (an accept-anything branch would otherwise break exclusivity):
 *  - x-assumed on a property's site (the `$ref` / `allOf` wrapper under `properties`) assumes the NAME: the
 *    property leaves `required`, and a value present under that name is still checked against what the
 *    site refers to (a `status` outside the documented enum still fails);
 *  - x-assumed on the schema a property refers to (Nickname's length, a key's bounds, an id's format, a body
 *    the provider never showed) assumes that schema's CONSTRAINTS: they are relaxed, but the property stays
 *    required (a recipient without its documented `nickname` still fails).
 * Nothing inside a `not` is relaxed (that would make it stricter); an assumed `not` is dropped.
 */
function relax(doc: OpenApiDocument, value: Json, pointer: string, stack: Set<string>): Json {
  if (isNameSite(value)) {
    const { 'x-assumed': _a, 'x-assumed-reason': _r, ...inner } = value as JsonObject;
    return relax(doc, inner, pointer, stack);
  }
  const loc = locate(doc, value, pointer);
  if (!loc) return value;
  if (stack.has(loc.pointer)) return {};
  if (loc.assumedReason) return {};
  stack.add(loc.pointer);
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(loc.node)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key) || key === '$ref') continue;
    if (key === 'properties' && isObject(child)) {
      out.properties = Object.fromEntries(
        Object.entries(child).map(([name, prop]) => [name, relax(doc, prop, `${loc.pointer}/properties/${escapePointer(name)}`, stack)]),
      );
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(child)) {
      out[key === 'oneOf' ? 'anyOf' : key] = child.map((branch, i) => relax(doc, branch, `${loc.pointer}/${key}/${i}`, stack));
    } else if (SUBSCHEMA.has(key) && isObject(child)) {
      out[key] = relax(doc, child, `${loc.pointer}/${key}`, stack);
    } else if (key === 'not') {
      const negated = locate(doc, child, `${loc.pointer}/not`);
      if (negated && !negated.assumedReason) out.not = inline(doc, negated.node, new Set());
    } else if (key === 'required' && Array.isArray(child)) {
      const props = isObject(loc.node.properties) ? loc.node.properties : {};
      // Only an assumed NAME excuses a missing property; an assumed bound of its value does not.
      out.required = child.filter((name) => !isNameSite(props[String(name)]));
    } else {
      out[key] = child;
    }
  }
  stack.delete(loc.pointer);
  return out;
}

/** $refs inlined, nothing relaxed (for the inside of a `not`). */
function inline(doc: OpenApiDocument, value: Json, stack: Set<string>): Json {
  if (Array.isArray(value)) return value.map((v) => inline(doc, v, stack));
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') {
    if (stack.has(value.$ref)) return {};
    stack.add(value.$ref);
    const resolved = inline(doc, resolvePointer(doc, value.$ref), stack);
    stack.delete(value.$ref);
    return resolved;
  }
  return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('x-')).map(([k, v]) => [k, inline(doc, v, stack)]));
}

/** A property site that only names its value (a `$ref` or a single `allOf`, plus annotations) and is x-assumed:
 *  the assumption is the property's name. A site with constraints of its own (`type: boolean, x-assumed`)
 *  assumes those too, and is relaxed like any node. */
function isNameSite(value: Json | undefined): boolean {
  if (!isObject(value) || value['x-assumed'] !== true) return false;
  const own = Object.keys(value).filter((k) => !k.startsWith('x-') && !ANNOTATIONS.has(k));
  return own.length === 1 && (own[0] === '$ref' || (own[0] === 'allOf' && Array.isArray(value.allOf) && value.allOf.length === 1));
}
