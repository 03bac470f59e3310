// Compares two bundled OpenAPI documents operation by operation: parameters, request bodies, responses
// (statuses, content, headers, error codes) and, through schema.ts, every schema they reach. Each change
// gets its verdict and reason from rules.ts; one change reached from several operations is listed once,
// with every place that reaches it in `where`.
import { Doc, isObject, pointer, show, type Json, type JsonObject, type Located } from './json.ts';
import { RULES, type ChangeKind } from './rules.ts';
import { SchemaComparer, type Direction, type Finding } from './schema.ts';
import { compareSecurity } from './security.ts';

export interface Change {
  kind: ChangeKind;
  breaking: boolean;
  /** Neither provably breaking nor provably safe: passes the gate only when a changeset acknowledges `pointer`. */
  review: boolean;
  why: string;
  /** JSON pointer of the changed node: in the new document, or in the old one when `side` is 'old' (removals). */
  pointer: string;
  side: 'old' | 'new';
  message: string;
  /** The operations (and part of them) that reach the change, e.g. "POST /v1/banking/transfers request body". */
  where: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Operation {
  label: string; // "POST /v1/banking/transfers"
  pointer: string; // /paths/~1v1~1banking~1transfers/post
  path: string;
  pathItem: JsonObject;
  pathItemPointer: string;
  op: JsonObject;
}

/** Operations by method + path template with parameter names blanked (/a/{id} and /a/{transferId} are one). */
function operationsOf(doc: Doc): Map<string, Operation> {
  const result = new Map<string, Operation>();
  const paths = isObject(doc.root.paths) ? doc.root.paths : {};
  for (const [path, raw] of Object.entries(paths)) {
    const item = doc.object(raw, pointer('', 'paths', path));
    if (!item) continue;
    for (const method of METHODS) {
      const op = item.value[method];
      if (!isObject(op)) continue;
      result.set(`${method} ${path.replace(/\{[^}]*\}/g, '{}')}`, {
        label: `${method.toUpperCase()} ${path}`,
        pointer: pointer(item.pointer, method),
        path,
        pathItem: item.value,
        pathItemPointer: item.pointer,
        op,
      });
    }
  }
  return result;
}

interface Parameter {
  slot: string; // pointer of the entry in a `parameters` array
  resolved: Located<JsonObject>;
  name: string;
  in: string;
}

/** Effective parameters (path item's, overridden by the operation's), keyed by location and name; path parameters by position. */
function parametersOf(doc: Doc, op: Operation): Map<string, Parameter> {
  const result = new Map<string, Parameter>();
  const pathParams = [...op.path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  const lists: [Json | undefined, string][] = [
    [op.pathItem.parameters, pointer(op.pathItemPointer, 'parameters')],
    [op.op.parameters, pointer(op.pointer, 'parameters')],
  ];
  for (const [list, listPointer] of lists) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw, i) => {
      const slot = pointer(listPointer, i);
      const resolved = doc.object(raw, slot);
      if (!resolved) return;
      const name = String(resolved.value.name);
      const location = String(resolved.value.in);
      const key =
        location === 'path' ? `path #${pathParams.indexOf(name)}` : `${location} ${location === 'header' ? name.toLowerCase() : name}`;
      result.set(key, { slot, resolved, name, in: location });
    });
  }
  return result;
}

/** Collects findings into changes, one per (kind, side, pointer), with every place that reaches it. */
class Changes {
  private readonly byKey = new Map<string, Change>();

  add(finding: Finding, where: string): void {
    const key = `${finding.kind}|${finding.side}|${finding.pointer}`;
    const existing = this.byKey.get(key);
    if (existing) {
      if (!existing.where.includes(where)) existing.where.push(where);
      return;
    }
    const rule = RULES[finding.kind];
    this.byKey.set(key, { kind: finding.kind, breaking: rule.breaking, review: 'review' in rule, why: rule.why, pointer: finding.pointer, side: finding.side, message: finding.message, where: [where] });
  }

  addAll(findings: Finding[], where: string): void {
    for (const f of findings) this.add(f, where);
  }

  list(): Change[] {
    return [...this.byKey.values()];
  }
}

