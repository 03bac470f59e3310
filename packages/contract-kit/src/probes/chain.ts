// Stateful sequences over the spec's OpenAPI `links` (createRecipient → createTransfer → getTransfer): each
// created resource is passed on as the link says and the next operation must accept it (a transfer to a
// recipient just created is not `recipient_not_found`), and a resource read back through a link must be the
// one created: the same id, the same fields (Schemathesis' `ensure_resource_availability`). A field whose
// schema is an enum of states may have moved on (a transfer goes from pending to completed): a difference
// there is a warning. And the same link with a resource the kit never created gets the target's documented 404
// (a lookup of an unknown transfer id, a transfer to an unknown recipient), not a made-up resource.
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { CheckRecorder } from '../check-result.ts';
import { inconclusive } from '../checks/expectations.ts';
import { answered, label, snippet } from '../checks/response.ts';
import { curlOf, type KitContext } from '../context.ts';
import { examplePlan, materialize } from '../generate.ts';
import { parseJson, type Exchange, type HttpRequest } from '../http.ts';
import { locate, type LinkModel, type OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';
import { unknownLike } from './auth.ts';
import { answers, describe, sendUntilDefinite, successBody, unusable } from './stateful.ts';

/** The links of an operation's success responses. */
export const linksOf = (op: OperationModel): LinkModel[] => op.responses.filter((r) => r.status.startsWith('2')).flatMap((r) => r.links);

export const chainApplies = (ctx: KitContext, op: OperationModel): boolean => linksOf(op).some((l) => ctx.api.byId.has(l.operationId));

/** One step of a chain: the request sent, its exchange and the parsed JSON body of a 2xx. */
export interface Step {
  op: OperationModel;
  request: HttpRequest;
  exchange: Exchange;
  body: JsonObject | undefined;
}

/** A link's values as the source response has them. */
const asIs = (value: Json): Json => value;

/** Evaluates `$response.body#/pointer` (and literals) against a JSON body; `pass` maps each value read from it. */
export function evaluate(expression: Json, body: Json | undefined, pass: (value: Json) => Json = asIs): Json | undefined {
  if (typeof expression !== 'string' || !expression.startsWith('$response.body')) {
    if (isObject(expression)) return Object.fromEntries(Object.entries(expression).map(([k, v]) => [k, evaluate(v, body, pass) ?? null]));
    return expression;
  }
  const pointer = expression.slice('$response.body'.length).replace(/^#/, '');
  let value: Json | undefined = body;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    value = isObject(value) ? value[key] : Array.isArray(value) ? value[Number(key)] : undefined;
  }
  return value === undefined ? undefined : pass(value);
}

/** Creates the operation's resource from a request that should succeed; a non-2xx is a SetupError. */
export async function createStep(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<Step> {
  const body = await successBody(ctx, op, check);
  const request = materialize(ctx, op, examplePlan(ctx, op, body));
  return finishStep(ctx, op, check, request);
}

/** The request a link makes from a source response: its parameters in the path, its body over a valid one. */
export async function linkedRequest(ctx: KitContext, link: LinkModel, source: JsonObject, check: CheckRecorder, pass = asIs): Promise<{ op: OperationModel; request: HttpRequest }> {
  const op = ctx.api.byId.get(link.operationId);
  if (!op) throw new SetupError(`link ${link.name} names ${link.operationId}, which the spec does not have`);
  let body: Json | undefined;
  if (op.body) {
    const base = await successBody(ctx, op, check);
    const extra = link.requestBody === undefined ? {} : evaluate(link.requestBody, source, pass);
    body = isObject(base) && isObject(extra) ? { ...base, ...extra } : base;
  }
  const plan = examplePlan(ctx, op, body);
  const pathValues = { ...plan.pathValues };
  for (const [name, expression] of Object.entries(link.parameters)) {
    const value = evaluate(expression, source, pass);
    if (typeof value !== 'string' && typeof value !== 'number') throw new SetupError(`link ${link.name}: ${String(expression)} is not in the source response`);
    pathValues[name.replace(/^path\./, '')] = String(value);
  }
  return { op, request: materialize(ctx, op, { ...plan, pathValues }) };
}

export async function finishStep(ctx: KitContext, op: OperationModel, check: CheckRecorder, request: HttpRequest): Promise<Step> {
  const ex = await sendUntilDefinite(ctx, op, check, request); // the same key again after a stray 503
  const parsed = ex.response ? parseJson(ex.response.text) : undefined;
  const body = ex.response && ex.response.status < 300 && parsed?.ok && isObject(parsed.value as Json) ? (parsed.value as JsonObject) : undefined;
  return { op, request, exchange: ex, body };
}

export async function chainCheck(ctx: KitContext, start: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(start.operationId, 'resource-chain', 'created resources are read back through the spec’s links and match');
  try {
    let step = await createStep(ctx, start, check);
    if (!step.body) return skip(check, `the first ${start.operationId} was not a success (${describe(start, step.exchange)})`);
    const created = new Map<string, JsonObject>([[start.operationId, step.body]]);
    for (let depth = 0; depth < 5; depth++) {
      const link = linksOf(step.op).find((l) => ctx.api.byId.has(l.operationId));
      if (!link) break;
      const { op, request } = await linkedRequest(ctx, link, step.body!, check);
      const next = await finishStep(ctx, op, check, request);
      const response = next.exchange.response;
      if (!response || inconclusive(op, response)) return check.result();
      if (response.status >= 300 || !next.body) {
        check.add([{ severity: 'failure', rule: 'link', message: `${step.op.operationId} → ${link.name} → ${label(op, response)}: the resource the link passes on was not usable (${snippet(response.text)})`, curl: curlOf(ctx, request) }]);
        return check.result();
      }
      if (op.method === 'GET') compareReadBack(ctx, check, step, next, link);
      await neverCreated(ctx, check, link, step.body!);
      created.set(op.operationId, next.body);
      step = next;
    }
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skip(check, err.message);
  }
  return check.result();
}

/**
 * The link once more, with each value it passes on replaced by one the server never issued (unknownLike: the
 * real id's prefix, length and kinds of characters): "a missing … gives 404" (section 4, further rule 2), so
 * the target must answer 404 with a code the spec gives it there (`banking_transfer_not_found` for a lookup,
 * `recipient_not_found` for a transfer), never 2xx. Sent only after the real link worked, so a 404 here is
 * about the id alone.
 */
async function neverCreated(ctx: KitContext, check: CheckRecorder, link: LinkModel, source: JsonObject): Promise<void> {
  const codes = [...(ctx.api.byId.get(link.operationId)?.codes.get(404) ?? [])];
  if (codes.length === 0) return;
  const made: string[] = [];
  const forge = (value: Json): Json => {
    if (typeof value !== 'string') return value;
    made.push(unknownLike(value));
    return made.at(-1)!;
  };
  const { op, request } = await linkedRequest(ctx, link, source, check, forge);
  if (made.length === 0) return; // nothing it passes on could be replaced: the request would be the real one
  const ex = await sendUntilDefinite(ctx, op, check, request, answers(404, codes));
  if (!ex.response || unusable(op, ex.response, answers(404, codes)) || answers(404, codes)(ex.response)) return;
  check.add([{ severity: 'failure', rule: 'link', message: `${link.name} with ${made.map((m) => JSON.stringify(m)).join(', ')}, which the kit never created: ${answered(op, ex.response)}; the spec documents 404 ${codes.join(' or ')} for a missing one (section 4, further rule 2). Body ${snippet(ex.response.text)}`, curl: curlOf(ctx, request) }]);
}

/** A read through a link must show the resource the source created: every field the creation answered. */
function compareReadBack(ctx: KitContext, check: CheckRecorder, source: Step, read: Step, link: LinkModel): void {
  const original = source.body!;
  const shown = read.body!;
  for (const [field, value] of Object.entries(original)) {
    const same = JSON.stringify(shown[field]) === JSON.stringify(value);
    if (same) continue;
    const message = `${link.name}: ${read.op.operationId} shows ${field} ${JSON.stringify(shown[field]) ?? 'missing'}, but ${source.op.operationId} answered ${JSON.stringify(value)}`;
    const movable = isStateField(ctx, read.op, field);
    check.add([{ severity: movable ? 'warning' : 'failure', rule: 'read-back', message: movable ? `${message} (a state that may have moved on)` : message, curl: curlOf(ctx, read.request) }]);
  }
}

/** Whether the field's schema in the operation's 200 is an enum (a state that can change after creation). */
function isStateField(ctx: KitContext, op: OperationModel, field: string): boolean {
  const media = op.responses.find((r) => r.status.startsWith('2'))?.content[0];
  if (!media?.schemaPointer) return false;
  const root = locate(ctx.api.doc, { $ref: media.schemaPointer }, media.schemaPointer);
  const prop = root && isObject(root.node.properties) ? root.node.properties[field] : undefined;
  let loc = prop === undefined ? undefined : locate(ctx.api.doc, prop, root!.pointer);
  for (let i = 0; loc && i < 5 && Array.isArray(loc.node.allOf); i++) loc = locate(ctx.api.doc, loc.node.allOf[0]!, loc.pointer);
  return Array.isArray(loc?.node.enum);
}

function skip(check: CheckRecorder, why: string): CheckResult {
  check.skip(`skipped, ${why}`);
  return check.result();
}
