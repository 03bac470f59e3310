// Organization states the provider documents (sections 5 and 7), made through the admin API: an organization
// with API access off, or with the operation's product off, gets the product's 403 code; card issuance
// without accepted card terms gets 409 `authorized_user_terms_required`; a PIX checkout session without
// checkout PIX set up gets 503 `checkout_pix_not_available`; a transfer to a wallet recipient with wallet
// transfers off gets 403 `wallet_transfers_not_enabled`, to one not activated 409 `wallet_recipient_required`; a
// transfer to a recipient deactivated after it was made gets 404 `recipient_not_found` (section 4, further rule
// 2). (A recipient repeating a unique field of another needs no admin step: the replay probe checks it.) A
// documented 503 that is not the state's answer is inconclusive here as in every check (issue 27). Each answer must be the documented status
// with a code the spec gives the operation there. Which admin flag makes which state is the admin API's
// vocabulary (openapi-admin OrganizationCreate); the expected answers are read from the public spec.
import { isObject, resolvePointer } from '@payments/spec';
import { CheckRecorder } from '../check-result.ts';
import { answered, snippet } from '../checks/response.ts';
import { curlOf, type KitContext } from '../context.ts';
import { toCurl } from '../http.ts';
import { examplePlan, materialize } from '../generate.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { FULL_ORGANIZATION, SetupError } from './admin.ts';
import { samplePlan } from './auth.ts';
import { linksOf } from './chain.ts';
import { answers, sendUntilDefinite, successBody, unusable } from './stateful.ts';

interface State {
  name: string;
  /** The organization's flags, over the kit's full organization. */
  flags(op: OperationModel, ctx: KitContext): Record<string, unknown> | undefined;
  status: number;
  /** The codes that may answer (empty: the state does not apply to the operation). */
  codes(op: OperationModel): string[];
}

/** The admin flag of the operation's product: its tag, lower case (Banking → banking). */
const productFlag = (ctx: KitContext, op: OperationModel): string | undefined => {
  const operation = resolvePointer(ctx.api.doc, op.pointer);
  const tags = isObject(operation) && Array.isArray(operation.tags) ? operation.tags : [];
  const tag = typeof tags[0] === 'string' ? tags[0].toLowerCase() : undefined;
  return tag && tag in FULL_ORGANIZATION ? tag : undefined;
};

const STATES: State[] = [
  { name: 'API access off', flags: () => ({ apiAccess: false }), status: 403, codes: (op) => [...(op.codes.get(403) ?? [])] },
  { name: 'the product off', flags: (op, ctx) => (productFlag(ctx, op) ? { [productFlag(ctx, op)!]: false } : undefined), status: 403, codes: (op) => [...(op.codes.get(403) ?? [])] },
  { name: 'card terms not accepted', flags: () => ({ cardTermsAccepted: false }), status: 409, codes: (op) => [...(op.codes.get(409) ?? [])].filter((c) => c === 'authorized_user_terms_required') },
  { name: 'checkout PIX not set up', flags: () => ({ checkoutPix: false }), status: 503, codes: (op) => [...(op.codes.get(503) ?? [])].filter((c) => c === 'checkout_pix_not_available') },
];

export const orgStatesApply = (_ctx: KitContext, op: OperationModel): boolean => op.secured && STATES.some((s) => s.codes(op).length > 0);

export async function orgStatesCheck(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'organization-states', 'each documented organization state gets its documented answer');
  const admin = ctx.admin;
  if (!admin) return skip(check, 'needs the admin API');
  try {
    for (const state of STATES) {
      const codes = state.codes(op);
      const flags = state.flags(op, ctx);
      if (codes.length === 0 || !flags) continue;
      const org = await admin.createOrganization({ ...FULL_ORGANIZATION, ...flags });
      const { key } = await admin.createApiKey(org.id);
      const body = op.method === 'POST' ? await successBody(ctx, op, check) : undefined;
      const plan = op.method === 'POST' ? examplePlan(ctx, op, body) : samplePlan(ctx, op, seed);
      const request = materialize(ctx, op, plan, { headers: { [ctx.api.apiKeyHeader]: key } });
      const ex = await sendUntilDefinite(ctx, op, check, request, answers(state.status, codes));
      const response = ex.response;
      if (!response || unusable(op, response, answers(state.status, codes))) continue; // recorded as inconclusive
      if (!answers(state.status, codes)(response)) {
        check.add([
          {
            severity: 'failure',
            rule: 'provider-state',
            message: `${state.name}: ${answered(op, response)}; the spec documents ${state.status} ${codes.join(' or ')}. Body ${snippet(response.text)}`,
            curl: toCurl(ctx.transport.baseUrl, request, key, 'STATE_ORG_KEY'),
          },
        ]);
      }
    }
    await walletStates(ctx, op, check);
    await inactiveRecipient(ctx, op, check);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    return skip(check, err.message);
  }
  return check.result();
}