/** Every change from `oldDoc` to `newDoc` (bundled OpenAPI 3.x documents as JSON), in document order. */
export function compareDocuments(oldRoot: JsonObject, newRoot: JsonObject): Change[] {
  const oldDoc = new Doc(oldRoot, 'old document');
  const newDoc = new Doc(newRoot, 'new document');
  const schemas = new SchemaComparer(oldDoc, newDoc);
  const changes = new Changes();
  const oldOps = operationsOf(oldDoc);
  const newOps = operationsOf(newDoc);

  for (const [key, o] of oldOps) {
    const n = newOps.get(key);
    if (!n) {
      changes.add({ kind: 'operation-removed', pointer: o.pointer, side: 'old', message: `operation ${o.label} removed` }, o.label);
      continue;
    }
    comparePathTemplate(o, n, changes);
    compareOperationId(o, n, changes);
    compareProductTag(o, n, changes);
    compareParameters(oldDoc, newDoc, schemas, o, n, changes);
    compareRequestBodies(oldDoc, newDoc, schemas, o, n, changes);
    compareResponses(oldDoc, newDoc, schemas, o, n, changes);
  }
  for (const [key, n] of newOps) {
    if (!oldOps.has(key)) changes.add({ kind: 'operation-added', pointer: n.pointer, side: 'new', message: `operation ${n.label} added` }, n.label);
  }
  const pairs = [...oldOps].flatMap(([key, o]) => {
    const n = newOps.get(key);
    return n ? [[o, n] as [Operation, Operation]] : [];
  });
  for (const { finding, where } of compareSecurity(oldDoc, newDoc, pairs)) changes.add(finding, where);
  compareSchemaNames(oldRoot, newRoot, changes);
  return changes.list();
}

/** The names of `components.schemas`: @payments/types exports each one by it. */
function compareSchemaNames(oldRoot: JsonObject, newRoot: JsonObject, changes: Changes): void {
  const names = (root: JsonObject) => {
    const components = isObject(root.components) ? root.components : {};
    return isObject(components.schemas) ? Object.keys(components.schemas) : [];
  };
  const kept = new Set(names(newRoot));
  for (const name of names(oldRoot)) {
    if (!kept.has(name)) changes.add({ kind: 'schema-component-removed', pointer: pointer('', 'components', 'schemas', name), side: 'old', message: `schema ${show(name)} removed from components.schemas (or renamed)` }, `components.schemas.${name}`);
  }
}

/** The path template as written (`/a/{transferId}` vs `/a/{id}`: one operation on the wire, two keys in @payments/types' `paths`). */
function comparePathTemplate(o: Operation, n: Operation, changes: Changes): void {
  if (o.path === n.path) return;
  changes.add({ kind: 'path-template-changed', pointer: n.pointer, side: 'new', message: `path template ${show(o.path)} → ${show(n.path)}` }, n.label);
}

/** operationId: the key of the operation in @payments/types (`operations`, `ErrorCode<Op>`, `errorCodes`). */
function compareOperationId(o: Operation, n: Operation, changes: Changes): void {
  const oldId = o.op.operationId;
  const newId = n.op.operationId;
  if (oldId === newId) return;
  const at = (op: Operation) => pointer(op.pointer, 'operationId');
  if (oldId === undefined) changes.add({ kind: 'operation-id-added', pointer: at(n), side: 'new', message: `operationId ${show(newId)} added` }, n.label);
  else if (newId === undefined) changes.add({ kind: 'operation-id-removed', pointer: at(o), side: 'old', message: `operationId ${show(oldId)} removed` }, n.label);
  else changes.add({ kind: 'operation-id-changed', pointer: at(n), side: 'new', message: `operationId ${show(oldId)} → ${show(newId)}` }, n.label);
}

/** The first tag: the product the sandbox files the operation under (access flag, 403 code). Other tags only group docs. */
function compareProductTag(o: Operation, n: Operation, changes: Changes): void {
  const first = (op: Operation) => (Array.isArray(op.op.tags) ? op.op.tags[0] : undefined);
  const oldTag = first(o);
  const newTag = first(n);
  if (oldTag === newTag) return;
  const ptr = newTag === undefined ? pointer(o.pointer, 'tags') : pointer(n.pointer, 'tags', 0);
  changes.add({ kind: 'operation-product-changed', pointer: ptr, side: newTag === undefined ? 'old' : 'new', message: `product tag ${show(oldTag)} → ${show(newTag)}` }, n.label);
}

