// Compares two JSON Schemas (2020-12, as OpenAPI 3.1 uses them) in a direction: what a REQUEST schema may
// accept, or what a RESPONSE schema may promise. It only finds changes and names their kind (rules.ts
// gives the verdict). `$ref`s are followed in each document; `allOf` members are merged into one view;
// `oneOf`/`anyOf` alternatives are matched to each other (by $ref target, title, a const property, type).
import { deepEqual, isObject, pointer, show, type Doc, type Json, type Located } from './json.ts';
import { patternProvablyWidens } from './patterns.ts';
import type { ChangeKind } from './rules.ts';

export type Direction = 'request' | 'response';

/** One change, before aggregation: what changed and where (`side` says which document the pointer is in). */
export interface Finding {
  kind: ChangeKind;
  pointer: string;
  side: 'old' | 'new';
  message: string;
}

/** A value as written at a place in a document (possibly a `$ref`). */
export interface Slot {
  value: Json;
  pointer: string;
}

/** Keywords that only document a schema; changes to them are not reported. */
const ANNOTATIONS = new Set([
  'title', 'description', 'summary', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly',
  '$comment', '$schema', '$id', '$anchor', '$dynamicAnchor', '$defs', 'definitions', 'externalDocs', 'xml',
  'contentMediaType', 'contentEncoding', 'discriminator', 'nullable',
]);
/** Keywords compared by dedicated rules below, not as generic constraints (a second of oneOf/anyOf is generic). */
const STRUCTURAL = new Set(['$ref', 'allOf', 'properties', 'required', 'type', 'enum', 'const', 'pattern', 'items', 'additionalProperties']);
const LOWER_BOUNDS = ['minLength', 'minItems', 'minProperties', 'minimum', 'exclusiveMinimum', 'minContains'];
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maxProperties', 'maximum', 'exclusiveMaximum', 'maxContains'];
const BOUNDS = new Set([...LOWER_BOUNDS, ...UPPER_BOUNDS, 'multipleOf']);

/** A schema with its `$ref`s followed and its `allOf` members merged, each keyword with where it lives. */
interface SchemaView {
  pointer: string;
  keywords: Map<string, Located>;
  properties: Map<string, Slot>;
  /** required property name → pointer of its entry in a `required` array */
  required: Map<string, string>;
  variants?: Slot[];
  /** `x-extensible-enum: true`: the enum is open by contract (clients expect unknown values). */
  extensibleEnum: boolean;
}

function view(doc: Doc, slot: Slot, depth = 0): SchemaView {
  const { value, pointer: ptr } = doc.resolve(slot.value, slot.pointer);
  const result: SchemaView = { pointer: ptr, keywords: new Map(), properties: new Map(), required: new Map(), extensibleEnum: false };
  if (value === false) result.keywords.set('not', { value: {}, pointer: ptr }); // false ≡ { not: {} }
  if (!isObject(value)) return result; // true (or junk): accepts anything
  result.extensibleEnum = value['x-extensible-enum'] === true;
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith('x-') || ANNOTATIONS.has(key) || key === 'properties' || key === 'required' || key === 'allOf') continue;
    if (key === 'oneOf' || key === 'anyOf') {
      if (Array.isArray(v) && !result.variants) {
        result.variants = v.map((item, i) => ({ value: item, pointer: pointer(ptr, key, i) }));
        continue;
      }
    }
    result.keywords.set(key, { value: v, pointer: pointer(ptr, key) });
  }
  if (isObject(value.properties)) {
    for (const [name, v] of Object.entries(value.properties)) result.properties.set(name, { value: v, pointer: pointer(ptr, 'properties', name) });
  }
  if (Array.isArray(value.required)) {
    value.required.forEach((name, i) => {
      if (typeof name === 'string') result.required.set(name, pointer(ptr, 'required', i));
    });
  }
  if (Array.isArray(value.allOf) && depth < 20) {
    value.allOf.forEach((member, i) => {
      const m = view(doc, { value: member, pointer: pointer(ptr, 'allOf', i) }, depth + 1);
      for (const [k, v] of m.keywords) if (!result.keywords.has(k)) result.keywords.set(k, v);
      for (const [k, v] of m.properties) if (!result.properties.has(k)) result.properties.set(k, v);
      for (const [k, v] of m.required) if (!result.required.has(k)) result.required.set(k, v);
      if (m.variants && !result.variants) result.variants = m.variants;
      if (m.extensibleEnum) result.extensibleEnum = true;
    });
  }
  return result;
}

