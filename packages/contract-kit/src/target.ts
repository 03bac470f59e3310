// Who answers: Prism's stateless mock or a server. Prism honours `Prefer: code=N` (it answers the documented
// response N without doing anything); a server ignores the preference (RFC 7240: unknown preferences are
// ignored). Two harmless reads with two different codes tell them apart. Against Prism, the probes that need
// state or key lookups are skipped with a warning, and Prism's own request-validation quirks are warnings.
import type { Target } from './context.ts';
import { errorCodeOf } from './checks/response.ts';
import { send, type Transport } from './http.ts';
import { rateLimitsOf, type KeyPool } from './pacing.ts';
import type { ApiModel, OperationModel } from './spec-model.ts';
import { unknownLike } from './probes/auth.ts';

export class UnreachableError extends Error {}

/** A read that takes no parameter (the balance): what the target's probes send. */
const plainRead = (api: ApiModel) => api.operations.find((o) => o.method === 'GET' && o.pathParams.length === 0);

export async function detectTarget(api: ApiModel, transport: Transport, apiKey: string): Promise<{ target: Target; note: string }> {
  const read = plainRead(api) ?? api.operations.find((o) => o.method === 'GET');
  if (!read) return { target: 'server', note: 'target: assumed a server (the spec has no read to probe with)' };
  let path = read.path;
  for (const p of read.pathParams) path = path.replace(`{${p.name}}`, 'contract-kit-probe');
  const statuses: number[] = [];
  for (const code of [504, 502]) {
    const ex = await send(transport, { method: 'GET', path, headers: { [api.apiKeyHeader]: apiKey, prefer: `code=${code}` } });
    if (!ex.response) throw new UnreachableError(`cannot reach ${transport.baseUrl}: ${ex.error}`);
    statuses.push(ex.response.status);
    if (ex.response.status !== code || ex.response.text !== '') break;
  }
  if (statuses.length === 2 && statuses[0] === 504 && statuses[1] === 502) {
    return { target: 'prism', note: `target: Prism's stateless mock (it honoured Prefer: code=504 and code=502 on GET ${read.path}); stateful and key-lookup probes are not applicable` };
  }
  return { target: 'server', note: `target: a server (GET ${read.path} with Prefer: code=504 answered ${statuses[0]})` };
}


/**
 * Whether a Prism mock adds CORS headers of its own (`prism mock`'s --cors, on by default): one read with an
 * Origin. `payments-mock` runs Prism with --cors=false, so its answers are the contract's (no CORS) and the
 * `cors` check can run against it.
 */
export async function prismAddsCors(api: ApiModel, transport: Transport, apiKey: string): Promise<boolean> {
  const read = plainRead(api);
  if (!read) return true;
  const ex = await send(transport, { method: 'GET', path: read.path, headers: { [api.apiKeyHeader]: apiKey, origin: 'https://contract-kit.invalid' } });
  return Boolean(ex.response?.headers.get('access-control-allow-origin'));
}

/**
 * How a server refuses a key, or undefined. A mistyped key would otherwise meet every check as the same
 * answer, read as a contract failure after pacing for up to --max-wait-s: the run stops first instead (run.ts
 * says which option to check). A plain read with the key is refused when it answers:
 *  - 401 with one of the codes the spec gives that read's 401 (`… answered 401 invalid_api_key`); or
 *  - another 401 or a 403, the same status and code as a made-up key of the same shape gets (the provider's
 *    document shows neither the status nor the code of a bad key, so an honest server may answer 403
 *    `authentication_failed`): the server then tells the key apart from no key it issued. A 403 with a code the
 *    provider's document states for it (`banking_api_access_not_enabled`) is about the organization's products,
 *    not the key: the run goes on and the checks report it.
 */
export async function keyRefusal(api: ApiModel, transport: Transport, keys: KeyPool): Promise<string | undefined> {
  const read = plainRead(api);
  if (!read?.secured) return undefined;
  const key = await keys.take(rateLimitsOf(api, read));
  const answer = await refusalOf(api, transport, read, key);
  if (!answer) return undefined;
  const codes = read.codes.get(401);
  if (answer.status === 401 && answer.code !== undefined && codes?.has(answer.code)) return `GET ${read.path} with it answered 401 ${answer.code}`;
  if (answer.status === 403 && answer.code !== undefined && statedCodes(api, read, 403).has(answer.code)) return undefined;
  const unknown = await refusalOf(api, transport, read, unknownLike(key));
  if (unknown?.status !== answer.status || unknown.code !== answer.code) return undefined;
  return `GET ${read.path} with it answered ${answer.status}${answer.code ? ` ${answer.code}` : ''}, as a made-up key of the same shape does`;
}

/** The read's answer with `key` when it is a 401 or 403 (status and error code), else undefined. */
async function refusalOf(api: ApiModel, transport: Transport, read: OperationModel, key: string): Promise<{ status: number; code: string | undefined } | undefined> {
  const ex = await send(transport, { method: 'GET', path: read.path, headers: { [api.apiKeyHeader]: key } });
  const status = ex.response?.status;
  return ex.response && (status === 401 || status === 403) ? { status, code: errorCodeOf(ex.response) } : undefined;
}

/** The codes the provider's document states for the operation at `status` (not the spec's x-assumed ones). */
const statedCodes = (api: ApiModel, op: OperationModel, status: number): Set<string> =>
  new Set(api.catalog.filter((e) => e.operationId === op.operationId && e.status === status && !e.assumed).map((e) => e.code));