function compareParameters(oldDoc: Doc, newDoc: Doc, schemas: SchemaComparer, o: Operation, n: Operation, changes: Changes): void {
  const oldParams = parametersOf(oldDoc, o);
  const newParams = parametersOf(newDoc, n);
  for (const [key, op] of oldParams) {
    const np = newParams.get(key);
    const where = `${n.label} ${op.in} parameter ${np?.name ?? op.name}`;
    if (!np) {
      changes.add({ kind: 'parameter-removed', pointer: op.slot, side: 'old', message: `${op.in} parameter "${op.name}" removed` }, where);
      continue;
    }
    const oReq = op.in === 'path' || op.resolved.value.required === true;
    const nReq = np.in === 'path' || np.resolved.value.required === true;
    if (!oReq && nReq) {
      changes.add({ kind: 'parameter-became-required', pointer: pointer(np.resolved.pointer, 'required'), side: 'new', message: `${np.in} parameter "${np.name}" became required` }, where);
    } else if (oReq && !nReq) {
      const hasKey = 'required' in np.resolved.value;
      const ptr = hasKey ? pointer(np.resolved.pointer, 'required') : pointer(op.resolved.pointer, 'required');
      changes.add({ kind: 'parameter-became-optional', pointer: ptr, side: hasKey ? 'new' : 'old', message: `${np.in} parameter "${np.name}" became optional` }, where);
    }
    compareSchemaSlots(schemas, op.resolved, np.resolved, 'request', changes, where);
    compareContent(schemas, op.resolved, np.resolved, 'request', changes, where);
  }
  for (const [key, np] of newParams) {
    if (oldParams.has(key)) continue;
    const required = np.in === 'path' || np.resolved.value.required === true;
    changes.add(
      { kind: required ? 'parameter-added-required' : 'parameter-added-optional', pointer: np.slot, side: 'new', message: `${np.in} parameter "${np.name}" added (${required ? 'required' : 'optional'})` },
      `${n.label} ${np.in} parameter ${np.name}`,
    );
  }
}

function compareRequestBodies(oldDoc: Doc, newDoc: Doc, schemas: SchemaComparer, o: Operation, n: Operation, changes: Changes): void {
  const where = `${n.label} request body`;
  const ob = oldDoc.object(o.op.requestBody, pointer(o.pointer, 'requestBody'));
  const nb = newDoc.object(n.op.requestBody, pointer(n.pointer, 'requestBody'));
  if (!ob && !nb) return;
  if (!ob && nb) {
    const required = nb.value.required === true;
    changes.add({ kind: required ? 'request-body-added-required' : 'request-body-added-optional', pointer: pointer(n.pointer, 'requestBody'), side: 'new', message: `request body added (${required ? 'required' : 'optional'})` }, where);
    return;
  }
  if (ob && !nb) {
    changes.add({ kind: 'request-body-removed', pointer: pointer(o.pointer, 'requestBody'), side: 'old', message: 'request body removed' }, where);
    return;
  }
  if (!ob || !nb) return;
  const oReq = ob.value.required === true;
  const nReq = nb.value.required === true;
  if (!oReq && nReq) {
    changes.add({ kind: 'request-body-became-required', pointer: pointer(nb.pointer, 'required'), side: 'new', message: 'request body became required' }, where);
  } else if (oReq && !nReq) {
    const hasKey = 'required' in nb.value;
    changes.add({ kind: 'request-body-became-optional', pointer: pointer(hasKey ? nb.pointer : ob.pointer, 'required'), side: hasKey ? 'new' : 'old', message: 'request body became optional' }, where);
  }
  compareContent(schemas, ob, nb, 'request', changes, where);
}

function compareResponses(oldDoc: Doc, newDoc: Doc, schemas: SchemaComparer, o: Operation, n: Operation, changes: Changes): void {
  const oldResponses = isObject(o.op.responses) ? o.op.responses : {};
  const newResponses = isObject(n.op.responses) ? n.op.responses : {};
  for (const [status, raw] of Object.entries(oldResponses)) {
    const where = `${n.label} response ${status}`;
    const slot = pointer(o.pointer, 'responses', status);
    if (!Object.hasOwn(newResponses, status)) {
      changes.add({ kind: 'response-status-removed', pointer: slot, side: 'old', message: `response ${status} removed` }, where);
      continue;
    }
    const or = oldDoc.object(raw, slot);
    const nr = newDoc.object(newResponses[status] as Json, pointer(n.pointer, 'responses', status));
    if (!or || !nr) continue;
    compareContent(schemas, or, nr, 'response', changes, where);
    compareHeaders(oldDoc, newDoc, schemas, or, nr, changes, where);
    if (/^([45]\d\d|[45]XX|default)$/i.test(status)) compareErrorCodes(oldDoc, newDoc, or, nr, status, changes, where);
  }
  for (const status of Object.keys(newResponses)) {
    if (Object.hasOwn(oldResponses, status)) continue;
    changes.add({ kind: 'response-status-added', pointer: pointer(n.pointer, 'responses', status), side: 'new', message: `response ${status} added` }, `${n.label} response ${status}`);
  }
}

/** The `schema` of a parameter or header, when both sides have one. */
function compareSchemaSlots(schemas: SchemaComparer, o: Located<JsonObject>, n: Located<JsonObject>, dir: Direction, changes: Changes, where: string): void {
  const os = o.value.schema;
  const ns = n.value.schema;
  if (os === undefined || ns === undefined) return;
  changes.addAll(schemas.compare({ value: os, pointer: pointer(o.pointer, 'schema') }, { value: ns, pointer: pointer(n.pointer, 'schema') }, dir), where);
}