/** Compares schemas across two documents, memoized per pair of definitions and direction. */
export class SchemaComparer {
  readonly oldDoc: Doc;
  readonly newDoc: Doc;
  private readonly memo = new Map<string, Finding[]>();
  private readonly inProgress = new Set<string>();

  constructor(oldDoc: Doc, newDoc: Doc) {
    this.oldDoc = oldDoc;
    this.newDoc = newDoc;
  }

  compare(oldSlot: Slot, newSlot: Slot, direction: Direction): Finding[] {
    const o = view(this.oldDoc, oldSlot);
    const n = view(this.newDoc, newSlot);
    const key = `${direction}|${o.pointer}|${n.pointer}`;
    const done = this.memo.get(key);
    if (done) return done;
    if (this.inProgress.has(key)) return []; // a recursive schema: this pair is being compared further up
    this.inProgress.add(key);
    const out: Finding[] = [];
    try {
      this.compareViews(o, n, direction, out);
    } finally {
      this.inProgress.delete(key);
    }
    this.memo.set(key, out);
    return out;
  }

  private compareViews(o: SchemaView, n: SchemaView, dir: Direction, out: Finding[]): void {
    const req = dir === 'request';
    const add = (kind: ChangeKind, ptr: string, side: 'old' | 'new', message: string) => out.push({ kind, pointer: ptr, side, message });
    const oldAt = (k: string) => o.keywords.get(k);
    const newAt = (k: string) => n.keywords.get(k);
    /** The new keyword's pointer, or the old one (side old) when the keyword was removed. */
    const where = (k: string): [string, 'old' | 'new'] => {
      const nk = newAt(k);
      if (nk) return [nk.pointer, 'new'];
      return [oldAt(k)?.pointer ?? o.pointer, 'old'];
    };

    // oneOf/anyOf on one side only: not decided field by field.
    if (Boolean(o.variants) !== Boolean(n.variants)) {
      add('schema-composition-changed', n.pointer, 'new', `${dir} schema ${n.variants ? 'became a oneOf/anyOf of alternatives' : 'is no longer a oneOf/anyOf'}`);
    } else if (o.variants && n.variants) {
      this.compareVariants(o.variants, n.variants, dir, out);
    }

    // type
    const oType = typeSet(oldAt('type')?.value);
    const nType = typeSet(newAt('type')?.value);
    if (!sameSet(oType, nType)) {
      const [ptr, side] = where('type');
      const text = `type ${showTypes(oType)} → ${showTypes(nType)}`;
      if (req && covers(nType, oType)) add('request-type-widened', ptr, side, `request ${text}`);
      else if (!req && covers(oType, nType)) add('response-type-narrowed', ptr, side, `response ${text}`);
      else add('type-changed', ptr, side, `${dir} ${text}`);
    }

    // enum / const (a const is a one-value enum)
    const oEnum = enumValues(o);
    const nEnum = enumValues(n);
    if (oEnum && nEnum) {
      for (const item of oEnum) {
        if (!nEnum.some((x) => deepEqual(x.value, item.value))) {
          add(req ? 'request-enum-value-removed' : 'response-enum-value-removed', item.pointer, 'old', `${dir} value ${show(item.value)} removed`);
        }
      }
      const open = o.extensibleEnum && n.extensibleEnum; // open by the RELEASED contract: a flag added now told no client
      for (const item of nEnum) {
        if (!oEnum.some((x) => deepEqual(x.value, item.value))) {
          const kind = req ? 'request-enum-value-added' : open ? 'response-extensible-enum-value-added' : 'response-enum-value-added';
          add(kind, item.pointer, 'new', `${dir} value ${show(item.value)} added`);
        }
      }
    } else if (nEnum) {
      const ptr = (newAt('enum') ?? newAt('const'))?.pointer ?? n.pointer;
      add(req ? 'request-constraint-changed' : 'response-constraint-changed', ptr, 'new', `${dir} values restricted to ${show(nEnum.map((x) => x.value))}`);
    } else if (oEnum) {
      const ptr = (oldAt('enum') ?? oldAt('const'))?.pointer ?? o.pointer;
      add(req ? 'request-constraint-removed' : 'response-constraint-changed', ptr, 'old', `${dir} values no longer restricted to ${show(oEnum.map((x) => x.value))}`);
    }

    // pattern
    const oPattern = oldAt('pattern')?.value;
    const nPattern = newAt('pattern')?.value;
    if (!deepEqual(oPattern, nPattern)) {
      const [ptr, side] = where('pattern');
      const text = `pattern ${show(oPattern)} → ${show(nPattern)}`;
      if (!req) add('response-constraint-changed', ptr, side, `response ${text}`);
      else if (nPattern === undefined) add('request-pattern-removed', ptr, side, `request ${text}`);
      else if (oPattern === undefined) add('request-pattern-added', ptr, side, `request ${text}`);
      else if (typeof oPattern === 'string' && typeof nPattern === 'string' && patternProvablyWidens(oPattern, nPattern)) add('request-pattern-widened', ptr, side, `request ${text}`);
      else add('request-pattern-changed', ptr, side, `request ${text}`);
    }

    // bounds
    for (const k of BOUNDS) {
      const ov = oldAt(k)?.value;
      const nv = newAt(k)?.value;
      if (deepEqual(ov, nv)) continue;
      const [ptr, side] = where(k);
      const text = `${k} ${show(ov)} → ${show(nv)}`;
      if (!req) add('response-constraint-changed', ptr, side, `response ${text}`);
      else add(boundTightened(k, ov, nv) ? 'request-bound-tightened' : 'request-bound-loosened', ptr, side, `request ${text}`);
    }

    // additionalProperties: any (absent, true, {}), none (false), or a schema
    const oAdd = oldAt('additionalProperties');
    const nAdd = newAt('additionalProperties');
    const oAddKind = openness(this.oldDoc, oAdd);
    const nAddKind = openness(this.newDoc, nAdd);
    if (oAdd && nAdd && oAddKind === 'schema' && nAddKind === 'schema') {
      out.push(...this.compare(oAdd, nAdd, dir));
    } else if (oAddKind !== nAddKind) {
      const [ptr, side] = where('additionalProperties');
      const text = `additionalProperties ${show(oAdd?.value)} → ${show(nAdd?.value)}`;
      const tighter = nAddKind === 'none' || (nAddKind === 'schema' && oAddKind === 'any');
      if (!req) add('response-constraint-changed', ptr, side, `response ${text}`);
      else add(tighter ? 'request-constraint-changed' : 'request-constraint-removed', ptr, side, `request ${text}`);
    }

    // items: compared as schemas when both sides have them, else as a constraint added or removed
    const oItems = oldAt('items');
    const nItems = newAt('items');
    if (oItems && nItems) out.push(...this.compare(oItems, nItems, dir));

    // every other validation keyword: added or changed tightens (in a request), removed loosens
    const others = new Set([...o.keywords.keys(), ...n.keywords.keys()].filter((k) => !STRUCTURAL.has(k) && !BOUNDS.has(k)));
    if (!(oItems && nItems)) others.add('items');
    for (const k of others) {
      const ov = oldAt(k)?.value;
      const nv = newAt(k)?.value;
      if (deepEqual(ov, nv)) continue;
      const [ptr, side] = where(k);
      const text = `${k} ${show(ov)} → ${show(nv)}`;
      if (!req) add('response-constraint-changed', ptr, side, `response ${text}`);
      else add(nv === undefined ? 'request-constraint-removed' : 'request-constraint-changed', ptr, side, `request ${text}`);
    }

    this.compareProperties(o, n, dir, out);
  }

