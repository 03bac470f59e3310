// The request the console sends, built from what the reader typed (no DOM here), and what it learns from
// the answers: the ids the sandbox returned (to prefill later requests) and which sends were replays.
import { requestIdentity as identityOf } from '../../../packages/sandbox/src/audit/journal.ts';
import type { ConsoleOperation, ConsoleParameter } from '../docs-console.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** One send of an operation from this page. */
export interface Sent {
  n: number;
  status: number;
  key: string | undefined;
  id: string | undefined;
  /** What tells the request apart from another under one key (requestIdentity), as sent. */
  identity: string | undefined;
}

/** A parameter input's value, as the panel holds it. */
export interface ParameterValue {
  name: string;
  in: string;
  value: string;
}

export interface ConsoleRequest {
  url: URL;
  init: RequestInit;
  /** The Idempotency-Key sent, if any. */
  key: string | undefined;
}

/** A typed parameter value its spec rule refuses: which input, and why, said before anything is sent. */
export interface ParameterBreach {
  name: string;
  in: string;
  message: string;
}

/** A parameter's length and pattern rule in words ("8–200 characters matching ^…$"), as the spec gives it; undefined without one. */
export function ruleText({ minLength: min, maxLength: max, pattern }: ConsoleParameter): string | undefined {
  const length = min !== undefined && max !== undefined ? `${min}–${max} characters` : min !== undefined ? `at least ${min} characters` : max !== undefined ? `at most ${max} characters` : undefined;
  if (pattern === undefined) return length;
  return `${length ?? 'a value'} matching ${pattern}`;
}

/**
 * The pattern as the spec's (ECMA-262) regular expression, with the `u` flag as JSON Schema reads it; undefined
 * when this browser cannot compile it (the sandbox then judges). Not the HTML `pattern` attribute: browsers
 * compile that with the `v` flag, where `[A-Za-z0-9._:-]`'s trailing `-` is a syntax error, and then ignore it.
 */
export function patternOf(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** What is wrong with one value, or undefined. Lengths count code points, as JSON Schema does. */
function problemOf(p: ConsoleParameter, value: string): string | undefined {
  const length = [...value].length;
  if (value === '') return p.required ? 'is empty, and the spec requires it' : undefined;
  if (p.minLength !== undefined && length < p.minLength) return `is ${length} characters, under the minimum of ${p.minLength}`;
  if (p.maxLength !== undefined && length > p.maxLength) return `is ${length} characters, over the maximum of ${p.maxLength}`;
  const pattern = p.pattern === undefined ? undefined : patternOf(p.pattern);
  if (pattern && !pattern.test(value)) return `(${length} characters) does not match ${p.pattern}`;
  return undefined;
}

/** The value as quoted in a message: long ones cut, so that the rule stays readable. */
const quoted = (value: string) => (value.length > 40 ? `"${[...value].slice(0, 32).join('')}…"` : `"${value}"`);

/** The first typed value that breaks its parameter's spec rule (empty when required, length, pattern), or undefined. */
export function firstBreach(parameters: ConsoleParameter[], values: ParameterValue[]): ParameterBreach | undefined {
  for (const { name, in: where, value } of values) {
    const p = parameters.find((q) => q.name === name && q.in === where);
    const problem = p && problemOf(p, value);
    if (!p || !problem) continue;
    const rule = ruleText(p);
    const typed = value === '' ? '' : ` ${quoted(value)}`;
    return { name, in: where, message: `Not sent: the ${name} ${where === 'path' || where === 'query' ? `${where} parameter` : where}${typed} ${problem}.${rule ? ` The spec: ${rule}.` : ''}` };
  }
  return undefined;
}

/** Path parameters put in the path, headers and query parameters set when given, the JSON body when the operation takes one. */
export function buildRequest(op: ConsoleOperation, base: URL, given: Record<string, string>, values: ParameterValue[], body: string | undefined): ConsoleRequest {
  const headers = { ...given };
  let path = op.path;
  const query = new URLSearchParams();
  for (const { name, in: where, value } of values) {
    if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(value));
    else if (where === 'header' && value) headers[name] = value;
    else if (where === 'query' && value) query.set(name, value);
  }
  const init: RequestInit = { method: op.method, headers, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = body;
  }
  const url = new URL(path.replace(/^\//, ''), base.href.endsWith('/') ? base.href : `${base.href}/`);
  if ([...query].length > 0) url.search = query.toString();
  const key = Object.entries(headers).find(([name]) => name.toLowerCase() === IDEMPOTENCY_HEADER)?.[1];
  return { url, init, key };
}

/** An earlier send with the same Idempotency-Key that got the same id: this one was answered with its result. */
const answeredAs = (sent: Sent[], s: Sent): Sent | undefined =>
  sent.find((o) => o.n < s.n && o.key !== undefined && o.key === s.key && o.id !== undefined && o.id === s.id);

/** An earlier send of the same request with the same Idempotency-Key that got the same id: this one was a replay. */
export const replayOf = (sent: Sent[], s: Sent): Sent | undefined => {
  const earlier = answeredAs(sent, s);
  return earlier && earlier.identity === s.identity ? earlier : undefined;
};

/**
 * An earlier send with the same key but another request (an edited body) that got the same id: the key kept
 * its first request's result, and the new request was not made (section 7: a new request takes a new key).
 */
export const otherRequestOf = (sent: Sent[], s: Sent): Sent | undefined => {
  const earlier = answeredAs(sent, s);
  return earlier && earlier.identity !== s.identity ? earlier : undefined;
};

/**
 * The body as the API tells requests apart under one key (the sandbox's requestIdentity): a transfer is its
 * recipient and normalized amount, so `150` and `"150.00"` are one request; a checkout session its normalized
 * amount, discount and method; any other body its JSON, whatever the order of its fields. Not JSON: the text.
 */
export function requestIdentity(operationId: string, text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  const parsed = parseBody(text);
  return parsed === undefined ? text : identityOf(operationId, parsed);
}

/** `/v1/banking/recipients` creates a `recipientId`; `/v1/cards` a `cardId`. */
export function idFieldOf(path: string): string {
  const last = path.split('/').filter(Boolean).pop() ?? 'resource';
  return `${last.replace(/s$/, '')}Id`;
}

/** The example with ids the sandbox gave this tab in place of the spec's sample ids. */
export function withRememberedIds(value: unknown, ids: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withRememberedIds(v, ids));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && ids[k] ? ids[k] : withRememberedIds(v, ids)]));
}

/** The body as JSON, when it is JSON. */
export function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A string field of an answer's JSON body (`code`, `id`). */
export function fieldOf(parsed: unknown, field: string): string | undefined {
  return parsed && typeof parsed === 'object' && field in parsed ? String((parsed as Record<string, unknown>)[field]) : undefined;
}
