// What a generated request must get back, beyond a conforming response: a VALID request is not rejected as
// invalid (400 invalid_request, or Prism's own 4xx rejection) and gets no undocumented 5xx; a MUTATED request
// gets a 4xx with the shared error body. 429 and the documented 503/502/504 say nothing either way
// (inconclusive, reported as warnings).
import { isObject } from '@payments/spec';
import type { KitContext } from '../context.ts';
import { contentTypeOf, essence, parseJson, type Exchange, type HttpResponse } from '../http.ts';
import { documentedResponse, isJsonMedia, type OperationModel } from '../spec-model.ts';
import type { Finding } from '../types.ts';
import { formatErrors, isPrismProblem, label, snippet } from './response.ts';

/** The generic validation code (the catalog's code for "the request does not match the contract"). */
export const VALIDATION_CODE = 'invalid_request';

export function noResponse(ex: Exchange, op: OperationModel): Finding {
  return { severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no response (${ex.error ?? 'unknown error'})` };
}

/** 429 / documented 503 / edge 502/504: the server could not answer the question the request asked. */
function inconclusive(op: OperationModel, response: HttpResponse): Finding | undefined {
  const documented = documentedResponse(op, response.status);
  if (response.status === 429) return { severity: 'warning', rule: 'inconclusive', message: `${label(op, response)}: rate limited; the request's outcome was not checked` };
  if (response.status >= 500 && documented && (response.status === 503 || documented.edge)) {
    return { severity: 'warning', rule: 'inconclusive', message: `${label(op, response)}: a documented temporary ${response.status}; the request's outcome was not checked` };
  }
  return undefined;
}

export function expectAccepted(ctx: KitContext, op: OperationModel, ex: Exchange, bodyAssumedReason: string | undefined): Finding[] {
  const response = ex.response;
  if (!response) return [noResponse(ex, op)];
  const at = label(op, response);
  const skip = inconclusive(op, response);
  if (skip) return [skip];
  if (response.status >= 500) return [{ severity: 'failure', rule: 'server-error', message: `${at}: a valid request got a ${response.status}` }];
  if (response.status < 400 || response.status >= 500) return [];
  const violations = prismViolations(response);
  if (ctx.target === 'prism' && (violations || isPrismProblem(ctx, response))) {
    const list = violations ?? [];
    if (list.length > 0 && onlyMultipleOf(list)) {
      return [
        {
          severity: 'warning',
          rule: 'prism',
          message: `${at}: Prism rejected a valid JSON number under multipleOf 0.01 (${list.map((v) => v.message).join('; ')}): Prism divides in binary floating point, a known limitation of the mock (see README), not of the contract`,
        },
      ];
    }
    const reasons = list.map((v) => v.message).join('; ') || snippet(response.text);
    return [{ severity: 'failure', rule: 'valid-rejected', message: `${at}: Prism rejected a request that is valid per the spec: ${reasons}` }];
  }
  const parsed = parseJson(response.text);
  const code = parsed.ok && isObject(parsed.value) ? parsed.value.code : undefined;
  if ((response.status === 400 || response.status === 422) && code === VALIDATION_CODE) {
    const message = `${at}: a request that is valid per the spec was rejected as ${VALIDATION_CODE}: ${snippet(response.text)}`;
    if (bodyAssumedReason) return [{ severity: 'warning', rule: 'valid-rejected', message, assumedReason: bodyAssumedReason }];
    return [{ severity: 'failure', rule: 'valid-rejected', message }];
  }
  return [];
}

export function expectRejected(ctx: KitContext, op: OperationModel, ex: Exchange, mutation: string): Finding[] {
  const response = ex.response;
  if (!response) return [noResponse(ex, op)];
  const at = label(op, response);
  const skip = inconclusive(op, response);
  if (skip) return [skip];
  if (response.status >= 500) return [{ severity: 'failure', rule: 'server-error', message: `${at}: invalid input (${mutation}) got a ${response.status}; bad input must get a 4xx` }];
  if (response.status < 400) return [{ severity: 'failure', rule: 'invalid-accepted', message: `${at}: invalid input (${mutation}) was not rejected; body ${snippet(response.text)}` }];
  if (isPrismProblem(ctx, response)) return []; // the response check reports it (Prism's own problem+json)
  // A documented JSON response is validated by the response check; otherwise check the shared error body here.
  const documented = documentedResponse(op, response.status);
  if (documented && documented.content.some((m) => isJsonMedia(m.type))) return [];
  const type = essence(contentTypeOf(response));
  const parsed = parseJson(response.text);
  const validate = ctx.api.validator.schemaAt(ctx.api.errorSchemaPointer);
  if (type && isJsonMedia(type) && parsed.ok && validate(parsed.value)) return [];
  const why = !parsed.ok ? `body ${snippet(response.text)}` : formatErrors([...(validate.errors ?? [])]);
  return [{ severity: 'failure', rule: 'invalid-error-body', message: `${at}: invalid input (${mutation}) was rejected without the shared error body (content-type ${type ?? 'none'}; ${why})` }];
}

interface PrismViolation {
  location: string[];
  code: string;
  message: string;
}

/** The `sl-violations` header Prism adds when it validated the request and found violations. */
export function prismViolations(response: HttpResponse): PrismViolation[] | undefined {
  const header = response.headers.get('sl-violations');
  if (!header) return undefined;
  const parsed = parseJson(header);
  if (!parsed.ok || !Array.isArray(parsed.value)) return [];
  return parsed.value.filter(isObject).map((v) => ({
    location: Array.isArray(v.location) ? v.location.map(String) : [],
    code: String(v.code),
    message: String(v.message),
  }));
}

/** Every violation is a multipleOf one, or the type/oneOf noise Prism adds at the same location. */
function onlyMultipleOf(violations: PrismViolation[]): boolean {
  const at = new Set(violations.filter((v) => v.code === 'multipleOf').map((v) => v.location.join('/')));
  return at.size > 0 && violations.every((v) => at.has(v.location.join('/')) && ['multipleOf', 'type', 'oneOf'].includes(v.code));
}
