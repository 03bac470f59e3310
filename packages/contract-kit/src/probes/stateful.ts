// Stateful probes, where the server keeps state: an idempotent replay of each POST returns the original status
// and a byte-identical body, also with an amount re-sent in its other JSON form (the same amount); a request
// under a new key repeating a unique field of an existing resource gets its 409 `…_already_exists` code (no
// admin step needed: two creations with the API key); a transfer key reused with another amount gets the
// idempotency conflict code.
// Requests start from the spec's own request examples (made unique where a field must be unique). When a
// prerequisite cannot be met (Prism's stateless mock, a creation the server refuses) the probe is skipped
// with a warning saying why, never silently. A documented 503 (or the edge's 502/504) on any of the probe's
// requests is recorded as inconclusive (--strict-503 makes it a failure), never as a replay or conflict failure.
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { CheckRecorder } from '../check-result.ts';
import { checkAnswerToValid, inconclusive } from '../checks/expectations.ts';
import { answered, errorCodeOf, label, snippet } from '../checks/response.ts';
import { curlOf, exchange, freshToken, type KitContext } from '../context.ts';
import { examplePlan, materialize } from '../generate.ts';
import { parseJson, type Exchange, type HttpRequest, type HttpResponse } from '../http.ts';
import { objectSchema } from '../mutate.ts';
import { escapePointer, locate, type OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';

// The provider's vocabulary the conflict probe needs (sections 4 and 7): transfers go to a recipient created
// by createRecipient, and their request identity is the recipient and the amount. Checked against the spec
// before use.
const CREATE_RECIPIENT = 'createRecipient';
const CREATE_TRANSFER = 'createTransfer';
const RECIPIENT_FIELD = 'recipientId';
const AMOUNT_FIELD = 'amount';
export const CONFLICT_CODE = 'banking_transfer_idempotency_conflict';


export async function replayProbe(ctx: KitContext, op: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'idempotent-replay', 'an idempotent replay returns the original status and body, and repeats nothing');
  try {
    const body = await successBody(ctx, op, check);
    const request = materialize(ctx, op, examplePlan(ctx, op, body));
    const first = await sendUntilDefinite(ctx, op, check, request);
    if (!first.response || first.response.status < 200 || first.response.status >= 300) {
      return skipped(check, `skipped, the first request was not a success, so there is nothing to replay (${describe(op, first)})`);
    }
    const before = await stateReads(ctx, check);
    const second = await send(ctx, op, check, request);
    if (!second.response || inconclusive(op, second.response)) return check.result();
    if (second.response.status !== first.response.status || second.response.text !== first.response.text) {
      check.add([
        {
          severity: 'failure',
          rule: 'replay',
          message: `the same request with the same ${op.idempotencyKey?.name ?? 'Idempotency-Key'} returned ${second.response.status} ${second.response.status === first.response.status ? 'with a different body' : `instead of ${first.response.status}`}${sameBody(first.response.text, second.response.text)}`,
          curl: curlOf(ctx, request),
        },
      ]);
    }
    if (isObject(body)) await otherFormReplays(ctx, op, check, request, body, first.response);
    await unchangedByReplays(ctx, op, check, request, before);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skipped(check, `skipped, ${err.message}`);
  }
  return check.result();
}

/** The 409 `…_already_exists` codes of a creation the spec says can collide with an existing resource. */
export const uniquenessCodes = (op: OperationModel): string[] => (op.method === 'POST' ? [...(op.codes.get(409) ?? [])].filter((c) => c.endsWith('_already_exists')) : []);

