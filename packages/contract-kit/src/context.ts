// What every check needs: the spec model, the x-assumed index, who we talk to and how, what the target can
// be asked (capabilities), the run's keys (paced within the documented rate limit) and the coverage table.
import { Assumptions } from './assumed.ts';
import type { Capabilities } from './capabilities.ts';
import { CoverageRecorder } from './coverage.ts';
import { send, toCurl, type Exchange, type HttpRequest, type Transport } from './http.ts';
import { KeyPool, rateLimitsOf } from './pacing.ts';
import type { AdminClient } from './probes/admin.ts';
import { operationOf } from './route.ts';
import type { ApiModel } from './spec-model.ts';

export type Target = 'prism' | 'server';

export interface KitContext {
  api: ApiModel;
  assumptions: Assumptions;
  transport: Transport;
  /** The run's key as requests are built with it; `exchange` swaps in a pooled key with room in its budget. */
  apiKey: string;
  target: Target;
  caps: Capabilities;
  keys: KeyPool;
  coverage: CoverageRecorder;
  /** The admin API, when the `admin` capability is on. */
  admin: AdminClient | undefined;
  /** The organization of the run's keys, when the kit provisioned it (faults are scheduled for it alone). */
  organizationId: string | undefined;
  /** --other-api-key: a key of a second organization, given by the user. */
  otherApiKey: string | undefined;
}

export function createContext(
  api: ApiModel,
  transport: Transport,
  apiKey: string,
  target: Target,
  caps: Capabilities,
  extra: { keys?: KeyPool; admin?: AdminClient | undefined; organizationId?: string | undefined; otherApiKey?: string | undefined } = {},
): KitContext {
  return {
    api,
    assumptions: new Assumptions(api.doc, api.validator),
    transport,
    apiKey,
    target,
    caps,
    keys: extra.keys ?? new KeyPool({ primary: apiKey, maxWaitMs: 0 }),
    coverage: new CoverageRecorder(api),
    admin: extra.admin,
    organizationId: extra.organizationId,
    otherApiKey: extra.otherApiKey,
  };
}

/**
 * Sends a request. The run's key is swapped for a pooled one with room in its rate-limit buckets (the curl
 * still shows $API_KEY), and the answer goes into the coverage table of its operation.
 */
export async function exchange(ctx: KitContext, request: HttpRequest): Promise<Exchange> {
  const op = operationOf(ctx.api, request.method, request.path);
  const header = ctx.api.apiKeyHeader;
  let sent = request;
  if (request.headers[header] === ctx.apiKey) {
    const key = await ctx.keys.take(rateLimitsOf(ctx.api, op));
    if (key !== ctx.apiKey) sent = { ...request, headers: { ...request.headers, [header]: key } };
  }
  const ex = await send(ctx.transport, sent);
  if (op && ex.response) ctx.coverage.record(op, ex.response);
  return { ...ex, request };
}

export const curlOf = (ctx: KitContext, request: HttpRequest): string => toCurl(ctx.transport.baseUrl, request, ctx.apiKey);

/** A short token that makes keys and names fresh: never derived from the seed, so a replayed run stays fresh. */
export function freshToken(length = 12): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
