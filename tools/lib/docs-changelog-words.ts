// One change of the breaking-change gate said in words about the API, for the docs' changelog: which
// operation and which part of it (request, a response status, a parameter, a header), which field, and what
// happened to it ("`available` no longer has an exclusive minimum of 0", "new error code `x` with 400").
//
// The gate's Change carries a JSON pointer (where the definition changed, often a shared component) and a
// short technical message ("response exclusiveMinimum 0 → undefined"). A reader of the API knows neither
// components nor pointers: the field is found by walking from the operation's part (its `where`) through the
// schemas to the changed node, in the document the pointer belongs to (the new spec, or the released one for
// a removal); the message's values are read back from the gate's fixed message formats (compare.ts,
// schema.ts, security.ts). When the walk finds nothing (an old release's document is not kept), the field
// comes from the pointer's own `properties/<name>` steps; the pointer itself is never the text.
import { Doc, isObject, type Json, type JsonObject } from './breaking/json.ts';
import type { Change } from './breaking/compare.ts';

/** Where a change is reached: "POST /v1/banking/transfers request body" → operation and part. */
export interface Place {
  operation?: string | undefined; // "POST /v1/banking/transfers"
  part?: string | undefined; // "request body", "response 201", "query parameter limit"
}

export function placeOf(where: string): Place {
  const match = /^([A-Z]+ \S+)(?: (.+))?$/.exec(where);
  return match ? { operation: match[1]!, part: match[2] } : {};
}

/** The part in words: "request body" → "request", "response 201" → "201 response". */
export function partInWords(part: string | undefined): string {
  if (!part) return '';
  const response = /^response (\S+)$/.exec(part);
  if (response) return `${response[1]} response`;
  if (part === 'request body') return 'request';
  return part.replace(/^(\w+) parameter (.+)$/, '$1 parameter `$2`');
}

const decode = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');
const tokensOf = (ptr: string) => (ptr === '' ? [] : ptr.slice(1).split('/').map(decode));

/** A field path as a reader writes it: `recipient.pixKey`, `items[]`, with the shape of a oneOf alternative. */
export interface FieldPath {
  names: string[];
  /** "as a string": the alternative of a oneOf/anyOf the change is in, by its type or title. */
  shape?: string | undefined;
  /** The schema keyword the pointer ends in (`maxLength`, `enum`, `required`), if any. */
  keyword?: string | undefined;
}

function shapeOf(value: Json | undefined, index: number): string {
  if (isObject(value) && typeof value.title === 'string') return `as ${value.title}`;
  if (isObject(value) && typeof value.type === 'string') return `as ${/^[aeiou]/.test(value.type) ? 'an' : 'a'} ${value.type}`;
  return `in its alternative ${index + 1}`;
}

/** The schemas an operation's part starts from (request body, a response's bodies and headers, a parameter). */
function startsOf(doc: Doc, place: Place): { value: Json; pointer: string; names: string[] }[] {
  const [method, path] = (place.operation ?? '').split(' ');
  const paths = isObject(doc.root.paths) ? doc.root.paths : {};
  const item = path ? doc.object(paths[path], `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}`) : undefined;
  const op = item && method ? doc.object(item.value[method.toLowerCase()], `${item.pointer}/${method.toLowerCase()}`) : undefined;
  if (!op || !place.part) return [];
  const contentSchemas = (holder: JsonObject | undefined, at: string) =>
    Object.entries(isObject(holder?.content) ? holder.content : {}).flatMap(([type, media]) =>
      isObject(media) && media.schema !== undefined ? [{ value: media.schema, pointer: `${at}/content/${type.replace(/\//g, '~1')}/schema`, names: [] as string[] }] : [],
    );
  if (place.part === 'request body') {
    const body = doc.object(op.value.requestBody, `${op.pointer}/requestBody`);
    return body ? contentSchemas(body.value, body.pointer) : [];
  }
  const status = /^response (\S+)$/.exec(place.part)?.[1];
  if (status) {
    const response = doc.object((isObject(op.value.responses) ? op.value.responses : {})[status], `${op.pointer}/responses/${status}`);
    if (!response) return [];
    const headers = Object.entries(isObject(response.value.headers) ? response.value.headers : {}).flatMap(([name, raw]) => {
      const header = doc.object(raw, `${response.pointer}/headers/${name}`);
      return header && header.value.schema !== undefined ? [{ value: header.value.schema, pointer: `${header.pointer}/schema`, names: [`header ${name}`] }] : [];
    });
    return [...contentSchemas(response.value, response.pointer), ...headers];
  }
  const parameter = /^(\w+) parameter (.+)$/.exec(place.part);
  if (parameter) {
    const lists = [item?.value.parameters, op.value.parameters];
    const found = lists.flatMap((list, i) =>
      (Array.isArray(list) ? list : []).flatMap((raw, j) => {
        const p = doc.object(raw, `${i === 0 ? item!.pointer : op.pointer}/parameters/${j}`);
        return p && p.value.name === parameter[2] && p.value.in === parameter[1] && p.value.schema !== undefined ? [{ value: p.value.schema, pointer: `${p.pointer}/schema`, names: [] as string[] }] : [];
      }),
    );
    return found.slice(-1); // the operation's own parameter overrides the path item's
  }
  return [];
}

