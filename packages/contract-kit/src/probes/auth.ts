// Authentication probes, per operation: no key, a malformed key, a well-formed but unknown key, and the real
// key sent as `Authorization: Bearer` instead of the spec's apiKey header. Each must be refused: with the
// spec's 401 (an assumed status: another 4xx is a warning with its reason), never with a 2xx.
import fc from 'fast-check';
import { CheckRecorder } from '../check-result.ts';
import { checkResponse, label, snippet, type StatusHint } from '../checks/response.ts';
import { inconclusive, noResponse } from '../checks/expectations.ts';
import { curlOf, freshToken, type KitContext } from '../context.ts';
import { materialize, validPlans, type RequestPlan } from '../generate.ts';
import type { Exchange } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult, Finding } from '../types.ts';
import { exchangeUntilDefinite } from './stateful.ts';

export interface AuthProbe {
  slug: string;
  name: string;
  /** Headers that carry (or fail to carry) a credential; none = no credential at all. */
  headers(ctx: KitContext): Record<string, string>;
  /** Prism only checks that the header is present: probes about the key's value cannot be told apart there. */
  needsKeyLookup: boolean;
}

export const AUTH_PROBES: AuthProbe[] = [
  { slug: 'auth-no-key', name: 'refuses a request without a key', headers: () => ({}), needsKeyLookup: false },
  {
    slug: 'auth-malformed-key',
    name: 'refuses a malformed key',
    headers: (ctx) => ({ [ctx.api.apiKeyHeader]: `not-a-key-${freshToken(8)}` }),
    needsKeyLookup: true,
  },
  {
    slug: 'auth-unknown-key',
    name: 'refuses a well-formed unknown key',
    headers: (ctx) => ({ [ctx.api.apiKeyHeader]: unknownLike(ctx.apiKey) }),
    needsKeyLookup: true,
  },
  {
    slug: 'auth-bearer',
    name: `refuses the key sent as Authorization: Bearer`,
    headers: (ctx) => ({ authorization: `Bearer ${ctx.apiKey}` }),
    needsKeyLookup: false,
  },
];

/** The given key (or a resource id) with its random part replaced by fresh characters of the same kind and
 *  length: well-formed as the server makes them, and never issued by it. */
export function unknownLike(key: string): string {
  const prefix = /^(.*_)/.exec(key)?.[1] ?? '';
  const rest = key.slice(prefix.length) || 'x'.repeat(32);
  for (;;) {
    const token = Array.from({ length: Math.ceil(rest.length / 12) + 1 }, () => freshToken(12)).join('');
    const replaced = [...rest].map((c, i) => (/[A-Z]/.test(c) ? token[i]!.toUpperCase() : /[a-z0-9]/i.test(c) ? token[i]! : c)).join('');
    if (`${prefix}${replaced}` !== key) return `${prefix}${replaced}`;
  }
}

/** The status the spec gives for a refused credential (401, itself assumed), if the operation documents it. */
export function unauthorizedHint(op: OperationModel): StatusHint | undefined {
  const response = op.responses.find((r) => r.status === '401');
  return response ? { expected: '401', assumedReason: response.assumedReason ?? '' } : undefined;
}

export function samplePlan(ctx: KitContext, op: OperationModel, seed: number): RequestPlan {
  return fc.sample(validPlans(ctx, op), { numRuns: 1, seed })[0]!;
}

export async function authProbe(ctx: KitContext, op: OperationModel, probe: AuthProbe, seed: number): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, probe.slug, probe.name);
  const request = materialize(ctx, op, samplePlan(ctx, op, seed), { headers: probe.headers(ctx) });
  const ex = await exchangeUntilDefinite(ctx, op, check, request);
  check.sent(ex.response?.status);
  check.add(judgeRefusal(ctx, op, ex, probe.name).map((f) => ({ ...f, curl: curlOf(ctx, request) })));
  return check.result();
}

/** A credential that must not work: refused with 401 (assumed) or at least another 4xx, never a success. */
export function judgeRefusal(ctx: KitContext, op: OperationModel, ex: Exchange, what: string): Finding[] {
  const response = ex.response;
  if (!response) return [noResponse(ex, op)];
  const hint = unauthorizedHint(op);
  const findings = checkResponse(ctx, op, response, hint);
  const at = label(op, response);
  const expected = hint?.expected ?? '4xx';
  const unknown = inconclusive(op, response, 'refusal not established');
  if (response.status < 400) {
    findings.push({ severity: 'failure', rule: 'auth', message: `${what}: ${at}, not refused (expected ${expected}); body ${snippet(response.text)}` });
  } else if (unknown) {
    findings.push({ ...unknown, message: `${what}: ${unknown.message}` });
  } else if (response.status >= 500) {
    findings.push({ severity: 'failure', rule: 'server-error', message: `${what}: ${at}; a bad credential must get a 4xx` });
  } else if (hint && String(response.status) !== hint.expected) {
    const message = `${what}: ${at}, refused but not with ${hint.expected}`;
    findings.push(hint.assumedReason ? { severity: 'warning', rule: 'auth', message, assumedReason: hint.assumedReason } : { severity: 'failure', rule: 'auth', message });
  }
  return findings;
}
