// What every check needs: the spec model, the x-assumed index, who we talk to and how.
import { Assumptions } from './assumed.ts';
import { send, toCurl, type Exchange, type HttpRequest, type Transport } from './http.ts';
import type { ApiModel } from './spec-model.ts';

export type Target = 'prism' | 'server';

export interface KitContext {
  api: ApiModel;
  assumptions: Assumptions;
  transport: Transport;
  apiKey: string;
  target: Target;
}

export function createContext(api: ApiModel, transport: Transport, apiKey: string, target: Target): KitContext {
  return { api, assumptions: new Assumptions(api.doc, api.validator), transport, apiKey, target };
}

export const exchange = (ctx: KitContext, request: HttpRequest): Promise<Exchange> => send(ctx.transport, request);
export const curlOf = (ctx: KitContext, request: HttpRequest): string => toCurl(ctx.transport.baseUrl, request, ctx.apiKey);

/** A short token that makes keys and names fresh: never derived from the seed, so a replayed run stays fresh. */
export function freshToken(length = 12): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}