function skip(check: CheckRecorder, why: string): CheckResult {
  check.skip(`skipped, ${why}`);
  return check.result();
}

// A wallet address in its all-lowercase form: valid under EIP-55 (no checksum to carry).
const WALLET_ADDRESS = '0x52908400098527886e0f7030069857d2e4169ee7';
const WALLET_CODES = [
  { code: 'wallet_transfers_not_enabled', status: 403, flags: { walletTransfers: false }, active: true, what: 'wallet transfers off' },
  { code: 'wallet_recipient_required', status: 409, flags: {}, active: false, what: 'a wallet recipient saved but not activated' },
];

/**
 * Transfers to wallet recipients (saved in the dashboard, here through the admin API): with wallet transfers
 * off, `403 wallet_transfers_not_enabled`; to one not yet activated, `409 wallet_recipient_required`.
 */
async function walletStates(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<void> {
  const admin = ctx.admin!;
  for (const state of WALLET_CODES) {
    if (!op.codes.get(state.status)?.has(state.code) || op.method !== 'POST') continue;
    const org = await admin.createOrganization({ ...FULL_ORGANIZATION, ...state.flags });
    const { key } = await admin.createApiKey(org.id);
    const wallet = await admin.createWalletRecipient(org.id, { nickname: `Wallet ${crypto.randomUUID().slice(0, 8)}`, destinationAddress: WALLET_ADDRESS, active: state.active });
    const body = await successBody(ctx, op, check);
    if (!isObject(body)) return;
    const idField = recipientField(ctx, op);
    if (!idField) return;
    const request = materialize(ctx, op, examplePlan(ctx, op, { ...body, [idField]: wallet.id }), { headers: { [ctx.api.apiKeyHeader]: key } });
    const ex = await sendUntilDefinite(ctx, op, check, request, answers(state.status, [state.code]));
    if (!ex.response || unusable(op, ex.response, answers(state.status, [state.code]))) continue;
    if (!answers(state.status, [state.code])(ex.response)) {
      check.add([{ severity: 'failure', rule: 'provider-state', message: `${state.what}: ${answered(op, ex.response)}; the spec documents ${state.status} ${state.code}. Body ${snippet(ex.response.text)}`, curl: toCurl(ctx.transport.baseUrl, request, key, 'STATE_ORG_KEY') }]);
    }
  }
}

/** The field that carries a recipient's id in the operation's body: the one the spec's link from recipient creation fills in. */
function recipientField(ctx: KitContext, op: OperationModel): string | undefined {
  const link = ctx.api.operations.flatMap((o) => linksOf(o)).find((l) => l.operationId === op.operationId && isObject(l.requestBody));
  return link && isObject(link.requestBody) ? Object.keys(link.requestBody)[0] : undefined;
}

/**
 * A transfer to a recipient made through the API and then deactivated (in the dashboard, here the admin API):
 * "A missing or inactive recipient gives 404 `recipient_not_found`" (section 4, further rule 2). The answer
 * expected is the spec's 404 code for the operation that names a recipient.
 */
async function inactiveRecipient(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<void> {
  const field = recipientField(ctx, op);
  const code = [...(op.codes.get(404) ?? [])].find((c) => c.startsWith('recipient_'));
  if (!field || !code || op.method !== 'POST' || !ctx.organizationId) return;
  const body = await successBody(ctx, op, check); // a body to a fresh, active recipient of the kit's organization
  if (!isObject(body) || typeof body[field] !== 'string') return;
  await ctx.admin!.deactivateRecipient(ctx.organizationId, body[field] as string);
  const request = materialize(ctx, op, examplePlan(ctx, op, body));
  const ex = await sendUntilDefinite(ctx, op, check, request, answers(404, [code]));
  if (!ex.response || unusable(op, ex.response, answers(404, [code]))) return;
  if (!answers(404, [code])(ex.response)) {
    check.add([{ severity: 'failure', rule: 'provider-state', message: `a recipient deactivated after it was created: ${answered(op, ex.response)}; the document says "A missing or inactive recipient gives 404 \`${code}\`" (section 4, further rule 2). Body ${snippet(ex.response.text)}`, curl: curlOf(ctx, request) }]);
  }
}
