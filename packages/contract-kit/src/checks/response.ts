// Every response against the bundled spec: the status is documented for the operation, the content type is
// one it declares (and a response declared without content, like the edge's 502/504, does not claim JSON),
// the body matches the schema (Ajv 2020-12 over the document), documented headers have their format, and an
// error code is one the document lists. A mismatch only on what the spec marks x-assumed is a warning with
// the x-assumed-reason.
import type { ErrorObject } from 'ajv';
import { isObject, resolvePointer } from '@payments/spec';
import type { KitContext } from '../context.ts';
import { contentTypeOf, essence, parseJson, type HttpResponse } from '../http.ts';
import { documentedResponse, isJsonMedia, type OperationModel, type ResponseModel } from '../spec-model.ts';
import type { Finding } from '../types.ts';

export interface StatusHint {
  /** The status the caller expected, when the spec only assumed it (e.g. 401 for a bad key). */
  expected: string;
  assumedReason: string;
  /** What to say instead of "expected <status>, which the spec only assumes" (a valid request's refusal). */
  note?: string;
}

export const label = (op: OperationModel, response: HttpResponse): string => `${op.method} ${op.path} → ${response.status}`;

/** The label with the answer's error code, if it has one: a message says what came back, not only its status. */
export const answered = (op: OperationModel, response: HttpResponse): string => {
  const code = errorCodeOf(response);
  return code === undefined ? label(op, response) : `${label(op, response)} ${code}`;
};

/** A problem+json 4xx answered by Prism itself (a request it rejected where the spec has no response for it). */
export const isPrismProblem = (ctx: KitContext, response: HttpResponse): boolean =>
  ctx.caps.ownProblemJson && response.status >= 400 && response.status < 500 && essence(contentTypeOf(response)) === 'application/problem+json';

export function checkResponse(ctx: KitContext, op: OperationModel, response: HttpResponse, hint?: StatusHint): Finding[] {
  const at = label(op, response);
  if (isPrismProblem(ctx, response)) {
    return [{ severity: 'warning', rule: 'prism', message: `${at}: Prism answered its own problem+json validation error (${prismTitle(response)}); that is the mock, not the server` }];
  }
  const documented = documentedResponse(op, response.status);
  if (!documented) return [undocumentedStatus(op, response, at, hint)];
  const findings: Finding[] = [];
  const type = essence(contentTypeOf(response));
  if (documented.content.length === 0) {
    const claimsJson = (type !== null && isJsonMedia(type)) || looksLikeJsonObject(response.text);
    if (claimsJson) {
      findings.push({
        severity: 'failure',
        rule: 'edge-body',
        message: documented.edge
          ? `${at}: the spec declares this ${response.status} without content (x-origin: edge: the edge network's answer, never the API's JSON), but it claims JSON (content-type ${type ?? 'none'}, body ${snippet(response.text)}); clients would take it for an API error`
          : `${at}: the spec declares this response without content, but it claims JSON (content-type ${type ?? 'none'}, body ${snippet(response.text)})`,
      });
    }
  } else {
    findings.push(...checkBody(ctx, op, documented, response, at, type));
  }
  findings.push(...checkHeaders(ctx, documented, response, at));
  return findings;
}

/**
 * The x-assumed-reason of an error code the provider's document never states: every catalog entry of it is
 * x-assumed (invalid_api_key, invalid_request). Undefined for a code the document names.
 */
export function assumedCodeReason(ctx: KitContext, code: string): string | undefined {
  const entries = ctx.api.catalog.filter((e) => e.code === code);
  if (entries.length === 0 || !entries.every((e) => e.assumed)) return undefined;
  return entries.find((e) => e.assumedReason)?.assumedReason ?? 'marked x-assumed';
}

/** The `code` of a JSON (error) body, if it has one. */
export function errorCodeOf(response: HttpResponse): string | undefined {
  const parsed = parseJson(response.text);
  return parsed.ok && isObject(parsed.value) && typeof parsed.value.code === 'string' ? parsed.value.code : undefined;
}

function undocumentedStatus(op: OperationModel, response: HttpResponse, at: string, hint: StatusHint | undefined): Finding {
  const documented = op.responses.map((r) => r.status).join(', ');
  const message = `${at}: status ${response.status} is not documented for ${op.operationId} (documented: ${documented}); body ${snippet(response.text)}`;
  const sameClass = (status: string) => status[0] === String(response.status)[0];
  if (hint && sameClass(hint.expected)) return { severity: 'warning', rule: 'status', message: `${message}; ${hint.note ?? `expected ${hint.expected}, which the spec only assumes`}`, assumedReason: hint.assumedReason };
  // A success status the spec only assumes (e.g. 201 where the provider never said): another 2xx is a warning.
  const successes = op.responses.filter((r) => r.status.startsWith('2'));
  if (response.status >= 200 && response.status < 300 && successes.length > 0 && successes.every((r) => r.assumedReason)) {
    return { severity: 'warning', rule: 'status', message: `${message}; the spec only assumes ${successes.map((r) => r.status).join('/')}`, assumedReason: successes[0]!.assumedReason! };
  }
  return { severity: 'failure', rule: 'status', message };
}

