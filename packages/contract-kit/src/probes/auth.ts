// Authentication probes, per operation: no key, a malformed key, a well-formed but unknown key, and the real
// key sent as `Authorization: Bearer` instead of the spec's apiKey header. Each must be refused: with the
// spec's 401 (an assumed status: another 4xx is a warning with its reason), never with a 2xx. On a stateful
// target the request is one the run's key gets accepted (a transfer to a recipient the kit created, a lookup of
// its own transfer): only the credential can refuse it, so a business refusal of the operation (404
// recipient_not_found…) means the request went past authentication, a failure too.
import fc from 'fast-check';
import { CheckRecorder } from '../check-result.ts';
import { answered, assumedCodeReason, checkResponse, errorCodeOf, label, snippet, type StatusHint } from '../checks/response.ts';
import { inconclusive, noResponse } from '../checks/expectations.ts';
import { curlOf, freshToken, type KitContext } from '../context.ts';
import { examplePlan, materialize, validPlans, type RequestPlan } from '../generate.ts';
import type { Exchange, HttpRequest } from '../http.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult, Finding } from '../types.ts';
import { SetupError } from './admin.ts';
import { createStep, linkedRequest, linksOf } from './chain.ts';
import { describe, exchangeUntilDefinite, successBody } from './stateful.ts';

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
  const accepted = ctx.caps.stateful ? await acceptedRequest(ctx, op, check) : undefined;
  const base = accepted ?? materialize(ctx, op, samplePlan(ctx, op, seed));
  const { [ctx.api.apiKeyHeader]: _key, ...headers } = base.headers;
  const request = { ...base, headers: { ...headers, ...probe.headers(ctx) } };
  const ex = await exchangeUntilDefinite(ctx, op, check, request);
  check.sent(ex.response?.status);
  check.add(judgeRefusal(ctx, op, ex, probe.name, accepted !== undefined).map((f) => ({ ...f, curl: curlOf(ctx, request) })));
  return check.result();
}

/**
 * A request the run's own key gets accepted, so that only the credential can refuse it: through the spec's
 * links where one leads to the operation (a transfer to a recipient the kit just created, a lookup of a
 * transfer it just made), else the spec's request example (made unique). A made-up recipient or transfer id
 * would be refused 404 by a server that never looked at the key. Undefined (with a warning) when the setup
 * fails: the probe then sends a generated request, and only a success fails it.
 */
async function acceptedRequest(ctx: KitContext, op: OperationModel, check: CheckRecorder): Promise<HttpRequest | undefined> {
  try {
    for (const source of ctx.api.operations) {
      const link = linksOf(source).find((l) => l.operationId === op.operationId);
      if (!link) continue;
      const step = await createStep(ctx, source, check);
      if (!step.body) throw new SetupError(`the ${source.operationId} the link ${link.name} starts from was not a success (${describe(source, step.exchange)})`);
      return (await linkedRequest(ctx, link, step.body, check)).request;
    }
    if (op.pathParams.length > 0) return undefined; // no link makes its resource: a generated request
    return materialize(ctx, op, examplePlan(ctx, op, await successBody(ctx, op, check)));
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.warn({ rule: 'auth', message: `no request the run's key gets accepted could be made (${err.message}): a generated one was sent, and only a success can fail the probe` });
    return undefined;
  }
}

/**
 * A credential that must not work: refused with 401 (assumed) or at least another 4xx, never a success.
 * `accepted`: the request is one the run's key gets accepted (acceptedRequest), so a refusal the provider's
 * document gives the operation for the request itself (`404 recipient_not_found`, a 409, a 422) shows that the
 * request went past authentication: a failure, not a refusal of the credential.
 */
export function judgeRefusal(ctx: KitContext, op: OperationModel, ex: Exchange, what: string, accepted = false): Finding[] {
  const response = ex.response;
  if (!response) return [noResponse(ex, op)];
  const hint = unauthorizedHint(op);
  const findings = checkResponse(ctx, op, response, hint);
  const at = label(op, response);
  const expected = hint?.expected ?? '4xx';
  const unknown = inconclusive(op, response, 'refusal not established');
  const code = errorCodeOf(response);
  if (response.status < 400) {
    findings.push({ severity: 'failure', rule: 'auth', message: `${what}: ${at}, not refused (expected ${expected}); body ${snippet(response.text)}` });
  } else if (unknown) {
    findings.push({ ...unknown, message: `${what}: ${unknown.message}` });
  } else if (response.status >= 500) {
    findings.push({ severity: 'failure', rule: 'server-error', message: `${what}: ${at}; a bad credential must get a 4xx` });
  } else if (accepted && response.status !== 401 && code !== undefined && businessCode(ctx, op, code)) {
    findings.push({ severity: 'failure', rule: 'auth', message: `${what}: ${answered(op, response)}, a refusal of the request, not an authentication failure: the run's key gets this same request accepted, so it went past authentication (expected ${expected}); body ${snippet(response.text)}` });
  } else if (hint && String(response.status) !== hint.expected) {
    const message = `${what}: ${answered(op, response)}, refused but not with ${hint.expected}`;
    const refusal: Finding = hint.assumedReason ? { severity: 'warning', rule: 'auth', message, assumedReason: hint.assumedReason } : { severity: 'failure', rule: 'auth', message };
    return [...withoutCodeWarnings(findings), refusal];
  }
  return findings;
}

/**
 * The response check's warnings about the refusal's code ("not one the document gives … for 403", "answered
 * at 403; the catalog gives it at 401"): for a credential refused at another status than the spec's, they say
 * again what the auth warning says (it names the status and the code), so the answer is reported once.
 */
const withoutCodeWarnings = (findings: Finding[]): Finding[] => findings.filter((f) => !(f.rule === 'error-code' && f.severity === 'warning'));

/** A code the spec gives the operation that the provider's document states with its own meaning (not the
 *  assumed invalid_api_key or invalid_request): an answer about the request, given after authentication. */
function businessCode(ctx: KitContext, op: OperationModel, code: string): boolean {
  return [...op.codes.values()].some((codes) => codes.has(code)) && assumedCodeReason(ctx, code) === undefined;
}
