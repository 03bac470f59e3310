// Fixture pairs for the comparer: the base document (fixtures/base.yaml) and copies of it changed by a
// test case, plus a compact form of the comparer's output to assert on.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compareDocuments, type Change } from '../../tools/lib/breaking/compare.ts';
import type { JsonObject } from '../../tools/lib/breaking/json.ts';

// Test documents are edited freely by the cases; their shape is the fixture's, not a type.
export type Editable = any;

const baseText = readFileSync(new URL('./fixtures/base.yaml', import.meta.url), 'utf8');

/** A fresh copy of the base fixture. */
export function base(): Editable {
  return parse(baseText);
}

/** [kind, pointer, side, breaking] of each change, in the comparer's order. */
export type Row = [string, string, 'old' | 'new', boolean];

export function rows(changes: Change[]): Row[] {
  return changes.map((c) => [c.kind, c.pointer, c.side, c.breaking]);
}

/** Compares the base fixture with a copy changed by `change`; `given` first changes both (the starting point). */
export function diff(change: (doc: Editable) => void, given: (doc: Editable) => void = () => {}): Change[] {
  const oldDoc = base();
  const newDoc = base();
  given(oldDoc);
  given(newDoc);
  change(newDoc);
  return compareDocuments(oldDoc as JsonObject, newDoc as JsonObject);
}
