// What the client mode does to a sandbox through its admin API (and one public request): an organization
// per scenario with every product on and funded, an API key, its clock, a PIX recipient to pay, the
// scenario's faults armed for that organization only, and its traffic journal read back.
import type { JournalEntry } from '@payments/sandbox';
import type { Scenario } from './scenarios.ts';

export interface SandboxAccess {
  baseUrl: string;
  adminToken: string;
}

export interface Provisioned {
  organizationId: string;
  apiKey: string;
  /** A PIX recipient of the organization, for transfer scenarios. */
  recipientId: string | undefined;
  /** With --test-clock: where the organization's clock was frozen (epoch ms), before the client ran. */
  frozenAtMs: number | undefined;
}

export class AdminError extends Error {
  /** The sandbox's HTTP status, when it answered (401: the admin token was refused). */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** One admin request; its JSON answer, or an AdminError naming the operation and the sandbox's message. */
export async function admin(access: SandboxAccess, method: string, path: string, body?: unknown): Promise<any> {
  let res: Response;
  try {
    res = await fetch(`${access.baseUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${access.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new AdminError(`${method} /admin${path}: the sandbox at ${access.baseUrl} did not answer (${err instanceof Error ? err.message : String(err)})`);
  }
  const text = await res.text();
  if (!res.ok) throw new AdminError(`${method} /admin${path}: ${res.status} ${text.slice(0, 300)}${res.status === 401 ? ' (check --admin-token)' : ''}`, res.status);
  return text ? JSON.parse(text) : undefined;
}

export async function provision(access: SandboxAccess, scenario: Scenario, options: { testClock: boolean }): Promise<Provisioned> {
  const org = await admin(access, 'POST', '/organizations', {
    name: `client mode: ${scenario.name}`,
    banking: true,
    cards: true,
    checkout: true,
    cardTermsAccepted: true,
    checkoutPix: true,
    funding: { BRL: '1000000.00', USD: '1000000.00' },
    ...scenario.organization,
  });
  const organizationId = String(org.id);
  const key = await admin(access, 'POST', `/organizations/${organizationId}/api-keys`);
  const apiKey = String(key.key);
  const frozen = options.testClock ? await admin(access, 'POST', `/organizations/${organizationId}/clock/freeze`, {}) : undefined;
  const recipientId = scenario.operation === 'createTransfer' ? await createRecipient(access, apiKey, scenario) : undefined;
  for (const fault of scenario.faults) await admin(access, 'POST', '/faults', { organizationId, ...fault });
  return { organizationId, apiKey, recipientId, frozenAtMs: frozen === undefined ? undefined : Number(frozen.nowMs) };
}

/** The organization's frozen clock now (epoch ms), or undefined when it runs on real time. */
export async function frozenClockOf(access: SandboxAccess, organizationId: string): Promise<number | undefined> {
  const clock = await admin(access, 'GET', `/organizations/${organizationId}/clock`);
  return clock.mode === 'frozen' ? Number(clock.nowMs) : undefined;
}

/** The recipient the transfer pays, created through the public API as a client would (one request, with a key). */
async function createRecipient(access: SandboxAccess, apiKey: string, scenario: Scenario): Promise<string> {
  const res = await fetch(`${access.baseUrl}/v1/banking/recipients`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'idempotency-key': `contract-kit-recipient-${scenario.name}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rail: 'brl_pix', nickname: 'Client mode supplier', pixKey: 'client.mode@example.com' }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || typeof body.id !== 'string') throw new AdminError(`creating the scenario's recipient: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

export async function readJournal(access: SandboxAccess, organizationId: string): Promise<{ entries: JournalEntry[]; dropped: number }> {
  const journal = await admin(access, 'GET', `/organizations/${organizationId}/journal`);
  return { entries: journal.entries as JournalEntry[], dropped: Number(journal.dropped) };
}

/** Moves the organization's frozen clock forward: a client's virtual sleep. */
export async function advanceClock(access: SandboxAccess, organizationId: string, ms: number): Promise<void> {
  await admin(access, 'POST', `/organizations/${organizationId}/clock/advance`, { milliseconds: Math.max(0, Math.round(ms)) });
}