/** Creates a resource, then repeats each of its unique fields under a new key (uniqueFields). */
export async function uniqueFieldsProbe(ctx: KitContext, op: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'unique-fields', 'a new key repeating a unique field of an existing resource gets that field\'s 409 code');
  try {
    const body = await successBody(ctx, op, check);
    const created = await sendUntilDefinite(ctx, op, check, materialize(ctx, op, examplePlan(ctx, op, body)));
    if (!created.response || created.response.status < 200 || created.response.status >= 300) {
      return skipped(check, `skipped, the creation was not a success, so nothing exists to collide with (${describe(op, created)})`);
    }
    if (isObject(body)) await uniqueFields(ctx, op, check, body);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skipped(check, `skipped, ${err.message}`);
  }
  return check.result();
}

/**
 * The replay once more, with each decimal field (a schema taking the number or the string form, the spec's
 * Amount) re-sent in its other JSON form: the same amount ("`37.45` and `"37.45"` are the same amount"), so the
 * same request, and the key "returns the original result" (section 7, Idempotency rule 3), not a conflict.
 */
async function otherFormReplays(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest, body: JsonObject, original: HttpResponse): Promise<void> {
  const validate = ctx.api.validator.compile({ $ref: op.body!.schemaPointer });
  for (const field of decimalFields(ctx, op, body)) {
    const other = otherForm(body[field]!);
    const changed = { ...body, [field]: other };
    if (other === undefined || validate(changed) !== true) {
      check.warn({ rule: 'replay', message: `${field}: ${JSON.stringify(body[field])} has no valid other JSON form; the replay in that form was not sent` });
      continue;
    }
    const again: HttpRequest = { ...request, body: JSON.stringify(changed) };
    const ex = await sendUntilDefinite(ctx, op, check, again);
    if (!ex.response || unusable(op, ex.response)) continue;
    const what = `the same ${op.idempotencyKey?.name ?? 'Idempotency-Key'} with ${field} ${JSON.stringify(body[field])} re-sent as ${JSON.stringify(other)} (the same amount in its other JSON form)`;
    const failure = replayFailure(op, original, ex.response, what, 'the key "returns the original result" (section 7, Idempotency rule 3)');
    if (failure) check.add([{ severity: 'failure', rule: 'replay', message: failure, curl: curlOf(ctx, again) }]);
  }
}

/**
 * What the organization's state shows: each read the API offers without parameters (GET /v1/banking/balance),
 * answered twice with nothing sent between, so that a change after the replays can only be theirs. A read that
 * is refused, or that changes by itself (another client's traffic, a clock in its body), is left out, with a
 * warning for the latter.
 */
interface StateRead {
  read: OperationModel;
  request: HttpRequest;
  text: string;
}

async function stateReads(ctx: KitContext, check: CheckRecorder): Promise<StateRead[]> {
  const seen: StateRead[] = [];
  for (const read of ctx.api.operations.filter((o) => o.method === 'GET' && o.pathParams.length === 0)) {
    const request = materialize(ctx, read, examplePlan(ctx, read, undefined));
    const answer = async () => {
      const { response } = await exchange(ctx, request);
      check.sent(response?.status, read.operationId);
      return response?.status === 200 ? response.text : undefined;
    };
    const [a, b] = [await answer(), await answer()];
    if (a === undefined || b === undefined) continue;
    if (a === b) seen.push({ read, request, text: a });
    else check.warn({ rule: 'replay', message: `${read.method} ${read.path} changed with nothing sent between two reads; whether a replay repeats the action was not read from it` });
  }
  return seen;
}

/**
 * The replays (section 7, Idempotency rule 3: "does not repeat the action") left every state read as it was. In
 * the kit's own organization (--admin-token) nothing else moves it: a change is a failure. With the user's key,
 * another client of that organization may have moved it meanwhile: a warning that says so.
 */
