// What a generated request must get back, beyond a conforming response: a VALID request is not rejected as
// invalid (400 invalid_request, a code the spec gives only to a schema violation, or Prism's own 4xx
// rejection) and gets no undocumented 5xx; a MUTATED request gets a 4xx with the shared error body.
// A documented 503 (or the edge's 502/504) says nothing either way: the kit cannot tell a transient outage from
// a server bug, so it is `inconclusive` (a warning, counted per operation; --strict-503 makes it a failure).
// A 429 is `rate-limited` (a warning): the rate limit is told apart by its status.
import { isObject } from '@payments/spec';
import type { KitContext } from '../context.ts';
import { contentTypeOf, essence, parseJson, type Exchange, type HttpResponse } from '../http.ts';
import { documentedResponse, isJsonMedia, VALIDATION_CODE, type OperationModel } from '../spec-model.ts';
import type { Finding } from '../types.ts';
import { assumedCodeReason, errorCodeOf, formatErrors, isPrismProblem, label, snippet, type StatusHint } from './response.ts';

export { VALIDATION_CODE };

/** The rule of a documented temporary 5xx answer: the request's outcome was not checked. */
export const INCONCLUSIVE = 'inconclusive';
/** The rule of a 429 answer: the request's outcome was not checked either, but the cause is known. */
export const RATE_LIMITED = 'rate-limited';

