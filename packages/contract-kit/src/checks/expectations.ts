// What a generated request must get back, beyond a conforming response: a VALID request is not rejected as
// invalid (400 invalid_request, a code the spec gives only to a schema violation, or Prism's own 4xx
// rejection) and gets no undocumented 5xx; a MUTATED request gets a 4xx with the shared error body.
// A documented 503 (or the edge's 502/504) says nothing either way: the kit cannot tell a transient outage from
// a server bug, so it is `inconclusive` (a warning, counted per operation; --strict-503 makes it a failure).
// A 429 is `rate-limited` (a warning): the rate limit is told apart by its status.
import { isObject, resolvePointer, type Json } from '@payments/spec';
import type { KitContext } from '../context.ts';
import { contentTypeOf, essence, parseJson, type Exchange, type HttpRequest, type HttpResponse } from '../http.ts';
import { assumedReasonOf, documentedResponse, isJsonMedia, locate, VALIDATION_CODE, type Located, type OperationModel } from '../spec-model.ts';
import type { Finding } from '../types.ts';
import { assumedCodeReason, checkResponse, errorCodeOf, formatErrors, isPrismProblem, label, snippet, type StatusHint } from './response.ts';

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
  let genericReason: string | undefined;
  // Whether the answer is a validation refusal (the spec's invalid_request, or a generic one): what a field the
  // contract cannot name would draw. Only such a refusal can rest on the body's own assumption.
  let validation = false;
  if ((response.status === 400 || response.status === 422) && code === VALIDATION_CODE) {
    message = `${at}: a request that is valid per the spec was rejected as ${VALIDATION_CODE}: ${snippet(response.text)}`;
    validation = true;
  } else if (code !== undefined && op.schemaOnlyCodes.has(code)) {
    // A code the spec sets with x-error-code on a schema node it states fully: only a schema violation earns it.
    const where = op.schemaCodes.get(code)?.pointers.join(', ') ?? '';
    message = `${at}: a request that is valid per the spec was rejected with ${code}, a code the spec gives only to a schema violation (x-error-code at ${where}): ${snippet(response.text)}`;
  } else if (response.status !== 429 && !op.codes.get(response.status)?.has(code ?? '')) {
    // Positive data may meet a documented domain refusal (404 recipient_not_found…), nothing else.
    genericReason = genericRefusalReason(ctx, op, response.status, code);
    validation = genericReason !== undefined;
    message = genericReason
      ? `${at}: a request that is valid per the spec was refused with ${code}, a generic refusal: the provider's document names no status or code for one (the spec only assumes ${genericRefusalStatus(ctx, op)} ${VALIDATION_CODE}), so the kit cannot tell a server bug from a rule the document does not show (a field it does not name, a tighter bound); body ${snippet(response.text)}`
      : `${at}: a request that is valid per the spec was refused with ${code ?? 'no code'}, which is not a refusal the spec documents for ${op.operationId} at ${response.status}: ${snippet(response.text)}`;
  }
  if (message === undefined) return [];
  // The body's own reason first: it says which part of the contract the server may know more about. A
  // refusal without a code, or with a code that means something else, is no answer about an unnamed field.
  const assumedReason = validation ? (bodyAssumedReason ?? genericReason) : undefined;
  if (assumedReason) return [{ severity: 'warning', rule: 'valid-rejected', message, assumedReason }];
  return [{ severity: 'failure', rule: 'valid-rejected', message }];
}

/** The status of the spec's generic validation refusal for the operation (400 invalid_request, x-assumed). */
function genericRefusalStatus(ctx: KitContext, op: OperationModel): number | undefined {
  const entries = ctx.api.catalog.filter((e) => e.code === VALIDATION_CODE);
  return (entries.find((e) => e.operationId === op.operationId) ?? entries[0])?.status;
}