async function unchangedByReplays(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest, before: readonly StateRead[]): Promise<void> {
  for (const { read, request: reading, text } of before) {
    const after = (await exchange(ctx, reading)).response;
    check.sent(after?.status, read.operationId);
    if (!after || after.status !== 200 || after.text === text) continue;
    const own = ctx.organizationId !== undefined;
    check.add([
      {
        severity: own ? 'failure' : 'warning',
        rule: 'replay',
        message:
          `the replays with the same ${op.idempotencyKey?.name ?? 'Idempotency-Key'} ${own ? 'repeated' : 'may have repeated'} the action (section 7, Idempotency rule 3: "does not repeat the action"): ${read.method} ${read.path} answered ${snippet(text)} before them and ${snippet(after.text)} after` +
          (own ? '' : "; other traffic on this API key's organization would change it too: give --admin-token to run in an organization of the kit's own"),
        curl: curlOf(ctx, request),
      },
    ]);
  }
}

/** The body's fields whose schema is one decimal in two JSON forms: a oneOf of a number and a string. */
function decimalFields(ctx: KitContext, op: OperationModel, body: JsonObject): string[] {
  const { properties } = objectSchema(ctx, op.body!.schemaPointer, body);
  return Object.keys(body).filter((name) => {
    const branches = properties[name]?.value.oneOf;
    const types = Array.isArray(branches) ? branches.map((b) => (isObject(b) ? b.type : undefined)) : [];
    return types.includes('number') && types.includes('string');
  });
}

/** 150 ↔ "150", "150.00" → 150: a number as the decimal it prints as (the Amount's own reading), a string as its number. */
function otherForm(value: Json): Json | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && Number.isFinite(Number(value)) ? Number(value) : undefined;
}

/**
 * A creation the spec says can collide (`…_already_exists`): after `original` was created, a request under a
 * new key that repeats ONE of its unique fields (the others fresh) gets 409 with that field's code, the one
 * its schema names (a recipient's nickname `recipient_nickname_already_exists`, its PIX key
 * `recipient_already_exists`; else any of them). Each field is tried alone, so each code can be seen. No admin
 * step is needed: two creations with the API key.
 */
async function uniqueFields(ctx: KitContext, op: OperationModel, check: CheckRecorder, original: JsonObject): Promise<void> {
  const codes = uniquenessCodes(op);
  if (codes.length === 0) return;
  const other = await successBody(ctx, op, check);
  if (!isObject(other)) return;
  for (const field of Object.keys(original).filter((k) => JSON.stringify(original[k]) !== JSON.stringify(other[k]))) {
    const expected = fieldCodes(ctx, op, original, field, codes);
    const again = materialize(ctx, op, examplePlan(ctx, op, { ...other, [field]: original[field]! })); // a new key
    const ex = await sendUntilDefinite(ctx, op, check, again, answers(409, expected));
    if (!ex.response || unusable(op, ex.response, answers(409, expected))) continue;
    if (!answers(409, expected)(ex.response)) {
      check.add([{ severity: 'failure', rule: 'unique', message: `"${field}" of an existing one under a new key: ${answered(op, ex.response)}; the spec documents 409 ${expected.join(' or ')}. Body ${snippet(ex.response.text)}`, curl: curlOf(ctx, again) }]);
    }
  }
}

/** The codes of `codes` the field's schema description names (`409 recipient_nickname_already_exists`), else all. */
function fieldCodes(ctx: KitContext, op: OperationModel, body: JsonObject, field: string, codes: string[]): string[] {
  const description = propertySchema(ctx, op.body!.schemaPointer, body, field)?.description;
  const named = typeof description === 'string' ? codes.filter((c) => new RegExp(`\\b${c}\\b`).test(description)) : [];
  return named.length > 0 ? named : codes;
}

/** The documented answer a probe waits for: its status with one of its codes (a 503 that is one is not inconclusive). */
export const answers = (status: number, codes: readonly string[]) => (r: HttpResponse) => r.status === status && codes.includes(errorCodeOf(r) ?? '');

/**
 * What the provider's document ties to one Idempotency-Key, per operation (the words are the provider's; the
 * fields are checked against the spec's request body before use): a transfer is its recipient and amount, and
 * another one under the same key is `409 banking_transfer_idempotency_conflict` (section 7, Idempotency rule 4);
 * a checkout session is its normalized amount, discountPercent and payment method (section 4, further rule 3),
 * and any other request under a used key "returns the original response, not a new one" (rule 4).
 */
