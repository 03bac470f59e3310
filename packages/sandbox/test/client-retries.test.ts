// The real client (packages/client) against the sandbox's injected faults: each retry path of the
// provider's document, end to end over HTTP, with the client's waits in virtual time. Nothing is paid twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, classifyTransfer, createPaymentsClient, deriveIdempotencyKey, type PaymentsClient } from '@payments/client';
import { jsonLogger } from '../src/http.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf } from './support.ts';

let sandbox: RunningSandbox;
let admin: ReturnType<typeof adminOf>;
let client: PaymentsClient;
let orgId: string;
let recipientId: string;
const sleeps: number[] = [];
const logs: string[] = [];
let apiKey: string;

beforeAll(async () => {
  sandbox = await startSandbox({ logger: jsonLogger((line) => logs.push(line)) });
  admin = adminOf(sandbox);
  const { org, key } = await admin.org({ cardTermsAccepted: true });
  orgId = org.id;
  apiKey = key;
  client = createPaymentsClient({ apiKey: key, baseUrl: sandbox.url, sleep: async (ms) => void sleeps.push(ms), timeoutMs: 5_000 });
  const recipient = await client.POST('/v1/banking/recipients', { body: { rail: 'brl_pix', nickname: 'Client test', pixKey: 'client@example.com' } });
  recipientId = recipient.data.id;
});
afterAll(() => sandbox?.close());

const transfersOfOrg = () => sandbox.store.transaction((tx) => tx.countTransfers(orgId));
const pay = async (invoice: string, amount: string | number = '10.00') =>
  client.POST('/v1/banking/transfers', { body: { recipientId, amount }, idempotencyKey: await deriveIdempotencyKey('createTransfer', invoice) });

describe('client retry paths against the sandbox', () => {
  it('temporary 503s: waits ≥ 60 s, keeps the key, the retry resolves the attempt (one transfer)', async () => {
    await admin.fault({ operationId: 'createTransfer', kind: 'unavailable', count: 2, organizationId: orgId, resolution: 'completed' });
    sleeps.length = 0;
    const before = await transfersOfOrg();
    const result = await pay('invoice-503');
    expect(result.attempts).toBe(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(60_000);
    expect(classifyTransfer(result)).toMatchObject({ kind: 'resolved', transfer: { status: 'completed' } });
    expect(await transfersOfOrg()).toBe(before + 1);
  });

  it('edge 502 after commit: retried with the same key, replayed, one transfer', async () => {
    await admin.fault({ operationId: 'createTransfer', kind: 'edge_502', count: 1, organizationId: orgId, commit: true });
    const before = await transfersOfOrg();
    const result = await pay('invoice-502');
    expect(result.attempts).toBe(2);
    expect(await transfersOfOrg()).toBe(before + 1);
  });

  it('connection dropped after commit: a network error, retried, replayed, one transfer', async () => {
    await admin.fault({ operationId: 'createTransfer', kind: 'drop_after_commit', count: 1, organizationId: orgId });
    const before = await transfersOfOrg();
    const result = await pay('invoice-drop');
    expect(result.attempts).toBe(2);
    expect(await transfersOfOrg()).toBe(before + 1);
  });

  it('edge 504 before processing: retried, paid once', async () => {
    await admin.fault({ operationId: 'createTransfer', kind: 'edge_504', count: 2, organizationId: orgId });
    const before = await transfersOfOrg();
    expect((await pay('invoice-504')).attempts).toBe(3);
    expect(await transfersOfOrg()).toBe(before + 1);
  });

  it('pending review: surfaced, never a new key; the same key later resolves', async () => {
    await admin.fault({ operationId: 'createTransfer', kind: 'pending_review', count: 1, organizationId: orgId, resolution: 'pending_review' });
    const key = await deriveIdempotencyKey('createTransfer', 'invoice-review');
    let error: unknown;
    try {
      await pay('invoice-review');
    } catch (err) {
      error = err;
    }
    expect(classifyTransfer(error)).toMatchObject({ kind: 'pending_review', idempotencyKey: key });
    await admin.req('POST', `/organizations/${orgId}/transfer-attempts/resolve`, { idempotencyKey: key, resolution: 'pending' });
    expect(classifyTransfer(await pay('invoice-review')).kind).toBe('resolved');
  });

  it('provider_rate_limited on cards: waits Retry-After, same key, one card', async () => {
    await admin.fault({ operationId: 'issueCard', kind: 'provider_rate_limited', count: 1, organizationId: orgId, retryAfterSeconds: 4 });
    sleeps.length = 0;
    const result = await client.POST('/v1/cards', { body: {}, idempotencyKey: 'employee-7:card' });
    expect(result.attempts).toBe(2);
    expect(sleeps).toEqual([4000]);
    expect(result.data.idempotencyKey).toBe('employee-7:card');
  });

  it('the same invoice paid again (a restarted process) replays the original transfer', async () => {
    const first = await pay('invoice-restart', '12.34');
    const again = await pay('invoice-restart', 12.34);
    expect(again.data).toEqual(first.data);
    await expect(pay('invoice-restart', '99.00')).rejects.toMatchObject({ code: 'banking_transfer_idempotency_conflict' } satisfies Partial<ApiError>);
  });

  it("the injected faults' 5xx answers, and the dropped connection (status 0), are logged as warnings: `error` stays the sandbox's own problems", () => {
    const lines = logs.map((text) => JSON.parse(text) as { level: string; status?: number });
    const fiveHundreds = lines.filter((l) => typeof l.status === 'number' && l.status >= 500);
    expect(fiveHundreds.length).toBeGreaterThan(0);
    expect([...new Set(fiveHundreds.map((l) => l.level))]).toEqual(['warn']);
    const unanswered = lines.filter((l) => l.status === 0);
    expect(unanswered.length).toBeGreaterThan(0);
    expect([...new Set(unanswered.map((l) => l.level))]).toEqual(['warn']);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('the sandbox logs never contain the API key', () => {
    expect(logs.length).toBeGreaterThan(10);
    expect(logs.join('')).not.toContain(apiKey);
    expect(logs.join('')).not.toContain('svc_live_');
  });
});
