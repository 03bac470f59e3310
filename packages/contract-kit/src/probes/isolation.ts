// Organization isolation (the organization comes from the key, sections 1 and 5): a second organization,
// made through the admin API or given as --other-api-key (a staging server has no admin API), follows the
// same links with the first organization's resources: it must not see them. A lookup of a foreign id, or a transfer to a foreign recipient, must be refused with a documented
// 4xx (the spec's 404 `banking_transfer_not_found` / `recipient_not_found`), never answered with the resource.
// And the first organization's creation, sent again by the second under the same Idempotency-Key, makes the
// second one's own resource: idempotency records are kept per organization, not per key alone.
import { CheckRecorder } from '../check-result.ts';
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { answered, checkResponse, errorCodeOf, label, snippet } from '../checks/response.ts';
import { inconclusive } from '../checks/expectations.ts';
import { curlOf, exchange, type KitContext } from '../context.ts';
import { parseJson, toCurl } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { FULL_ORGANIZATION, SetupError } from './admin.ts';
import { createStep, finishStep, linkedRequest, linksOf, type Step } from './chain.ts';
import { describe } from './stateful.ts';

export async function isolationCheck(ctx: KitContext, start: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(start.operationId, 'isolation', 'a second organization sees nothing of the first');
  try {
    const key = await otherOrganizationKey(ctx);
    if (!key) return skip(check, 'needs the admin API or --other-api-key');
    let step: Step = await createStep(ctx, start, check);
    if (!step.body) return skip(check, `the first ${start.operationId} was not a success (${describe(start, step.exchange)})`);
    await keyOfAnotherOrganization(ctx, check, step, key);
    for (let depth = 0; depth < 5 && step.body; depth++) {
      const link = linksOf(step.op).find((l) => ctx.api.byId.has(l.operationId));
      if (!link) break;
      const { op, request } = await linkedRequest(ctx, link, step.body, check);
      // The same linked request, with the other organization's key: the source resource is foreign to it.
      const foreign = { ...request, headers: { ...request.headers, [ctx.api.apiKeyHeader]: key } };
      const ex = await exchange(ctx, foreign);
      check.sent(ex.response?.status);
      const curl = toCurl(ctx.transport.baseUrl, foreign, key, 'OTHER_ORG_KEY');
      if (ex.response) {
        check.add(checkResponse(ctx, op, ex.response).map((f) => ({ ...f, curl })));
        const unknown = inconclusive(op, ex.response);
        if (unknown) check.add([{ ...unknown, curl }]);
        else if (ex.response.status < 400) {
          const given = ctx.otherApiKey ? ' (is --other-api-key a key of ANOTHER organization?)' : '';
          check.add([{ severity: 'failure', rule: 'isolation', message: `${label(op, ex.response)}: another organization's key was answered with the first organization's ${step.op.operationId} resource (via link ${link.name})${given}; body ${snippet(ex.response.text)}`, curl }]);
        } else {
          const code = errorCodeOf(ex.response);
          if (!code || !op.codes.get(ex.response.status)?.has(code)) {
            check.add([{ severity: 'failure', rule: 'isolation', message: `${label(op, ex.response)}: a foreign resource was refused with ${code ?? 'no code'}, not a code the spec gives ${op.operationId} at ${ex.response.status}`, curl }]);
          }
        }
      }
      // Continue the chain as the owner, to reach the next link's source.
      step = await finishStep(ctx, op, check, request);
      if (!step.body && step.exchange.response) {
        check.add([{ severity: 'failure', rule: 'link', message: `${label(op, step.exchange.response)}: the owner's own linked request failed (${snippet(step.exchange.response.text)})`, curl: curlOf(ctx, request) }]);
        break;
      }
    }
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skip(check, err.message);
  }
  return check.result();
}

/**
 * Idempotency records belong to an organization (the organization comes from the key, sections 1 and 5; a key
 * "returns the original result" to the client that made it, section 7): the first organization's request,
 * sent again under the same Idempotency-Key by the second organization, must be processed as the second
 * organization's own: a new, separate resource (or a refusal, e.g. the first one's recipient is foreign to it),
 * never the first organization's answer replayed.
 */
async function keyOfAnotherOrganization(ctx: KitContext, check: CheckRecorder, step: Step, key: string): Promise<void> {
  const op = step.op;
  const name = op.idempotencyKey?.name;
  const original = step.exchange.response;
  if (!name || !original || !step.body) return;
  const used = Object.entries(step.request.headers).find(([h]) => h.toLowerCase() === name.toLowerCase())?.[1];
  if (used === undefined) return;
  const foreign = { ...step.request, headers: { ...step.request.headers, [ctx.api.apiKeyHeader]: key } };
  const curl = toCurl(ctx.transport.baseUrl, foreign, key, 'OTHER_ORG_KEY');
  const ex = await exchange(ctx, foreign);
  check.sent(ex.response?.status);
  if (!ex.response) return;
  check.add(checkResponse(ctx, op, ex.response).map((f) => ({ ...f, curl })));
  const unknown = inconclusive(op, ex.response);
  if (unknown) return check.add([{ ...unknown, curl }]);
  if (ex.response.status >= 300) return;
  const parsed = parseJson(ex.response.text);
  const id = parsed.ok && isObject(parsed.value as Json) ? (parsed.value as JsonObject).id : undefined;
  const sameId = id !== undefined && id === step.body.id;
  if (ex.response.text === original.text || sameId) {
    const given = ctx.otherApiKey ? ' (is --other-api-key a key of ANOTHER organization?)' : '';
    const what = sameId ? `its ${op.operationId} ${JSON.stringify(id)}` : `its ${op.operationId} answer, byte for byte`;
    check.add([{ severity: 'failure', rule: 'isolation', message: `${answered(op, ex.response)}: the ${name} the first organization used, sent by a second organization with the same request, was answered with the first organization's ${op.operationId}: ${what}${given}. Idempotency records belong to the organization of the key (sections 1, 5 and 7): expected a new, separate resource of the second organization. Body ${snippet(ex.response.text)}`, curl }]);
  }
}

/** The second organization's key: the one given (--other-api-key), else one of an organization the admin API makes. */
async function otherOrganizationKey(ctx: KitContext): Promise<string | undefined> {
  if (ctx.otherApiKey) return ctx.otherApiKey;
  if (!ctx.admin) return undefined;
  const other = await ctx.admin.createOrganization(FULL_ORGANIZATION);
  return (await ctx.admin.createApiKey(other.id)).key;
}

function skip(check: CheckRecorder, why: string): CheckResult {
  check.skip(`skipped, ${why}`);
  return check.result();
}