const IDENTITY: Record<string, { fields: string[]; answer: 'conflict' | 'original'; rule: string }> = {
  [CREATE_TRANSFER]: { fields: [RECIPIENT_FIELD, AMOUNT_FIELD], answer: 'conflict', rule: 'section 7, Idempotency rule 4' },
  createCheckoutSession: { fields: [AMOUNT_FIELD, 'discountPercent', 'paymentMethod'], answer: 'original', rule: 'section 4, further rule 3; section 7, Idempotency rule 4' },
};

/** The operation's identity fields, those its request body schema has (undefined: no identity to vary). */
export function identityOf(ctx: KitContext, op: OperationModel): (typeof IDENTITY)[string] | undefined {
  const identity = IDENTITY[op.operationId];
  if (!identity || !op.body) return undefined;
  if (identity.answer === 'conflict' && !op.codes.get(409)?.has(CONFLICT_CODE)) return undefined;
  const schema = locate(ctx.api.doc, { $ref: op.body.schemaPointer }, op.body.schemaPointer);
  const props = schema && isObject(schema.node.properties) ? schema.node.properties : {};
  const fields = identity.fields.filter((f) => f in props);
  return fields.length === identity.fields.length ? identity : undefined;
}

export async function conflictProbe(ctx: KitContext, op: OperationModel): Promise<CheckResult> {
  const identity = identityOf(ctx, op);
  const check = new CheckRecorder(op.operationId, 'idempotency-conflict', identity?.answer === 'original' ? 'the same key with another part of the identity returns the original response' : `the same key with another recipient or amount gets ${CONFLICT_CODE}`);
  if (!identity) return skipped(check, `skipped, the spec gives ${op.operationId} no request identity the kit knows`);
  try {
    const body = await successBody(ctx, op, check);
    if (!isObject(body)) throw new SetupError(`the ${op.operationId} example is not an object`);
    const validate = ctx.api.validator.compile({ $ref: op.body!.schemaPointer });
    const original = materialize(ctx, op, examplePlan(ctx, op, body));
    const first = await sendUntilDefinite(ctx, op, check, original);
    if (!first.response || first.response.status < 200 || first.response.status >= 300) {
      return skipped(check, `skipped, the first request was not a success (${describe(op, first)})`);
    }
    // Each part of the identity in turn, the rest unchanged.
    for (const field of identity.fields) {
      const other = await vary(ctx, op, check, body, field, identity.fields, validate);
      if (!other) {
        check.warn({ rule: 'conflict', message: `${field}: no other valid value could be made from the spec; that part of the identity was not varied` });
        continue;
      }
      const changed: HttpRequest = { ...original, body: JSON.stringify(other) };
      const second = await sendUntilDefinite(ctx, op, check, changed);
      if (!second.response || unusable(op, second.response)) continue;
      const what = `the same ${op.idempotencyKey?.name ?? 'Idempotency-Key'} with ${field} ${JSON.stringify(body[field] ?? null)} → ${JSON.stringify(other[field] ?? null)}`;
      const failure = identity.answer === 'conflict' ? conflictFailure(op, first.response.text, second.response, what) : replayFailure(op, first.response, second.response, what, `a used key "returns the original response, not a new one" (${identity.rule})`);
      if (failure) check.add([{ severity: 'failure', rule: 'conflict', message: failure, curl: curlOf(ctx, changed) }]);
    }
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skipped(check, `skipped, ${err.message}`);
  }
  return check.result();
}