  private compareProperties(o: SchemaView, n: SchemaView, dir: Direction, out: Finding[]): void {
    const req = dir === 'request';
    const names = new Set([...o.properties.keys(), ...o.required.keys(), ...n.properties.keys(), ...n.required.keys()]);
    // Not part of this direction: readOnly properties are never sent, writeOnly ones never returned.
    const skipped = (doc: Doc, slot: Slot | undefined) => {
      const s = slot ? doc.object(slot.value, slot.pointer)?.value : undefined;
      return Boolean(s && (req ? s.readOnly === true : s.writeOnly === true));
    };
    const closed = ['additionalProperties', 'unevaluatedProperties'].some((k) => n.keywords.get(k)?.value === false);
    for (const name of names) {
      const oSlot = o.properties.get(name);
      const nSlot = n.properties.get(name);
      if (skipped(this.oldDoc, oSlot) || skipped(this.newDoc, nSlot)) continue;
      const oReq = o.required.get(name);
      const nReq = n.required.get(name);
      const inOld = Boolean(oSlot ?? oReq);
      const inNew = Boolean(nSlot ?? nReq);
      const field = `${dir} field "${name}"`;
      if (inOld && !inNew) {
        const ptr = oSlot?.pointer ?? oReq ?? o.pointer;
        if (req) out.push({ kind: closed ? 'request-field-removed-closed' : 'request-field-removed', pointer: ptr, side: 'old', message: `${field} removed` });
        else out.push({ kind: 'response-field-removed', pointer: ptr, side: 'old', message: `${field} removed` });
        continue;
      }
      if (!inOld && inNew) {
        const ptr = nSlot?.pointer ?? nReq ?? n.pointer;
        if (req) {
          out.push({ kind: nReq ? 'request-field-added-required' : 'request-field-added-optional', pointer: ptr, side: 'new', message: `${field} added (${nReq ? 'required' : 'optional'})` });
        } else {
          out.push({ kind: 'response-field-added', pointer: ptr, side: 'new', message: `${field} added` });
        }
        continue;
      }
      if (!oReq && nReq) {
        out.push({ kind: req ? 'request-field-became-required' : 'response-field-became-required', pointer: nReq, side: 'new', message: `${field} became required` });
      } else if (oReq && !nReq) {
        out.push({ kind: req ? 'request-field-became-optional' : 'response-field-became-optional', pointer: oReq, side: 'old', message: `${field} became optional` });
      }
      if (oSlot && nSlot) out.push(...this.compare(oSlot, nSlot, dir));
    }
  }

