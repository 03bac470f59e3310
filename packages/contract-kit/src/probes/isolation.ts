// Organization isolation (the organization comes from the key, sections 1 and 5): a second organization,
// made through the admin API or given as --other-api-key (a staging server has no admin API), follows the
// same links with the first organization's resources: it must not see them. A lookup of a foreign id, or a transfer to a foreign recipient, must be refused with a documented
// 4xx (the spec's 404 `banking_transfer_not_found` / `recipient_not_found`), never answered with the resource.
import { CheckRecorder } from '../check-result.ts';
import { checkResponse, errorCodeOf, label, snippet } from '../checks/response.ts';
import { inconclusive } from '../checks/expectations.ts';
import { curlOf, exchange, type KitContext } from '../context.ts';
import { toCurl } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { FULL_ORGANIZATION, SetupError } from './admin.ts';
import { createStep, finishStep, linkedRequest, linksOf, type Step } from './chain.ts';

export async function isolationCheck(ctx: KitContext, start: OperationModel): Promise<CheckResult> {
  const check = new CheckRecorder(start.operationId, 'isolation', 'a second organization sees nothing of the first');
  try {
    const key = await otherOrganizationKey(ctx);
    if (!key) return skip(check, 'needs the admin API or --other-api-key');
    let step: Step = await createStep(ctx, start, check);
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
