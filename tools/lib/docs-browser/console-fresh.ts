// What makes a reader's first payment succeed in any tab, on any day, against any sandbox database: fresh
// values for the fields the API wants unique (a nickname, a PIX key), and a memory of the resources this
// browser created, so a 409 for a taken value can lead to the recipient that holds it (the 409's body has no
// id, and the API has no way to look a recipient up by nickname). No DOM here.
import type { ConsoleOperation } from '../docs-console.ts';
import { local } from './dom.ts';

const CREATED = 'payments-docs.created';
/** Bounds the memory: the latest resources are the ones a reader looks for. */
const MAX_CREATED = 50;

/** A resource this browser created, with the unique values it was created with. */
export interface Created {
  /** `recipientId`: the field that refers to it. */
  field: string;
  id: string;
  values: Record<string, string>;
  origin: string;
  at: string;
}

/** A short random tag: six base-36 characters. */
export const freshTag = () => Math.random().toString(36).slice(2, 8).padEnd(6, '0');

/** The example's value made fresh: an e-mail gets a `+tag` before its `@`, anything else a ` tag` suffix. */
export function freshValue(value: string, tag: string): string {
  const at = value.lastIndexOf('@');
  return at > 0 ? `${value.slice(0, at)}+${tag}${value.slice(at)}` : `${value} ${tag}`;
}

/** The body with the operation's unique fields (wherever they are at the top level) made fresh. */
export function withFreshValues(value: unknown, op: ConsoleOperation, tag: string): unknown {
  if (op.uniqueFields.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && op.uniqueFields.includes(k) ? freshValue(v, tag) : v]));
}

export function createdResources(): Created[] {
  try {
    const list = JSON.parse(local(CREATED) ?? '[]') as Created[];
    return Array.isArray(list) ? list.filter((c) => c.origin === location.origin) : [];
  } catch {
    return [];
  }
}

/** Remembers a created resource with its unique values (from the body that created it). */
export function rememberCreated(field: string, id: string, op: ConsoleOperation, body: unknown): void {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const values = Object.fromEntries(op.uniqueFields.filter((f) => typeof source[f] === 'string').map((f) => [f, String(source[f])]));
  let all: Created[] = [];
  try {
    all = JSON.parse(local(CREATED) ?? '[]') as Created[];
  } catch {
    all = [];
  }
  const next = [{ field, id, values, origin: location.origin, at: new Date().toISOString() }, ...all.filter((c) => c.id !== id)].slice(0, MAX_CREATED);
  local(CREATED, JSON.stringify(next));
}

/** A resource created from this browser holding one of the unique values the body sends. */
export function holderOf(op: ConsoleOperation, body: unknown): { created: Created; field: string } | undefined {
  const sent = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  for (const created of createdResources()) {
    const field = op.uniqueFields.find((f) => typeof sent[f] === 'string' && created.values[f] === sent[f]);
    if (field) return { created, field };
  }
  return undefined;
}
