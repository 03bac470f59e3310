// Security: the schemes of components.securitySchemes and, per operation, the requirement that applies (the
// operation's own `security`, else the root's). A requirement is a list of alternatives (any one suffices),
// each a set of schemes (all needed) with scopes. A client that satisfied an old alternative must still
// satisfy a new one, or it is refused. Schemes are matched by name, and a scheme whose key was renamed
// without changing what the client sends (same type, location, header name…) is the same scheme.
import { isObject, pointer, show, type Doc, type Json, type JsonObject } from './json.ts';
import type { ChangeKind } from './rules.ts';
import type { Finding } from './schema.ts';

/** What an operation's security looks like to the comparer (from compare.ts's operations). */
export interface SecuredOperation {
  label: string;
  pointer: string;
  op: JsonObject;
}

export interface LocatedFinding {
  finding: Finding;
  where: string;
}

type Alternative = Map<string, string[]>; // scheme name → scopes

/** The fields of a scheme that decide what a client sends (descriptions and bearerFormat only document it). */
function sentFields(scheme: JsonObject): Record<string, string> {
  const fields: Record<string, string> = { type: String(scheme.type) };
  if (scheme.type === 'apiKey') {
    fields.in = String(scheme.in);
    fields.name = scheme.in === 'header' ? String(scheme.name).toLowerCase() : String(scheme.name); // header names are case-insensitive
  } else if (scheme.type === 'http') {
    fields.scheme = String(scheme.scheme).toLowerCase();
  } else if (scheme.type === 'oauth2') {
    fields.flows = JSON.stringify(flowsWithoutScopes(scheme.flows));
  } else if (scheme.type === 'openIdConnect') {
    fields.openIdConnectUrl = String(scheme.openIdConnectUrl);
  }
  return fields;
}

/** OAuth2 flows with their URLs; scopes are compared through the requirements that name them. */
function flowsWithoutScopes(flows: Json | undefined): Json {
  if (!isObject(flows)) return null;
  const result: JsonObject = {};
  for (const name of Object.keys(flows).sort()) {
    const flow = flows[name];
    if (!isObject(flow)) continue;
    const { scopes: _scopes, description: _description, ...rest } = flow;
    result[name] = rest;
  }
  return result;
}

function schemesOf(doc: Doc): Map<string, { pointer: string; scheme: JsonObject }> {
  const result = new Map<string, { pointer: string; scheme: JsonObject }>();
  const components = isObject(doc.root.components) ? doc.root.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  for (const [name, raw] of Object.entries(schemes)) {
    const slot = pointer('', 'components', 'securitySchemes', name);
    const resolved = doc.object(raw, slot);
    if (resolved) result.set(name, { pointer: resolved.pointer, scheme: resolved.value });
  }
  return result;
}

const sameFields = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** The requirement that applies to an operation and the pointer where it is written; none = anonymous. */
function requirementOf(doc: Doc, op: SecuredOperation): { pointer: string; alternatives: Alternative[] } {
  const own = op.op.security;
  const list = own !== undefined ? own : doc.root.security;
  const ptr = own !== undefined ? pointer(op.pointer, 'security') : '/security';
  if (!Array.isArray(list) || list.length === 0) return { pointer: ptr, alternatives: [new Map()] };
  const alternatives = list.filter(isObject).map((alt) => new Map(Object.entries(alt).map(([name, scopes]) => [name, Array.isArray(scopes) ? scopes.map(String) : []])));
  return { pointer: ptr, alternatives };
}

/** Whether a client able to send `have` (old alternative, names mapped to the new document) satisfies `need`. */
function satisfies(have: Alternative, need: Alternative): boolean {
  return [...need].every(([name, scopes]) => {
    const held = have.get(name);
    return held !== undefined && scopes.every((s) => held.includes(s));
  });
}

const showAlternatives = (alts: Alternative[]) =>
  alts.map((alt) => (alt.size === 0 ? '{} (no credential)' : [...alt].map(([n, s]) => (s.length ? `${n}[${s.join(',')}]` : n)).join(' + '))).join(' | ');