function conflictFailure(op: OperationModel, firstText: string, response: HttpResponse, what: string): string | undefined {
  if (answers(409, [CONFLICT_CODE])(response)) return undefined;
  const replayed = response.text === firstText ? ' (the original response was replayed: the change was ignored)' : '';
  return `${what} got ${answered(op, response)}${replayed}; expected 409 ${CONFLICT_CODE} ("a different amount or recipient gives \`${CONFLICT_CODE}\`", section 7, Idempotency rule 4). Body ${snippet(response.text, 200)}`;
}

/** A second answer under a used key that is not the original one; `why` quotes the rule that says it must be. */
function replayFailure(op: OperationModel, first: HttpResponse, response: HttpResponse, what: string, why: string): string | undefined {
  if (response.status === first.status && response.text === first.text) return undefined;
  return `${what} got ${answered(op, response)} ${response.status === first.status ? 'with another body' : `instead of ${first.status}`}${sameBody(first.text, response.text)}; ${why}`;
}

/**
 * The body with `field` changed to another valid value: a new recipient (made through the API), another amount,
 * another value from the schema; when the change alone breaks the body (amount and discountPercent are mutually
 * exclusive), the identity field that excludes it is left out. Undefined when nothing valid can be made.
 */
async function vary(ctx: KitContext, op: OperationModel, check: CheckRecorder, body: JsonObject, field: string, fields: readonly string[], validate: (v: unknown) => boolean): Promise<JsonObject | undefined> {
  const value = field === RECIPIENT_FIELD ? await createRecipient(ctx, check) : otherValue(ctx, op, body, field);
  if (value === undefined) return undefined;
  const changed = { ...body, [field]: value };
  if (validate(changed)) return changed;
  for (const g of fields.filter((f) => f !== field && f in changed)) {
    const { [g]: _left, ...rest } = changed;
    if (validate(rest)) return rest;
  }
  return undefined;
}

/** Another value of a property: another amount; else one of the schema's enum values or examples, a number within its bounds, another string. */
function otherValue(ctx: KitContext, op: OperationModel, body: JsonObject, field: string): Json | undefined {
  const current = body[field];
  if (field === AMOUNT_FIELD && current !== undefined) return otherAmount(current);
  const schema = propertySchema(ctx, op.body!.schemaPointer, body, field);
  if (!schema) return undefined;
  const candidates: Json[] = [...(Array.isArray(schema.enum) ? schema.enum : []), ...(Array.isArray(schema.examples) ? schema.examples : [])];
  if (schema.type === 'number' || schema.type === 'integer') {
    const max = typeof schema.maximum === 'number' ? schema.maximum : 100;
    const min = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : typeof schema.minimum === 'number' ? schema.minimum : 0;
    candidates.push(Math.floor((min + max) / 2), max);
  }
  if (schema.type === 'string') {
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
    candidates.push(...(typeof current === 'string' ? [`${current}-other`.slice(0, max)] : []), 'other');
  }
  return candidates.find((c) => JSON.stringify(c) !== JSON.stringify(current ?? null));
}

function skipped(check: CheckRecorder, message: string): CheckResult {
  check.skip(message);
  return check.result();
}

export async function send(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest, options: { keepInconclusive?: boolean } = {}): Promise<Exchange> {
  const ex = await exchange(ctx, request);
  check.sent(ex.response?.status, op.operationId);
  if (ex.response) {
    // A probe that made the 503/502/504 happen (a scheduled fault) expects it: it is not inconclusive there.
    const unknown = options.keepInconclusive ? undefined : inconclusive(op, ex.response, 'the probe could not use this answer');
    // The probes send valid requests: a refusal the document cannot rule out is judged as `valid` judges it.
    check.add([...checkAnswerToValid(ctx, op, ex.response, request), ...(unknown ? [unknown] : [])].map((f) => ({ ...f, curl: curlOf(ctx, request) })));
  } else check.add([{ severity: 'failure', rule: 'no-response', message: `${op.method} ${op.path}: no response (${ex.error})`, curl: curlOf(ctx, request) }]);
  return ex;
}