  private compareVariants(oldVariants: Slot[], newVariants: Slot[], dir: Direction, out: Finding[]): void {
    const pairs = matchVariants(this.oldDoc, oldVariants, this.newDoc, newVariants);
    const req = dir === 'request';
    for (const [oi, ni] of pairs) {
      const oSlot = oi === undefined ? undefined : oldVariants[oi];
      const nSlot = ni === undefined ? undefined : newVariants[ni];
      if (oSlot && nSlot) out.push(...this.compare(oSlot, nSlot, dir));
      else if (oSlot) out.push({ kind: req ? 'request-variant-removed' : 'response-variant-removed', pointer: oSlot.pointer, side: 'old', message: `${dir} alternative ${variantName(this.oldDoc, oSlot)} removed` });
      else if (nSlot) out.push({ kind: req ? 'request-variant-added' : 'response-variant-added', pointer: nSlot.pointer, side: 'new', message: `${dir} alternative ${variantName(this.newDoc, nSlot)} added` });
    }
  }
}

/** Pairs old and new alternatives: by $ref target, then title, then a const property, then type; leftovers in order when as many on both sides. */
export function matchVariants(oldDoc: Doc, oldVariants: Slot[], newDoc: Doc, newVariants: Slot[]): [number | undefined, number | undefined][] {
  const strategies: ((doc: Doc, slot: Slot) => string | undefined)[] = [
    (_doc, slot) => (isObject(slot.value) && typeof slot.value.$ref === 'string' ? slot.value.$ref : undefined),
    (doc, slot) => {
      const s = doc.object(slot.value, slot.pointer)?.value;
      return typeof s?.title === 'string' ? s.title : undefined;
    },
    (doc, slot) => constKey(doc, slot),
    (doc, slot) => {
      const s = doc.object(slot.value, slot.pointer)?.value;
      return s && s.type !== undefined ? JSON.stringify(s.type) : undefined;
    },
  ];
  const oldLeft = new Set(oldVariants.keys());
  const newLeft = new Set(newVariants.keys());
  const pairs: [number | undefined, number | undefined][] = [];
  for (const keyOf of strategies) {
    const index = (doc: Doc, slots: Slot[], left: Set<number>) => {
      const byKey = new Map<string, number[]>();
      for (const i of left) {
        const slot = slots[i];
        const key = slot ? keyOf(doc, slot) : undefined;
        if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), i]);
      }
      return byKey;
    };
    const oldKeys = index(oldDoc, oldVariants, oldLeft);
    const newKeys = index(newDoc, newVariants, newLeft);
    for (const [key, [oi, ...oRest]] of oldKeys) {
      const ns = newKeys.get(key);
      if (oi === undefined || oRest.length > 0 || !ns || ns.length !== 1) continue;
      const ni = ns[0] as number;
      pairs.push([oi, ni]);
      oldLeft.delete(oi);
      newLeft.delete(ni);
    }
  }
  const oRest = [...oldLeft].sort((a, b) => a - b);
  const nRest = [...newLeft].sort((a, b) => a - b);
  if (oRest.length === nRest.length) oRest.forEach((oi, i) => pairs.push([oi, nRest[i]]));
  else {
    for (const oi of oRest) pairs.push([oi, undefined]);
    for (const ni of nRest) pairs.push([undefined, ni]);
  }
  return pairs.sort((a, b) => (a[0] ?? Infinity) - (b[0] ?? Infinity) || (a[1] ?? Infinity) - (b[1] ?? Infinity));
}

