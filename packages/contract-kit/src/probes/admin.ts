// The sandbox's admin API (openapi-admin/), used only to set up what a probe needs: an organization, a key,
// its revocation, a frozen test clock. `authorization: Bearer <admin token>`. Any refusal is a SetupError:
// the probe is then skipped with a warning, not failed (the admin API is not the contract under test).
import type { KitContext } from '../context.ts';
import { parseJson } from '../http.ts';
import { snippet } from '../checks/response.ts';

export class SetupError extends Error {
  /** The admin API's HTTP status, when it answered (401: the token was refused). */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** A refused admin token: the admin API answered 401 or 403. */
export const tokenRefused = (err: unknown): boolean => err instanceof SetupError && (err.status === 401 || err.status === 403);

/** The organization the kit provisions with --admin-token: every product on, funded, card terms accepted. */
export const FULL_ORGANIZATION = {
  banking: true,
  cards: true,
  checkout: true,
  walletTransfers: true,
  cardTermsAccepted: true,
  checkoutPix: true,
  funding: { BRL: '1000000.00', USD: '1000000.00' },
} as const;


export interface AdminClient {
  health(): Promise<void>;
  createOrganization(flags: Record<string, unknown>): Promise<{ id: string }>;
  /** Schedules a fault (openapi-admin createFault): the next `count` requests to the operation meet it. */
  createFault(fault: Record<string, unknown>): Promise<{ id: string }>;
  /** Whether the fault is still armed (openapi-admin listFaults: remaining > 0). */
  faultArmed(id: string): Promise<boolean>;
  /** Deactivates a recipient, as the dashboard would (openapi-admin deactivateRecipient). */
  deactivateRecipient(organizationId: string, recipientId: string): Promise<void>;
  createApiKey(organizationId: string): Promise<{ id: string; key: string }>;
  /** Stops the organization's test clock at the current time (openapi-admin freezeClock): its rate-limit windows stop with it. */
  freezeClock(organizationId: string): Promise<void>;
  revokeApiKey(apiKeyId: string): Promise<void>;
  /** A wallet recipient, as the dashboard saves one (the public API cannot create them). */
  createWalletRecipient(organizationId: string, recipient: { nickname: string; destinationAddress: string; active: boolean }): Promise<{ id: string }>;
}

export function adminClient(ctx: Pick<KitContext, 'transport'>, token: string): AdminClient {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(`${ctx.transport.baseUrl}/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(ctx.transport.timeoutMs),
      });
    } catch (err) {
      throw new SetupError(`admin ${method} /admin${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await res.text();
    const parsed = parseJson(text);
    if (res.status >= 300 || !parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) {
      throw new SetupError(`admin ${method} /admin${path} → ${res.status} ${snippet(text)}`, res.status);
    }
    return parsed.value as Record<string, unknown>;
  };
  return {
    async health() {
      await call('GET', '/health');
    },
    async createFault(fault) {
      const created = await call('POST', '/faults', fault);
      if (typeof created.id !== 'string') throw new SetupError('admin: the created fault has no id');
      return { id: created.id };
    },
    async faultArmed(id) {
      const { faults } = await call('GET', '/faults');
      return Array.isArray(faults) && faults.some((f) => typeof f === 'object' && f !== null && f.id === id && Number(f.remaining) > 0);
    },
    async deactivateRecipient(organizationId, recipientId) {
      await call('POST', `/organizations/${encodeURIComponent(organizationId)}/recipients/${encodeURIComponent(recipientId)}/deactivate`);
    },
    async createOrganization(flags) {
      const org = await call('POST', '/organizations', flags);
      if (typeof org.id !== 'string') throw new SetupError('admin: the created organization has no id');
      return { id: org.id };
    },
    async createApiKey(organizationId) {
      const key = await call('POST', `/organizations/${encodeURIComponent(organizationId)}/api-keys`);
      if (typeof key.id !== 'string' || typeof key.key !== 'string') throw new SetupError('admin: the created API key has no id or key');
      return { id: key.id, key: key.key };
    },
    async freezeClock(organizationId) {
      await call('POST', `/organizations/${encodeURIComponent(organizationId)}/clock/freeze`, {});
    },
    async createWalletRecipient(organizationId, recipient) {
      const created = await call('POST', `/organizations/${encodeURIComponent(organizationId)}/wallet-recipients`, recipient);
      if (typeof created.id !== 'string') throw new SetupError('admin: the saved wallet recipient has no id');
      return { id: created.id };
    },
    async revokeApiKey(apiKeyId) {
      await call('POST', `/api-keys/${encodeURIComponent(apiKeyId)}/revoke`);
    },
  };
}