/** Every security change between the two documents, for the operations present in both. */
export function compareSecurity(oldDoc: Doc, newDoc: Doc, pairs: [SecuredOperation, SecuredOperation][]): LocatedFinding[] {
  const out: LocatedFinding[] = [];
  const add = (kind: ChangeKind, ptr: string, side: 'old' | 'new', message: string, where: string) => out.push({ finding: { kind, pointer: ptr, side, message }, where });
  const oldSchemes = schemesOf(oldDoc);
  const newSchemes = schemesOf(newDoc);

  // Which old scheme is which new one: the same name, else an unclaimed new scheme that sends the same thing.
  const renamedTo = new Map<string, string>();
  for (const [name, o] of oldSchemes) {
    if (newSchemes.has(name)) continue;
    const fields = sentFields(o.scheme);
    const target = [...newSchemes].find(([n, s]) => !oldSchemes.has(n) && ![...renamedTo.values()].includes(n) && sameFields(fields, sentFields(s.scheme)));
    if (target) renamedTo.set(name, target[0]);
  }
  const mapName = (name: string) => (newSchemes.has(name) ? name : (renamedTo.get(name) ?? `(removed) ${name}`));

  // Who used each old scheme, to tell a removal that refuses clients from one that refuses none.
  const usedBy = new Map<string, string[]>();
  for (const [o] of pairs) {
    for (const alt of requirementOf(oldDoc, o).alternatives) for (const name of alt.keys()) usedBy.set(name, [...(usedBy.get(name) ?? []), o.label]);
  }

  for (const [name, o] of oldSchemes) {
    const n = newSchemes.get(name);
    const users = usedBy.get(name) ?? [];
    const where = users.length ? users : ['components.securitySchemes'];
    if (!n) {
      const target = renamedTo.get(name);
      if (target) continue; // only its key was renamed: reported below, under the new name
      for (const w of where) add(users.length ? 'security-scheme-removed' : 'security-scheme-removed-unused', o.pointer, 'old', `security scheme ${name} removed`, w);
      continue;
    }
    const of = sentFields(o.scheme);
    const nf = sentFields(n.scheme);
    for (const field of new Set([...Object.keys(of), ...Object.keys(nf)])) {
      if (of[field] === nf[field]) continue;
      const inNew = field in nf && (field !== 'flows' || 'flows' in n.scheme);
      const ptr = inNew ? pointer(n.pointer, field) : pointer(o.pointer, field);
      const shown = (s: JsonObject) => show((field === 'flows' ? flowsWithoutScopes(s.flows) : s[field]) as Json);
      for (const w of where) add('security-scheme-changed', ptr, inNew ? 'new' : 'old', `security scheme ${name}: ${field} ${shown(o.scheme)} → ${shown(n.scheme)}`, w);
    }
  }
  const renamedTargets = new Set(renamedTo.values());
  for (const [name, n] of newSchemes) {
    if (oldSchemes.has(name)) continue;
    const from = [...renamedTo].find(([, to]) => to === name)?.[0];
    const message = renamedTargets.has(name) ? `security scheme ${from} renamed to ${name} (it sends the same credential)` : `security scheme ${name} added`;
    add('security-scheme-added', n.pointer, 'new', message, 'components.securitySchemes');
  }

  for (const [o, n] of pairs) {
    const before = requirementOf(oldDoc, o);
    const after = requirementOf(newDoc, n);
    const mapped = before.alternatives.map((alt) => new Map([...alt].map(([name, scopes]) => [mapName(name), scopes])));
    const lost = mapped.filter((have) => !after.alternatives.some((need) => satisfies(have, need)));
    // A client holding exactly a new alternative's credentials, refused before: the requirement accepts more.
    const gained = after.alternatives.filter((have) => !mapped.some((need) => satisfies(have, need)));
    const text = `security ${showAlternatives(before.alternatives)} → ${showAlternatives(after.alternatives)}`;
    if (lost.length > 0) add('security-requirement-tightened', after.pointer, 'new', `${text}: ${showAlternatives(lost)} no longer accepted`, n.label);
    else if (gained.length > 0) add('security-requirement-loosened', after.pointer, 'new', text, n.label);
  }
  return out;
}
