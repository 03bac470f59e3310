// JSON values, JSON pointers and local `$ref` resolution: what the comparer needs from a bundled document.
// A bundled document only has local refs (`#/components/...`); anything else is an error.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One reference token of a JSON pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `base` + `/token` for each token, escaped. */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  return tokens.reduce<string>((acc, token) => `${acc}/${escapeToken(token)}`, base);
}

/** The value at a JSON pointer (`/a/b` or `#/a/b`), or undefined. */
export function at(doc: Json, ptr: string): Json | undefined {
  const path = ptr.startsWith('#') ? ptr.slice(1) : ptr;
  if (path === '') return doc;
  let node: Json | undefined = doc;
  for (const raw of path.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** A value and where it lives in its document (after following `$ref`s: the pointer of the target). */
export interface Located<T extends Json = Json> {
  value: T;
  pointer: string;
}

/** A bundled document: resolves local `$ref` chains and says where the resolved value lives. */
export class Doc {
  readonly root: JsonObject;
  readonly label: string;
  constructor(root: JsonObject, label: string) {
    this.root = root;
    this.label = label;
  }

  /** Follows `$ref` chains from `value` (found at `ptr`); returns the target and its pointer. */
  resolve(value: Json, ptr: string): Located {
    let current: Located = { value, pointer: ptr };
    for (let hops = 0; isObject(current.value) && typeof current.value.$ref === 'string'; hops++) {
      const ref = current.value.$ref;
      if (hops > 50) throw new Error(`${this.label}: $ref cycle at ${ref}`);
      if (!ref.startsWith('#')) throw new Error(`${this.label}: only local $refs are supported in a bundled document, got ${ref} at ${current.pointer}`);
      const target = at(this.root, ref);
      if (target === undefined) throw new Error(`${this.label}: unresolved $ref ${ref} at ${current.pointer}`);
      current = { value: target, pointer: ref.slice(1) };
    }
    return current;
  }

  /** `resolve` for a value expected to be an object; undefined otherwise. */
  object(value: Json | undefined, ptr: string): Located<JsonObject> | undefined {
    if (value === undefined) return undefined;
    const found = this.resolve(value, ptr);
    return isObject(found.value) ? (found as Located<JsonObject>) : undefined;
  }
}

/** Structural equality of JSON values (object key order does not matter). */
export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

/** A short rendering of a value for messages. */
export function show(value: Json | undefined): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