function checkBody(ctx: KitContext, op: OperationModel, documented: ResponseModel, response: HttpResponse, at: string, type: string | null): Finding[] {
  const declared = documented.content.map((m) => m.type).join(', ');
  if (!response.text) return [{ severity: 'failure', rule: 'body-schema', message: `${at}: empty body; the spec declares ${declared}` }];
  const media = documented.content.find((m) => mediaMatches(m.type, type));
  if (!media) {
    return [{ severity: 'failure', rule: 'content-type', message: `${at}: content-type ${type ?? '(none)'}, but the spec declares ${declared}; body ${snippet(response.text)}` }];
  }
  if (!isJsonMedia(media.type) || !media.schemaPointer) return [];
  const parsed = parseJson(response.text);
  if (!parsed.ok) return [{ severity: 'failure', rule: 'body-schema', message: `${at}: content-type ${type} but the body is not valid JSON: ${snippet(response.text)}` }];
  const validate = ctx.api.validator.schemaAt(media.schemaPointer);
  const findings: Finding[] = [];
  if (!validate(parsed.value)) {
    const errors = [...(validate.errors ?? [])];
    const text = `${at}: body does not match the schema (${formatErrors(errors)}); body ${snippet(response.text)}`;
    // The body's own annotations decide (a response-level x-assumed is about its status): a mismatch that
    // disappears once the schema's x-assumed nodes are relaxed is a warning with the nearest reasons.
    const { onlyAssumptions, assumptions } = ctx.assumptions.explain(media.schemaPointer, parsed.value, errors);
    if (onlyAssumptions) {
      findings.push({ severity: 'warning', rule: 'body-schema', message: text, assumedReason: assumptions.map((a) => a.reason).join(' | ') || 'x-assumed' });
    } else {
      findings.push({ severity: 'failure', rule: 'body-schema', message: text });
    }
  }
  // An error code the document does not list for this operation and status: the lists are not exhaustive.
  if (response.status >= 400 && isObject(parsed.value) && typeof parsed.value.code === 'string') {
    const known = op.codes.get(response.status);
    const code = parsed.value.code;
    // A catalog code answered at another status than the catalog gives it: the code's meaning is fixed.
    const elsewhere = [...new Set(ctx.api.catalog.filter((e) => e.code === code && e.status !== response.status).map((e) => e.status))];
    if (!known?.has(code) && elsewhere.length > 0 && !ctx.api.catalog.some((e) => e.code === code && e.status === response.status)) {
      // Prism answers a request it rejects itself at 422 where the operation declares one (its rule, not the
      // contract's 400), with the sl-violations header: the mock's limitation, reported, not the server's bug.
      const prismOwn = ctx.caps.ownProblemJson && response.headers.get('sl-violations') !== null;
      // A code whose every catalog entry is x-assumed (401 invalid_api_key): the provider never gave its status.
      const assumedReason = assumedCodeReason(ctx, code);
      findings.push({
        severity: prismOwn || assumedReason ? 'warning' : 'failure',
        rule: 'error-code',
        message: `${at}: code "${code}" answered at ${response.status}; the catalog gives it at ${elsewhere.join(', ')}${prismOwn ? " (Prism's own validation answer: Prism rejects at 422 where the operation documents one)" : ''}${assumedReason ? ` (assumed: the spec only assumes "${code}" at ${elsewhere.join(', ')}; the provider's document does not state it)` : ''}`,
        ...(assumedReason ? { assumedReason } : {}),
      });
    } else if (known && !known.has(code)) {
      findings.push(unlistedCode(ctx, op, response.status, code, known, at));
    }
  }
  return findings;
}

/**
 * A code the spec does not list for the operation at that status: a warning (the document's lists are not
 * exhaustive). Its words keep apart what the provider's document states and what only the spec assumes: the
 * 413's payload_too_large, the 401's invalid_api_key, the 429's rate_limit_exceeded and the generic
 * invalid_request are the spec's conventional choices, not codes "the document gives"; where every listed code
 * is assumed, the warning carries their reason.
 */
function unlistedCode(ctx: KitContext, op: OperationModel, status: number, code: string, known: Set<string>, at: string): Finding {
  const assumedOf = (c: string) => ctx.api.catalog.find((e) => e.operationId === op.operationId && e.status === status && e.code === c)?.assumed ?? assumedCodeReason(ctx, c) !== undefined;
  const assumed = [...known].filter(assumedOf);
  const stated = [...known].filter((c) => !assumedOf(c));
  const head = `${at}: code "${code}" is not`;
  if (stated.length === 0) {
    const reason = assumedCodeReason(ctx, assumed[0]!) ?? op.responses.find((r) => r.status === String(status))?.assumedReason ?? 'x-assumed';
    return { severity: 'warning', rule: 'error-code', message: `${head} the one the spec assumes for ${op.operationId} at ${status} (${assumed.join(', ')}); the provider's document names no code for it`, assumedReason: reason };
  }
  const alsoAssumed = assumed.length > 0 ? ` nor one the spec assumes (${assumed.join(', ')})` : '';
  return { severity: 'warning', rule: 'error-code', message: `${head} one the document gives ${op.operationId} for ${status} (${stated.join(', ')})${alsoAssumed}; the document's lists are not exhaustive` };
}

function checkHeaders(ctx: KitContext, documented: ResponseModel, response: HttpResponse, at: string): Finding[] {
  const findings: Finding[] = [];
  const code = documented.headers.some((h) => h.requiredWithCodes.length > 0) ? errorCodeOf(response) : undefined;
  for (const header of documented.headers) {
    const value = response.headers.get(header.name);
    const { assumedReason } = header;
    const severity = assumedReason ? 'warning' : 'failure';
    const extra = assumedReason ? { assumedReason } : {};
    if (value === null) {
      if (header.required) findings.push({ severity, rule: 'header', message: `${at}: required header ${header.name} is missing`, ...extra });
      else if (code !== undefined && header.requiredWithCodes.includes(code)) {
        findings.push({ severity, rule: 'header', message: `${at}: header ${header.name} is missing, and the spec says it is always sent with ${code}`, ...extra });
      }
      continue;
    }
    if (!header.schemaPointer) continue;
    const schema = resolvePointer(ctx.api.doc, header.schemaPointer);
    const validate = ctx.api.validator.schemaAt(header.schemaPointer);
    const typed = coerceHeader(value, isObject(schema) ? schema.type : undefined, ctx, header.schemaPointer);
    if (!validate(typed)) {
      findings.push({ severity, rule: 'header', message: `${at}: header ${header.name}: "${value}" ${formatErrors([...(validate.errors ?? [])])}`, ...extra });
    }
  }
  return findings;
}

/** Header values are text: `"30"` is the integer 30 for a schema of type integer; anything else stays text. */
function coerceHeader(value: string, type: unknown, ctx: KitContext, pointer: string): unknown {
  let resolvedType = type;
  if (resolvedType === undefined) {
    const node = resolvePointer(ctx.api.doc, pointer);
    if (isObject(node) && typeof node.$ref === 'string') {
      const target = resolvePointer(ctx.api.doc, node.$ref);
      resolvedType = isObject(target) ? target.type : undefined;
    }
  }
  if ((resolvedType === 'integer' || resolvedType === 'number') && /^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value.trim());
  if (resolvedType === 'boolean' && /^(true|false)$/.test(value.trim())) return value.trim() === 'true';
  return value;
}

function mediaMatches(declared: string, actual: string | null): boolean {
  if (!actual) return false;
  const d = declared.split(';')[0]!.trim();
  if (d === actual || d === '*/*') return true;
  const [dt, ds] = d.split('/');
  const [at, as] = actual.split('/');
  return (ds === '*' && dt === at) || (dt === at && ds === as);
}

function looksLikeJsonObject(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  return parseJson(trimmed).ok;
}

export function formatErrors(errors: readonly ErrorObject[], max = 3): string {
  const lines = errors
    .filter((e) => !(e.keyword === 'oneOf' || e.keyword === 'anyOf') || errors.length === 1)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`);
  const unique = [...new Set(lines)];
  return unique.slice(0, max).join('; ') + (unique.length > max ? `; … ${unique.length - max} more` : '');
}

export function snippet(text: string, max = 160): string {
  if (!text) return '(empty)';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function prismTitle(response: HttpResponse): string {
  const parsed = parseJson(response.text);
  if (parsed.ok && isObject(parsed.value)) {
    const validation = Array.isArray(parsed.value.validation) ? parsed.value.validation : [];
    const first = validation.find(isObject);
    return [parsed.value.title, first?.message].filter((s) => typeof s === 'string').join(': ');
  }
  return snippet(response.text, 80);
}
