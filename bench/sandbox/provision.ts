// Setting a sandbox up for load, through its admin API and public API only (the bench never touches the
// sandbox's code or store): one organization per measured operation, funded generously in USD, with a USD
// ACH recipient (no PIX quote limit), and a pool of API keys.
//
// The sandbox allows 600 requests per 15 minutes per API key (x-rate-limit; counted per key, not per
// organization). The bench does not lift that limit: it creates keys instead. Each key carries at most
// KEY_BUDGET requests over the whole run (whatever window they fall in, so no key can reach 600 in any
// window), the load generator rotates through the pool round robin, and the pool grows (between blocks,
// never during one) to twice what the next block can use at the fastest rate seen so far.
import type { OpId } from './ops.ts';
import { AMOUNT, FUNDING, RECIPIENTS_PATH, TRANSFERS_PATH } from './ops.ts';

/** Requests one key may carry in the whole run: below the 600 per 15 min limit with a margin. */
export const KEY_BUDGET = 590;
const PARALLEL = 8;

export interface SandboxRef {
  url: string;
  adminToken: string;
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

async function admin(sandbox: SandboxRef, method: string, path: string, body?: unknown): Promise<any> {
  const reply = await call(sandbox.url, method, `/admin${path}`, { authorization: `Bearer ${sandbox.adminToken}` }, body);
  if (reply.status >= 300) throw new Error(`admin ${method} ${path} → ${reply.status} ${reply.text}`);
  return reply.json;
}

async function api(sandbox: SandboxRef, key: string, method: string, path: string, idempotencyKey?: string, body?: unknown): Promise<any> {
  const reply = await call(sandbox.url, method, path, { 'x-api-key': key, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, body);
  if (reply.status >= 300) throw new Error(`${method} ${path} → ${reply.status} ${reply.text}`);
  return reply.json;
}

/** One organization, its recipient, and (for replays) the transfer every replay asks for again. */
export interface Tenant {
  op: OpId;
  orgId: string;
  recipientId: string;
  /** The body every transfer request of this tenant sends. */
  transferBody: string;
  /** transfer-replay: the Idempotency-Key and the id of the original transfer. */
  replay?: { idempotencyKey: string; transferId: string };
  /** Transfers created while setting up (recipient creation and these count against the setup key only). */
  seededTransfers: number;
}

/** Transfers of the balance tenant before the bench reads its balance: the sum it computes is not empty. */
const BALANCE_SEED = 20;

export async function createTenant(sandbox: SandboxRef, op: OpId): Promise<Tenant> {
  const org = await admin(sandbox, 'POST', '/organizations', { name: `bench ${op}`, banking: true, funding: FUNDING });
  const setup = await admin(sandbox, 'POST', `/organizations/${org.id}/api-keys`);
  const recipient = await api(sandbox, setup.key, 'POST', RECIPIENTS_PATH, `bench-recipient-${op}`, { rail: 'usd_ach', nickname: `Bench ACH (${op})` });
  const transferBody = JSON.stringify({ recipientId: recipient.id, amount: AMOUNT });
  const tenant: Tenant = { op, orgId: org.id, recipientId: recipient.id, transferBody, seededTransfers: 0 };
  if (op === 'transfer-replay') {
    const idempotencyKey = 'bench-replay-original';
    const transfer = await api(sandbox, setup.key, 'POST', TRANSFERS_PATH, idempotencyKey, JSON.parse(transferBody));
    tenant.replay = { idempotencyKey, transferId: transfer.id };
    tenant.seededTransfers = 1;
  }
  if (op === 'balance') {
    for (let i = 0; i < BALANCE_SEED; i++) await api(sandbox, setup.key, 'POST', TRANSFERS_PATH, `bench-seed-${i}`, JSON.parse(transferBody));
    tenant.seededTransfers = BALANCE_SEED;
  }
  return tenant;
}

/** The API keys of one tenant and what each may still carry. */
export class KeyPool {
  readonly sandbox: SandboxRef;
  readonly orgId: string;
  keys: string[] = [];
  budgets: number[] = [];
  created = 0;

  constructor(sandbox: SandboxRef, orgId: string) {
    this.sandbox = sandbox;
    this.orgId = orgId;
  }

  remaining(): number {
    return this.budgets.reduce((sum, b) => sum + b, 0);
  }

  /** Creates keys until the pool can carry `requests` more requests. */
  async ensure(requests: number): Promise<number> {
    const missing = Math.max(0, Math.ceil((requests - this.remaining()) / KEY_BUDGET));
    for (let done = 0; done < missing; ) {
      const batch = Math.min(PARALLEL, missing - done);
      const made = await Promise.all(Array.from({ length: batch }, () => admin(this.sandbox, 'POST', `/organizations/${this.orgId}/api-keys`)));
      for (const key of made) {
        this.keys.push(key.key as string);
        this.budgets.push(KEY_BUDGET);
      }
      done += batch;
    }
    this.created += missing;
    // Spent keys are of no further use: drop them, so the load generator does not walk past them.
    const live = this.budgets.map((b, i) => (b > 0 ? i : -1)).filter((i) => i >= 0);
    this.keys = live.map((i) => this.keys[i]!);
    this.budgets = live.map((i) => this.budgets[i]!);
    return missing;
  }

  /** What a load run used, key by key (same order as `keys` when it was handed out). */
  settle(used: readonly number[]): void {
    used.forEach((n, i) => {
      const left = this.budgets[i]! - n;
      if (left < 0) throw new Error(`key ${i} of ${this.orgId} carried ${n} requests, over its budget of ${this.budgets[i]}`);
      this.budgets[i] = left;
    });
  }
}
