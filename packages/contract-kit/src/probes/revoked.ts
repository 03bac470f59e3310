// Revocation takes effect immediately (provider section 5.5): a key that worked, once revoked through the
// admin API, is refused on the very next request. Needs --admin-token (the sandbox's admin API).
import { CheckRecorder } from '../check-result.ts';
import { inconclusive } from '../checks/expectations.ts';
import { checkResponse, label, snippet } from '../checks/response.ts';
import { exchange, type KitContext } from '../context.ts';
import { toCurl } from '../http.ts';
import { materialize } from '../generate.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { SetupError } from './admin.ts';
import { judgeRefusal, samplePlan } from './auth.ts';

export async function revokedKeyProbe(ctx: KitContext, op: OperationModel, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'auth-revoked-key', 'refuses a revoked key on the very next request');
  const admin = ctx.admin;
  if (!admin) {
    check.skip('skipped, needs the admin API (--admin-token): a key is created and revoked through it');
    return check.result();
  }
  let keyId: string;
  let key: string;
  try {
    const org = await admin.createOrganization({ banking: true, cards: true, checkout: true, cardTermsAccepted: true, checkoutPix: true, walletTransfers: true });
    ({ id: keyId, key } = await admin.createApiKey(org.id));
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, the admin API could not create a key (${err.message})`);
    return check.result();
  }
  const plan = samplePlan(ctx, op, seed);
  const keyed = { headers: { [ctx.api.apiKeyHeader]: key } };
  const before = materialize(ctx, op, plan, keyed);
  const first = await exchange(ctx, before);
  check.sent(first.response?.status);
  const hidden = (request: typeof before, placeholder = 'NEW_KEY') => toCurl(ctx.transport.baseUrl, request, key, placeholder);
  if (first.response) check.add(checkResponse(ctx, op, first.response).map((f) => ({ ...f, curl: hidden(before) })));
  const unknown = first.response ? inconclusive(op, first.response, 'the new key was not shown to work, so its revocation was not tested') : undefined;
  if (unknown) {
    check.add([{ ...unknown, curl: hidden(before) }]);
    check.skip('skipped, the new key got no definite answer before its revocation');
    return check.result();
  }
  if (!first.response || first.response.status === 401) {
    check.add([
      {
        severity: 'failure',
        rule: 'auth',
        message: `a freshly created key was refused before its revocation (${first.response ? `${label(op, first.response)} ${snippet(first.response.text)}` : first.error})`,
        curl: hidden(before),
      },
    ]);
    return check.result();
  }
  try {
    await admin.revokeApiKey(keyId);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, the admin API could not revoke the key (${err.message})`);
    return check.result();
  }
  const after = materialize(ctx, op, plan, keyed);
  const second = await exchange(ctx, after);
  check.sent(second.response?.status);
  check.add(judgeRefusal(ctx, op, second, 'revoked key, the very next request').map((f) => ({ ...f, curl: hidden(after, 'REVOKED_KEY') })));
  return check.result();
}
