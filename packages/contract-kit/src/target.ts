// Who answers: Prism's stateless mock or a server. Prism honours `Prefer: code=N` (it answers the documented
// response N without doing anything); a server ignores the preference (RFC 7240: unknown preferences are
// ignored). Two harmless reads with two different codes tell them apart. Against Prism, the probes that need
// state or key lookups are skipped with a warning, and Prism's own request-validation quirks are warnings.
import type { Target } from './context.ts';
import { errorCodeOf } from './checks/response.ts';
import { send, type Transport } from './http.ts';
import { rateLimitsOf, type KeyPool } from './pacing.ts';
import type { ApiModel } from './spec-model.ts';

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
 * How a server refuses a key, or undefined: a plain read with it answered 401 with one of the codes the spec
 * gives that read's 401 (`GET /v1/banking/balance with it answered 401 invalid_api_key`). A mistyped key
 * would otherwise meet every check as the same answer, read as a contract failure after pacing for up to
 * --max-wait-s: the run stops first instead (run.ts says which option to check).
 */
export async function keyRefusal(api: ApiModel, transport: Transport, keys: KeyPool): Promise<string | undefined> {
  const read = plainRead(api);
  const codes = read?.secured ? read.codes.get(401) : undefined;
  if (!read || !codes) return undefined;
  const key = await keys.take(rateLimitsOf(api, read));
  const ex = await send(transport, { method: 'GET', path: read.path, headers: { [api.apiKeyHeader]: key } });
  const code = ex.response?.status === 401 ? errorCodeOf(ex.response) : undefined;
  return code !== undefined && codes.has(code) ? `GET ${read.path} with it answered 401 ${code}` : undefined;
}