function constKey(doc: Doc, slot: Slot): string | undefined {
  const s = doc.object(slot.value, slot.pointer);
  if (!s || !isObject(s.value.properties)) return undefined;
  for (const [name, prop] of Object.entries(s.value.properties).sort(([a], [b]) => a.localeCompare(b))) {
    const p = doc.object(prop, pointer(s.pointer, 'properties', name))?.value;
    if (p && p.const !== undefined) return `${name}=${JSON.stringify(p.const)}`;
  }
  return undefined;
}

function variantName(doc: Doc, slot: Slot): string {
  if (isObject(slot.value) && typeof slot.value.$ref === 'string') return slot.value.$ref.split('/').pop() ?? slot.value.$ref;
  const s = doc.object(slot.value, slot.pointer)?.value;
  return typeof s?.title === 'string' ? s.title : (constKey(doc, slot) ?? show(s?.type ?? slot.value));
}

function enumValues(v: SchemaView): Located[] | undefined {
  const e = v.keywords.get('enum');
  if (e && Array.isArray(e.value)) return e.value.map((value, i) => ({ value, pointer: pointer(e.pointer, i) }));
  const c = v.keywords.get('const');
  return c ? [c] : undefined;
}

/** The JSON types a schema's `type` allows; undefined = any. */
function typeSet(type: Json | undefined): Set<string> | undefined {
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.filter((t): t is string => typeof t === 'string'));
  return undefined;
}

function sameSet(a: Set<string> | undefined, b: Set<string> | undefined): boolean {
  if (!a || !b) return a === b;
  return a.size === b.size && [...a].every((t) => b.has(t));
}

/** Whether every value of types `inner` is a value of types `outer` (integer is a number). */
function covers(outer: Set<string> | undefined, inner: Set<string> | undefined): boolean {
  if (!outer) return true;
  if (!inner) return false;
  return [...inner].every((t) => outer.has(t) || (t === 'integer' && outer.has('number')));
}

function showTypes(types: Set<string> | undefined): string {
  return types ? [...types].join('|') : 'any';
}

function boundTightened(keyword: string, ov: Json | undefined, nv: Json | undefined): boolean {
  if (nv === undefined) return false; // removed: looser
  if (ov === undefined) return true; // added: tighter
  if (typeof ov !== 'number' || typeof nv !== 'number') return true; // not comparable: assume tighter
  if (keyword === 'multipleOf') {
    const ratio = ov / nv; // looser when every multiple of the old step is a multiple of the new one
    return Math.abs(ratio - Math.round(ratio)) > 1e-9 || Math.round(ratio) < 1;
  }
  return LOWER_BOUNDS.includes(keyword) ? nv > ov : nv < ov;
}

function openness(doc: Doc, slot: Slot | undefined): 'any' | 'none' | 'schema' {
  if (!slot) return 'any';
  const { value } = doc.resolve(slot.value, slot.pointer);
  if (value === false) return 'none';
  // {} accepts anything, and so does a schema of annotations only (a description, an x-assumed mark).
  if (value === true || (isObject(value) && Object.keys(value).every((k) => k.startsWith('x-') || ANNOTATIONS.has(k)))) return 'any';
  return 'schema';
}