/** How often a probe sends one request again, with the same key, after an inconclusive answer. */
export const INCONCLUSIVE_TRIES = 3;

/**
 * send(), again with the same request (the same key: what the provider asks after a temporary 503 or the
 * edge's 502/504) while the answer is inconclusive and not the one `expected`, at most INCONCLUSIVE_TRIES
 * times in all. Each inconclusive answer is recorded (a warning; a failure under --strict-503), never judged
 * as the probe's failure: a documented temporary 503 means the same in every check.
 */
export async function sendUntilDefinite(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest, expected?: (response: HttpResponse) => boolean): Promise<Exchange> {
  let ex: Exchange | undefined;
  for (let tries = 0; tries < INCONCLUSIVE_TRIES; tries++) {
    ex = await send(ctx, op, check, request, { keepInconclusive: true });
    const stray = ex.response && !expected?.(ex.response) ? inconclusive(op, ex.response, 'the probe sent the same request again') : undefined;
    if (!stray) return ex;
    check.add([{ ...stray, curl: curlOf(ctx, request) }]);
  }
  return ex!;
}

/**
 * For a probe that judges one answer itself (auth, body limit): the request, again while the answer is
 * inconclusive (a documented 503, the edge's 502/504), at most INCONCLUSIVE_TRIES times. The inconclusive
 * answers before the last are recorded here (a warning; a failure under --strict-503); the last is returned
 * for the probe to judge and record. One stray 503 then leaves no check without an answer (issue 27).
 */
export async function exchangeUntilDefinite(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest, curl = curlOf(ctx, request)): Promise<Exchange> {
  for (let tries = 1; ; tries++) {
    const ex = await exchange(ctx, request);
    const stray = ex.response ? inconclusive(op, ex.response, 'the probe sent the same request again') : undefined;
    if (!stray || tries >= INCONCLUSIVE_TRIES) return ex;
    check.sent(ex.response?.status);
    check.add([{ ...stray, curl }]);
  }
}

/** An answer a probe could not use: inconclusive (a documented 503, the edge's 502/504) and not the one expected. */
export const unusable = (op: OperationModel, response: HttpResponse | undefined, expected?: (response: HttpResponse) => boolean): boolean =>
  Boolean(response && !expected?.(response) && inconclusive(op, response));

/** `: <where the bodies differ>`, or, when only the status differed, that the body was the same. */
const sameBody = (a: string, b: string): string => (a === b ? ', with the same body: only the status differs' : `: ${difference(a, b)}`);

/** Where two bodies first differ, with some context from each. */
export function difference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return 'identical bodies';
  const from = Math.max(0, i - 30);
  const window = (s: string) => `${from > 0 ? '…' : ''}${s.slice(from, i + 50)}${s.length > i + 50 ? '…' : ''}`;
  return `first difference at character ${i}: original ${JSON.stringify(window(a))} / replay ${JSON.stringify(window(b))}`;
}

export const describe = (op: OperationModel, ex: Exchange) => (ex.response ? `${label(op, ex.response)} ${snippet(ex.response.text)}` : `no response: ${ex.error}`);