/**
 * Why a refusal of a spec-valid request is only a warning, or undefined. The provider's document says of
 * refusals only "4xx request rejected" (section 7): it gives no status or code for a request that fails
 * validation, and the spec's 400 invalid_request is x-assumed. So a refusal with a code the spec never names
 * (the honest server's `validation_failed`), at a status the spec does not document for the operation (422)
 * or at the spec's own assumed generic status (400), may be the server's rule on something the document does
 * not show (a required field it does not name, a tighter bound): the same call the `invalid` check makes for
 * another 4xx (rejectionHint). It stays a failure when the answer claims a meaning the request does not have:
 *  - a code the spec names (a stated one such as invalid_checkout_session_amount, or the spec's own
 *    invalid_request, which a server adopting the spec's vocabulary uses for "does not match the contract");
 *  - a status the spec documents for the operation with its own meaning (404, 409, 401/403, 413…);
 *  - no error code at all (the document gives every error its body with a code). A 5xx never gets here.
 */
function genericRefusalReason(ctx: KitContext, op: OperationModel, status: number, code: string | undefined): string | undefined {
  if (status < 400 || status >= 500 || code === undefined) return undefined;
  if (ctx.api.catalog.some((e) => e.code === code)) return undefined;
  const genericStatus = genericRefusalStatus(ctx, op);
  if (documentedResponse(op, status) && status !== genericStatus) return undefined;
  return assumedCodeReason(ctx, VALIDATION_CODE);
}

/**
 * The status hint for the response check of a VALID request's refusal: a status the spec does not document is
 * then a warning (the refusal itself is judged, once, by expectAccepted), where expectAccepted excuses it.
 */
export function acceptanceHint(ctx: KitContext, op: OperationModel, response: HttpResponse | undefined, bodyAssumedReason: string | undefined): StatusHint | undefined {
  if (!response || response.status < 400 || response.status >= 500) return undefined;
  const assumedReason = bodyAssumedReason ?? genericRefusalReason(ctx, op, response.status, errorCodeOf(response));
  const status = genericRefusalStatus(ctx, op);
  if (!assumedReason || status === undefined) return undefined;
  return { expected: String(status), assumedReason, note: `a refusal of a valid request at a status the provider's document does not give; the spec only assumes ${status} for a refusal` };
}

/**
 * The response check of the answer to a request the spec takes (a probe's valid request): a refusal the
 * document cannot rule out (a field it does not name, a generic 422) is a warning with its reason, as in the
 * `valid` check. A 422 for a card without its holder's name failed the replay and concurrent-key probes (QA).
 */
export function checkAnswerToValid(ctx: KitContext, op: OperationModel, response: HttpResponse, request: HttpRequest): Finding[] {
  const parsed = request.body === undefined ? undefined : parseJson(request.body);
  const body = parsed?.ok ? (parsed.value as Json) : undefined;
  return checkResponse(ctx, op, response, acceptanceHint(ctx, op, response, bodyAssumedReason(ctx, op, body)));
}

/**
 * Why a refusal of a spec-valid body may be the server's rule on fields the contract cannot name: the body's
 * schema, or the oneOf branch the body matches, is x-assumed as a whole ("the request body of POST /v1/cards is
 * not shown; an open JSON object is the only honest contract"), or its other properties are (a USD ACH or Wire
 * recipient, whose account fields are not shown: the mark sits on `additionalProperties`, so that a body's
 * named fields are still checked). The `valid` and `coverage` checks both read it here, so the same refusal is
 * judged the same way in both.
 */
export function bodyAssumedReason(ctx: KitContext, op: OperationModel, body: Json | undefined): string | undefined {
  if (!op.body) return undefined;
  const root = locate(ctx.api.doc, resolvePointer(ctx.api.doc, op.body.schemaPointer), op.body.schemaPointer);
  if (!root || root.assumedReason || !Array.isArray(root.node.oneOf) || body === undefined) return root && assumedAsAWhole(root);
  for (const [i, branch] of root.node.oneOf.entries()) {
    const pointer = `${root.pointer}/oneOf/${i}`;
    if (ctx.api.validator.compile({ $ref: pointer })(body) !== true) continue;
    const matched = locate(ctx.api.doc, branch, pointer);
    return matched && assumedAsAWhole(matched);
  }
  return undefined;
}

/** A schema's own x-assumed reason, else that of its unnamed properties (`additionalProperties`). */
const assumedAsAWhole = (schema: Located): string | undefined => schema.assumedReason ?? assumedReasonOf(schema.node.additionalProperties);

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