/** `content` by media type: removed and added media types, and the schemas of the ones on both sides. */
function compareContent(schemas: SchemaComparer, o: Located<JsonObject>, n: Located<JsonObject>, dir: Direction, changes: Changes, where: string): void {
  const oc = isObject(o.value.content) ? o.value.content : {};
  const nc = isObject(n.value.content) ? n.value.content : {};
  for (const [type, om] of Object.entries(oc)) {
    const oPtr = pointer(o.pointer, 'content', type);
    const nm = nc[type];
    if (nm === undefined) {
      changes.add({ kind: dir === 'request' ? 'request-media-type-removed' : 'response-media-type-removed', pointer: oPtr, side: 'old', message: `${dir} content ${type} removed` }, where);
      continue;
    }
    if (isObject(om) && isObject(nm)) compareSchemaSlots(schemas, { value: om, pointer: oPtr }, { value: nm, pointer: pointer(n.pointer, 'content', type) }, dir, changes, where);
  }
  for (const type of Object.keys(nc)) {
    if (Object.hasOwn(oc, type)) continue;
    changes.add({ kind: dir === 'request' ? 'request-media-type-added' : 'response-media-type-added', pointer: pointer(n.pointer, 'content', type), side: 'new', message: `${dir} content ${type} added` }, where);
  }
}

function compareHeaders(oldDoc: Doc, newDoc: Doc, schemas: SchemaComparer, o: Located<JsonObject>, n: Located<JsonObject>, changes: Changes, where: string): void {
  const headers = (doc: Doc, r: Located<JsonObject>) => {
    const result = new Map<string, { name: string; slot: string; resolved: Located<JsonObject> | undefined }>();
    const list = isObject(r.value.headers) ? r.value.headers : {};
    for (const [name, raw] of Object.entries(list)) {
      const slot = pointer(r.pointer, 'headers', name);
      result.set(name.toLowerCase(), { name, slot, resolved: doc.object(raw, slot) });
    }
    return result;
  };
  const oh = headers(oldDoc, o);
  const nh = headers(newDoc, n);
  for (const [key, h] of oh) {
    const other = nh.get(key);
    if (!other) {
      changes.add({ kind: 'response-header-removed', pointer: h.slot, side: 'old', message: `response header ${h.name} removed` }, where);
      continue;
    }
    if (!h.resolved || !other.resolved) continue;
    const oReq = h.resolved.value.required === true;
    const nReq = other.resolved.value.required === true;
    if (oReq !== nReq) {
      const side = 'required' in other.resolved.value ? 'new' : 'old';
      const ptr = pointer(side === 'new' ? other.resolved.pointer : h.resolved.pointer, 'required');
      changes.add({ kind: nReq ? 'response-header-became-required' : 'response-header-became-optional', pointer: ptr, side, message: `response header ${h.name} became ${nReq ? 'required' : 'optional'}` }, where);
    }
    compareSchemaSlots(schemas, h.resolved, other.resolved, 'response', changes, where);
  }
  for (const [key, h] of nh) {
    if (!oh.has(key)) changes.add({ kind: 'response-header-added', pointer: h.slot, side: 'new', message: `response header ${h.name} added` }, where);
  }
}

/** Error codes of an error response: `value.code` of its named examples (the error catalog), with where each is. */
function errorCodes(doc: Doc, r: Located<JsonObject>): Map<string, string> {
  const codes = new Map<string, string>();
  const content = isObject(r.value.content) ? r.value.content : {};
  for (const [type, media] of Object.entries(content)) {
    if (!isObject(media) || !isObject(media.examples)) continue;
    for (const [name, raw] of Object.entries(media.examples)) {
      const slot = pointer(r.pointer, 'content', type, 'examples', name);
      const example = doc.object(raw, slot)?.value;
      const code = isObject(example?.value) ? example.value.code : undefined;
      if (typeof code === 'string' && !codes.has(code)) codes.set(code, slot);
    }
  }
  return codes;
}

function compareErrorCodes(oldDoc: Doc, newDoc: Doc, o: Located<JsonObject>, n: Located<JsonObject>, status: string, changes: Changes, where: string): void {
  const oc = errorCodes(oldDoc, o);
  const nc = errorCodes(newDoc, n);
  for (const [code, ptr] of oc) {
    if (!nc.has(code)) changes.add({ kind: 'error-code-removed', pointer: ptr, side: 'old', message: `error code "${code}" no longer returned with ${status}` }, where);
  }
  for (const [code, ptr] of nc) {
    if (!oc.has(code)) changes.add({ kind: 'error-code-added', pointer: ptr, side: 'new', message: `error code "${code}" added to ${status}` }, where);
  }
}