/** Walks from `start` through $refs, properties, items and alternatives to `target` (bounded by `seen`). */
function walk(doc: Doc, value: Json, ptr: string, target: string, path: FieldPath, seen: Set<string>): FieldPath | undefined {
  const resolved = doc.resolve(value, ptr);
  if (target === resolved.pointer) return path;
  const prefix = `${resolved.pointer}/`;
  if (seen.has(resolved.pointer) || !isObject(resolved.value)) return undefined;
  seen.add(resolved.pointer);
  const node = resolved.value;
  const children: [Json, string, FieldPath][] = [];
  for (const [name, child] of Object.entries(isObject(node.properties) ? node.properties : {})) {
    children.push([child, `${prefix}properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, { ...path, names: [...path.names, name] }]);
  }
  if (node.items !== undefined) children.push([node.items, `${prefix}items`, { ...path, names: [...path.names.slice(0, -1), `${path.names.at(-1) ?? ''}[]`] }]);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    list.forEach((child, i) => children.push([child, `${prefix}${key}/${i}`, key === 'allOf' ? path : { ...path, shape: shapeOf(doc.resolve(child, `${prefix}${key}/${i}`).value, i) }]));
  }
  if (isObject(node.additionalProperties)) children.push([node.additionalProperties, `${prefix}additionalProperties`, { ...path, names: [...path.names, '*'] }]);
  for (const [child, childPtr, childPath] of children) {
    const found = walk(doc, child, childPtr, target, childPath, seen);
    if (found) return found;
  }
  // The target is inside this schema but under no sub-schema: a keyword of it (maxLength, enum/2, required/0).
  return target.startsWith(prefix) ? { ...path, keyword: tokensOf(target.slice(resolved.pointer.length))[0] } : undefined;
}

/** The field a change is about: walked from its first place in `doc`, else read off the pointer's own steps. */
export function fieldOf(change: Change, doc: JsonObject | undefined): FieldPath {
  if (doc) {
    const d = new Doc(doc, 'changelog document');
    for (const where of change.where) {
      for (const start of startsOf(d, placeOf(where))) {
        try {
          const found = walk(d, start.value, start.pointer, change.pointer, { names: start.names }, new Set());
          if (found) return found;
        } catch {
          // An unresolvable $ref in a document the gate already read: fall back to the pointer.
        }
      }
    }
  }
  const tokens = tokensOf(change.pointer);
  const names: string[] = [];
  tokens.forEach((t, i) => {
    if (tokens[i - 1] === 'properties') names.push(t);
  });
  const last = tokens.at(-1);
  const keyword = last !== undefined && !/^\d+$/.test(last) && tokens.at(-2) !== 'properties' ? last : tokens.at(-2);
  return { names, keyword };
}

const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A value from the gate's message (JSON as `show` wrote it; cut ones end in "..."), as inline code. */
function valueText(shown: string): string {
  try {
    const value = JSON.parse(shown) as Json;
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
    return code(typeof value === 'string' ? value : JSON.stringify(value));
  } catch {
    return code(shown);
  }
}

const KEYWORDS: Record<string, string> = {
  minimum: 'a minimum of',
  maximum: 'a maximum of',
  exclusiveMinimum: 'an exclusive minimum of',
  exclusiveMaximum: 'an exclusive maximum of',
  minLength: 'a minimum length of',
  maxLength: 'a maximum length of',
  minItems: 'a minimum number of items of',
  maxItems: 'a maximum number of items of',
  minProperties: 'a minimum number of fields of',
  maxProperties: 'a maximum number of fields of',
  multipleOf: 'a step (multipleOf) of',
  pattern: 'the pattern',
  format: 'the format',
  uniqueItems: 'unique items:',
};

/** "a maximum length of 24", "the pattern `^a$`", "a ban on fields it does not name". */
function constraint(keyword: string, shown: string): string {
  if (keyword === 'additionalProperties') return shown === 'false' ? 'a ban on fields it does not name' : `a rule for fields it does not name (${valueText(shown)})`;
  return `${KEYWORDS[keyword] ?? `the constraint ${code(keyword)}`} ${valueText(shown)}`;
}

/** The thing a sentence is about: the field, else the parameter/header/body the place names. */
function subjectOf(field: FieldPath, place: Place): string {
  const names = field.names.filter((n) => !n.startsWith('header '));
  const header = field.names.find((n) => n.startsWith('header '));
  const shape = field.shape ? ` (${field.shape})` : '';
  if (names.length > 0) return `${code(names.join('.'))}${shape}`;
  if (header) return `the ${code(header.slice('header '.length))} header${shape}`;
  const parameter = /^(\w+) parameter (.+)$/.exec(place.part ?? '');
  if (parameter) return `the ${parameter[1]} parameter ${code(parameter[2]!)}${shape}`;
  return `the ${place.part?.startsWith('response') ? 'response' : 'request'} body${shape}`;
}

const quoted = (message: string) => /"([^"]*)"/.exec(message)?.[1] ?? '';

/** The gate's message for schema keywords: "request maxLength 18 → 24" → keyword, before, after. */
function keywordChange(message: string): { keyword: string; before: string; after: string } | undefined {
  const match = /^(?:request|response) (\S+) (.+?) → (.+)$/.exec(message);
  return match ? { keyword: match[1]!, before: match[2]!, after: match[3]! } : undefined;
}

function keywordSentence(subject: string, message: string): string | undefined {
  const k = keywordChange(message);
  if (!k) return undefined;
  if (k.keyword === 'type') return `${subject} is now of type ${k.after.replace(/\|/g, ' or ')} (was ${k.before.replace(/\|/g, ' or ')})`;
  if (k.after === 'undefined') return `${subject} no longer has ${constraint(k.keyword, k.before)}`;
  if (k.before === 'undefined') return `${subject} now has ${constraint(k.keyword, k.after)}`;
  return `${subject} now has ${constraint(k.keyword, k.after)} (was ${valueText(k.before)})`;
}

/** A change as one sentence about the API (without its place: changeLine adds the operation). */
export function sentenceOf(change: Change, field: FieldPath, place: Place, errorCodeLink: (code: string) => string): string {
  const subject = subjectOf(field, place);
  const m = change.message;
  const valueOf = () => valueText(/ value (.+) (?:added|removed)$/.exec(m)?.[1] ?? '');
  const fieldName = () => {
    const names = field.names.filter((n) => !n.startsWith('header '));
    // A field's own pointer (properties/<name>) already ends the path; a `required` entry's does not.
    return code((names.at(-1) === quoted(m) ? names : [...names, quoted(m)]).filter(Boolean).join('.'));
  };
  const listed = (text: string) => {
    try {
      const values = JSON.parse(text) as Json;
      return Array.isArray(values) ? values.map((v) => valueText(JSON.stringify(v))).join(', ') : valueText(text);
    } catch {
      return code(text);
    }
  };
  switch (change.kind) {
    case 'operation-added':
      return 'new operation';
    case 'operation-removed':
      return 'operation removed';
    case 'operation-id-added':
    case 'operation-id-removed':
    case 'operation-id-changed': {
      const ids = [...m.matchAll(/"([^"]+)"/g)].map((x) => code(x[1]!));
      return change.kind === 'operation-id-changed' ? `its operationId (its name in @payments/types) changed from ${ids[0]} to ${ids[1]}` : `its operationId ${ids[0]} was ${change.kind === 'operation-id-added' ? 'added' : 'removed'}`;
    }
    case 'path-template-changed': {
      const [from, to] = [...m.matchAll(/"([^"]+)"/g)].map((x) => code(x[1]!));
      return `its path template (its key in @payments/types' \`paths\`, with the parameter names) changed from ${from} to ${to}; the requests on the wire are the same`;
    }
    case 'schema-component-removed':
      return `schema ${code(/"([^"]+)"/.exec(m)?.[1] ?? '')}, exported by @payments/types under that name, was removed or renamed; the requests on the wire are the same`;
    case 'operation-product-changed':
      return `moves to another product (${m.replace(/^product tag /, '').replace(' → ', ' to ').replace(/undefined/g, 'none')})`;
    case 'parameter-added-required':
    case 'parameter-added-optional':
      return `new ${change.kind.endsWith('required') ? 'required' : 'optional'} ${m.split(' ')[0]} parameter ${code(quoted(m))}`;
    case 'parameter-removed':
      return `the ${m.split(' ')[0]} parameter ${code(quoted(m))} is no longer read`;
    case 'parameter-became-required':
    case 'parameter-became-optional':
      return `the ${m.split(' ')[0]} parameter ${code(quoted(m))} is now ${change.kind.endsWith('required') ? 'required' : 'optional'}`;
    case 'request-body-added-required':
      return 'now takes a request body, and requires it';
    case 'request-body-added-optional':
      return 'now takes an optional request body';
    case 'request-body-removed':
      return 'no longer reads a request body';
    case 'request-body-became-required':
      return 'the request body is now required';
    case 'request-body-became-optional':
      return 'the request body is now optional';
    case 'request-media-type-removed':
    case 'request-media-type-added':
    case 'response-media-type-removed':
    case 'response-media-type-added': {
      const type = code(/content (\S+)/.exec(m)?.[1] ?? '');
      if (change.kind === 'request-media-type-removed') return `no longer accepts ${type} bodies`;
      if (change.kind === 'request-media-type-added') return `also accepts ${type} bodies`;
      return change.kind === 'response-media-type-removed' ? `no longer answers with ${type}` : `may also answer with ${type}`;
    }
    case 'request-field-added-required':
      return `new required field ${fieldName()}`;
    case 'request-field-added-optional':
      return `new optional field ${fieldName()}`;
    case 'response-field-added':
      return `new field ${fieldName()}`;
    case 'request-field-removed':
    case 'request-field-removed-closed':
    case 'response-field-removed':
      return `field ${fieldName()} removed`;
    case 'request-field-became-required':
    case 'response-field-became-required':
      return `${fieldName()} is now required`;
    case 'request-field-became-optional':
    case 'response-field-became-optional':
      return `${fieldName()} is now optional${change.kind.startsWith('response') ? ': it may be missing' : ''}`;
    case 'request-enum-value-added':
      return `${subject} now accepts the value ${valueOf()}`;
    case 'request-enum-value-removed':
      return `${subject} no longer accepts the value ${valueOf()}`;
    case 'response-enum-value-added':
    case 'response-extensible-enum-value-added':
      return `${subject} may now be ${valueOf()}`;
    case 'response-enum-value-removed':
      return `${subject} is no longer ${valueOf()}`;
    case 'request-variant-added':
    case 'response-variant-added':
    case 'request-variant-removed':
    case 'response-variant-removed': {
      // The pointer is the alternative itself: the subject is what holds it, named without the alternative's shape.
      const holder = subjectOf({ ...field, shape: undefined }, place);
      const name = valueText(/alternative (.+) (?:added|removed)$/.exec(m)?.[1] ?? '');
      const added = change.kind.endsWith('added');
      return change.kind.startsWith('request') ? `${holder} ${added ? 'accepts a new alternative,' : 'no longer accepts the alternative'} ${name}` : `${holder} ${added ? 'may now come as a new alternative,' : 'no longer comes as the alternative'} ${name}`;
    }
    case 'schema-composition-changed':
      return m.includes('became') ? `${subject} became a choice between alternatives (oneOf/anyOf)` : `${subject} is no longer a choice between alternatives (oneOf/anyOf)`;
    case 'response-status-added':
      return `may now answer ${code(/response (\S+)/.exec(m)?.[1] ?? '')}`;
    case 'response-status-removed':
      return `no longer answers ${code(/response (\S+)/.exec(m)?.[1] ?? '')}`;
    case 'response-header-added':
    case 'response-header-removed':
    case 'response-header-became-required':
    case 'response-header-became-optional': {
      const header = code(/response header (\S+)/.exec(m)?.[1] ?? '');
      if (change.kind === 'response-header-added') return `new response header ${header}`;
      if (change.kind === 'response-header-removed') return `the response no longer carries the ${header} header`;
      return `the ${header} header is now ${change.kind.endsWith('required') ? 'always sent' : 'optional: it may be missing'}`;
    }
    case 'error-code-added':
    case 'error-code-removed': {
      const errorCode = quoted(m);
      const status = /(\S+)$/.exec(m)?.[1] ?? '';
      return change.kind === 'error-code-added' ? `new error code [${code(errorCode)}](${errorCodeLink(errorCode)}) with ${status}` : `error code ${code(errorCode)} no longer comes with ${status}`;
    }
    default: {
      if (change.kind.startsWith('security-')) return m.replace(/^security (?!scheme)/, 'authentication ').replace(/ → /g, ' became ').replace(/\bundefined\b/g, 'none');
      // Values: type, enum restrictions, patterns, bounds and every other validation keyword.
      const restricted = /values (no longer )?restricted to (.+)$/.exec(m);
      if (restricted) return restricted[1] ? `${subject} is no longer limited to ${listed(restricted[2]!)}` : `${subject} now only takes ${listed(restricted[2]!)}`;
      return keywordSentence(subject, m) ?? `${subject}: ${code(m)}`;
    }
  }
}