/** A body that should succeed: the spec's first valid request example, unique where uniqueness matters. */
export async function successBody(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<Json | undefined> {
  if (!op.body) return undefined;
  const validate = ctx.api.validator.compile({ $ref: op.body.schemaPointer });
  const example = op.requestExamples.find((e) => validate(e) === true);
  if (example === undefined) throw new SetupError(`the spec gives ${op.operationId} no valid request example`);
  let body = uniquify(ctx, op, example, validate);
  if (op.operationId === CREATE_TRANSFER && isObject(body)) {
    if (!(RECIPIENT_FIELD in body)) throw new SetupError(`the ${op.operationId} example has no ${RECIPIENT_FIELD}`);
    body = { ...body, [RECIPIENT_FIELD]: await createRecipient(ctx, check) };
  }
  return body;
}

async function createRecipient(ctx: KitContext, check: CheckRecorder): Promise<string> {
  const op = ctx.api.byId.get(CREATE_RECIPIENT);
  if (!op?.body) throw new SetupError(`a transfer needs a recipient, and the spec has no ${CREATE_RECIPIENT}`);
  const validate = ctx.api.validator.compile({ $ref: op.body.schemaPointer });
  const example = op.requestExamples.find((e) => validate(e) === true);
  if (example === undefined) throw new SetupError(`the spec gives ${CREATE_RECIPIENT} no valid request example`);
  const ex = await sendUntilDefinite(ctx, op, check, materialize(ctx, op, examplePlan(ctx, op, uniquify(ctx, op, example, validate))));
  const parsed = ex.response ? parseJson(ex.response.text) : undefined;
  const id = parsed?.ok && isObject(parsed.value) ? parsed.value.id : undefined;
  if (!ex.response || ex.response.status >= 300 || typeof id !== 'string') throw new SetupError(`could not create a recipient for the transfer (${describe(op, ex)})`);
  return id;
}

/**
 * For a creation the spec says can collide with an existing resource (a 409 `…_already_exists` code, e.g. a
 * recipient's nickname or PIX key): free-text fields made unique with a token (in front of the `@` for an
 * e-mail-like value), cut to maxLength, kept only if the body stays valid. Other operations keep the example.
 */
export function uniquify(ctx: KitContext, op: OperationModel, example: Json, validate: (v: unknown) => boolean): Json {
  if (!isObject(example) || !op.body) return example;
  if (![...(op.codes.get(409) ?? [])].some((code) => code.endsWith('_already_exists'))) return example;
  const token = freshToken(8);
  const out: JsonObject = { ...example };
  for (const [name, value] of Object.entries(example)) {
    if (typeof value !== 'string') continue;
    const schema = propertySchema(ctx, op.body.schemaPointer, example, name);
    if (!schema || 'const' in schema || 'enum' in schema || 'pattern' in schema || 'format' in schema || Array.isArray(schema.oneOf)) continue;
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 100;
    const at = value.indexOf('@');
    const candidate = (at > 0 ? `${value.slice(0, at)}+${token}${value.slice(at)}` : `${value} ${token}`).slice(-max);
    const trial = { ...out, [name]: candidate };
    if (validate(trial)) out[name] = candidate;
  }
  return out;
}

/** The (unwrapped) schema of a top-level property, looking into the oneOf branch the example selects. */
function propertySchema(ctx: KitContext, pointer: string, example: JsonObject, name: string): JsonObject | undefined {
  const root = locate(ctx.api.doc, { $ref: pointer }, pointer);
  if (!root) return undefined;
  const candidates = Array.isArray(root.node.oneOf)
    ? root.node.oneOf.map((b, i) => locate(ctx.api.doc, b, `${root.pointer}/oneOf/${i}`))
    : [root];
  for (const c of candidates) {
    if (!c || !isObject(c.node.properties) || !(name in c.node.properties)) continue;
    const props = c.node.properties;
    const selects = Object.entries(props).every(([k, p]) => !(isObject(p) && 'const' in p) || p.const === example[k]);
    if (!selects) continue;
    let prop = locate(ctx.api.doc, props[name]!, `${c.pointer}/properties/${escapePointer(name)}`);
    for (let i = 0; prop && i < 10 && Array.isArray(prop.node.allOf) && prop.node.allOf.length === 1; i++) {
      prop = locate(ctx.api.doc, prop.node.allOf[0]!, `${prop.pointer}/allOf/0`);
    }
    return prop?.node;
  }
  return undefined;
}

/** Another amount in the same form (string stays string): +1.00. */
function otherAmount(amount: Json): Json {
  if (typeof amount === 'number') return Math.round(amount * 100 + 100) / 100;
  const cents = Math.round(Number(amount) * 100) + 100;
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