export function noResponse(ex: Exchange, op: OperationModel): Finding {
  return { severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no response (${ex.error ?? 'unknown error'})` };
}

/**
 * 429, a documented 503 or the edge's documented 502/504: the server did not answer the question the request
 * asked. `what` says what was not established (default: the request's outcome).
 */
export function inconclusive(op: OperationModel, response: HttpResponse, what = "the request's outcome was not checked"): Finding | undefined {
  const at = label(op, response);
  if (response.status === 429) return { severity: 'warning', rule: RATE_LIMITED, message: `${at}: rate limited; ${what}` };
  const documented = documentedResponse(op, response.status);
  if (response.status >= 500 && documented && (response.status === 503 || documented.edge)) {
    const code = errorCodeOf(response);
    const kind = documented.edge ? `the edge's documented ${response.status}` : `a documented ${response.status}${code ? ` (${code})` : ''}`;
    return { severity: 'warning', rule: INCONCLUSIVE, message: `${at}: ${kind}, a transient outage or a server bug; ${what}` };
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
  if (response.status < 400) return [];
  const violations = prismViolations(response);
  if (ctx.caps.ownProblemJson && (violations || isPrismProblem(ctx, response))) {
    const list = violations ?? [];
    if (list.length > 0 && !ctx.caps.exactDecimals && onlyMultipleOf(list)) {
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
  const code = errorCodeOf(response);
  let message: string | undefined;
  if ((response.status === 400 || response.status === 422) && code === VALIDATION_CODE) {
    message = `${at}: a request that is valid per the spec was rejected as ${VALIDATION_CODE}: ${snippet(response.text)}`;
  } else if (code !== undefined && op.schemaOnlyCodes.has(code)) {
    // A code the spec sets with x-error-code on a schema node it states fully: only a schema violation earns it.
    const where = op.schemaCodes.get(code)?.pointers.join(', ') ?? '';
    message = `${at}: a request that is valid per the spec was rejected with ${code}, a code the spec gives only to a schema violation (x-error-code at ${where}): ${snippet(response.text)}`;
  } else if (response.status !== 429 && !op.codes.get(response.status)?.has(code ?? '')) {
    // Positive data may meet a documented domain refusal (404 recipient_not_found…), nothing else.
    message = `${at}: a request that is valid per the spec was refused with ${code ?? 'no code'}, which is not a refusal the spec documents for ${op.operationId} at ${response.status}: ${snippet(response.text)}`;
  }
  if (message === undefined) return [];
  if (bodyAssumedReason) return [{ severity: 'warning', rule: 'valid-rejected', message, assumedReason: bodyAssumedReason }];
  return [{ severity: 'failure', rule: 'valid-rejected', message }];
}

/** What a mutated request broke: its description, the code the rejection must carry, and whether the broken
 *  constraint is only an x-assumed one (then acceptance or another code is a warning with the reason). */
export interface Mutation {
  description: string;
  /** The codes the rejection may carry: the broken constraint's x-error-code alone when a property's
   *  constraint carries one; else the catalog's validation code or any code the body's schema carries (a
   *  missing field or a body of the wrong type breaks several constraints at once). */
  expectedCode?: string | string[] | undefined;
  assumedReason?: string | undefined;
}

/**
 * The status a rejection is expected at when the code it rests on is one the provider's document never states
 * (the generic `invalid_request`, x-assumed with its 400): another 4xx, even one not documented for the
 * operation (422), is then a warning naming the assumption (checkResponse's hint), not a failure. A rejection
 * expected only with codes the document states gets no hint: their status is the provider's.
 */
export function rejectionHint(ctx: KitContext, plan: Mutation): StatusHint | undefined {
  const expected = [plan.expectedCode ?? []].flat();
  const code = expected.find((c) => assumedCodeReason(ctx, c));
  if (code === undefined) return undefined;
  const status = ctx.api.catalog.find((e) => e.code === code)?.status;
  return status === undefined ? undefined : { expected: String(status), assumedReason: assumedCodeReason(ctx, code)! };
}

export function expectRejected(ctx: KitContext, op: OperationModel, ex: Exchange, plan: Mutation): Finding[] {
  const response = ex.response;
  const mutation = plan.description;
  if (!response) return [noResponse(ex, op)];
  const at = label(op, response);
  const skip = inconclusive(op, response);
  if (skip) return [skip];
  const excused = (finding: Finding): Finding => (plan.assumedReason ? { ...finding, severity: 'warning', assumedReason: plan.assumedReason } : finding);
  if (response.status >= 500) return [{ severity: 'failure', rule: 'server-error', message: `${at}: invalid input (${mutation}) got a ${response.status}; bad input must get a 4xx` }];
  if (response.status < 400) return [excused({ severity: 'failure', rule: 'invalid-accepted', message: `${at}: invalid input (${mutation}) was not rejected; body ${snippet(response.text)}` })];
  if (isPrismProblem(ctx, response)) return []; // the response check reports it (Prism's own problem+json)
  const code = errorCodeOf(response);
  // Error semantics: the broken constraint's x-error-code (else the catalog's validation code) is the answer.
  // Where the spec lets Prism pick the first example of the status, its code says nothing (the mock).
  const expected = [plan.expectedCode ?? []].flat();
  // An expectation that rests on a code the provider never named (the generic invalid_request) is assumed:
  // another code there is a warning naming that assumption, never a failure.
  // A code the document does state, with its own meaning (recipient_nickname_already_exists for a missing
  // rail), stays a failure: the provider said what it means.
  const stated = code !== undefined && ctx.api.catalog.some((e) => e.code === code && !e.assumed);
  const assumedCode = stated ? undefined : expected.find((c) => assumedCodeReason(ctx, c));
  const codeFinding: Finding[] =
    expected.length && code !== undefined && !expected.includes(code) && !ctx.caps.ownProblemJson
      ? [
          assumedCode && !plan.assumedReason
            ? { severity: 'warning', rule: 'error-code', message: `${at}: invalid input (${mutation}) was rejected with ${code}; the spec expects ${expected.join(' or ')} (assumed: the provider's document names no code for "${assumedCode}"'s case)`, assumedReason: assumedCodeReason(ctx, assumedCode)! }
            : excused({ severity: 'failure', rule: 'error-code', message: `${at}: invalid input (${mutation}) was rejected with ${code}; the broken constraint gives ${expected.join(' or ')}` }),
        ]
      : [];
  // The rejection must carry the shared error body, documented status or not (the response check also judges
  // a documented one against its own schema). A mismatch only on x-assumed parts is left to the response check.
  const type = essence(contentTypeOf(response));
  const parsed = parseJson(response.text);
  const validate = ctx.api.validator.schemaAt(ctx.api.errorSchemaPointer);
  if (type && isJsonMedia(type) && parsed.ok) {
    if (validate(parsed.value)) return codeFinding;
    const errors = [...(validate.errors ?? [])];
    if (ctx.assumptions.explain(ctx.api.errorSchemaPointer, parsed.value, errors).onlyAssumptions) return codeFinding;
    return [{ severity: 'failure', rule: 'invalid-error-body', message: `${at}: invalid input (${mutation}) was rejected without the shared error body (${formatErrors(errors)}); body ${snippet(response.text)}` }];
  }
  const why = !parsed.ok ? `body ${snippet(response.text)}` : 'not JSON';
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
