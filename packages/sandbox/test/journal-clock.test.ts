// The traffic journal and the test clocks (issue 13, deliver 1 and 2), on node:sqlite and on PostgreSQL
// (two instances on one database): what each request leaves (refusals, successes, faults, a dropped
// connection; never the API key), the per-organization cap with the dropped count, and a clock that
// times requests, resources and rate-limit windows, shared by the instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call } from './support.ts';

interface Engine {
  a: RunningSandbox;
  /** Another instance on the same store (PostgreSQL), or the same one (node:sqlite in memory). */
  b: RunningSandbox;
  capped: RunningSandbox;
}

let pg: ThrowawayPostgres | undefined;
const engines: [string, () => Promise<Engine>][] = [
  ['node:sqlite', async () => {
    const a = await startSandbox({});
    return { a, b: a, capped: await startSandbox({ journalCap: 5 }) };
  }],
  ['PostgreSQL, two instances', async () => {
    pg = await startThrowawayPostgres();
    const url = await pg.createDatabase('journal');
    const token = 'adm_journal_clock';
    return {
      a: await startSandbox({ databaseUrl: url, adminToken: token }),
      b: await startSandbox({ databaseUrl: url, adminToken: token }),
      capped: await startSandbox({ databaseUrl: await pg.createDatabase('capped'), journalCap: 5 }),
    };
  }],
];

describe.each(engines)('%s', (_name, start) => {
  let e: Engine;
  beforeAll(async () => {
    e = await start();
  }, 120_000);
  afterAll(async () => {
    for (const s of new Set([e?.a, e?.b, e?.capped])) await s?.close();
    await pg?.stop();
    pg = undefined;
  });

  const journalOf = (s: RunningSandbox, orgId: string) => adminOf(s).req('GET', `/organizations/${orgId}/journal`);

  it('records each request of an organization before it is answered: refusals, successes, faults, no answer; never the API key', async () => {
    const admin = adminOf(e.a);
    const { org, key } = await admin.org();
    const recipient = await call(e.b.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-1', body: { rail: 'brl_pix', nickname: 'Ana', pixKey: 'ana@example.com' } });
    const noKey = await call(e.a.url, 'POST', '/v1/banking/transfers', { key, body: { recipientId: recipient.body.id, amount: '10' } });
    await admin.fault({ organizationId: org.id, operationId: 'createTransfer', kind: 'unavailable', count: 1 });
    await admin.fault({ organizationId: org.id, operationId: 'createTransfer', kind: 'edge_502', count: 1, commit: true });
    const unavailable = await call(e.a.url, 'POST', '/v1/banking/transfers', { key, idem: 't-1', body: { recipientId: recipient.body.id, amount: '10.5' } });
    const edge = await call(e.b.url, 'POST', '/v1/banking/transfers', { key, idem: 't-2', body: { recipientId: recipient.body.id, amount: '11' } });
    await admin.fault({ organizationId: org.id, operationId: 'createTransfer', kind: 'drop_after_commit', count: 1 });
    await expect(call(e.a.url, 'POST', '/v1/banking/transfers', { key, idem: 't-3', body: { recipientId: recipient.body.id, amount: '12' } })).rejects.toThrow();
    const created = await call(e.a.url, 'POST', '/v1/banking/transfers', { key, idem: 't-1', body: { recipientId: recipient.body.id, amount: '10.50' } });
    await call(e.b.url, 'GET', '/v1/banking/balance', { key });
    expect([noKey.status, unavailable.status, edge.status, created.status]).toEqual([400, 503, 502, 201]);

    const journal = await journalOf(e.b, org.id);
    expect(JSON.stringify(journal)).not.toContain(key);
    expect(journal.dropped).toBe(0);
    const identity = (amount: string) => JSON.stringify({ amount, recipientId: recipient.body.id });
    expect(journal.entries.map((x: any) => [x.operationId, x.idempotencyKey, x.status, x.code, x.fault, x.answered, x.resourceStatus])).toEqual([
      ['createRecipient', 'rcp-1', 201, null, null, true, null],
      ['createTransfer', null, 400, 'invalid_request', null, true, null],
      ['createTransfer', 't-1', 503, 'temporarily_unavailable', 'unavailable', true, null],
      ['createTransfer', 't-2', 502, null, 'edge_502', true, null],
      ['createTransfer', 't-3', null, null, 'drop_after_commit', false, null],
      ['createTransfer', 't-1', 201, null, null, true, 'pending'],
      ['getBankingBalance', null, 200, null, null, true, null],
    ]);
    // The payment's identity is normalized ("10.5" and "10.50" are one payment); the refused body is kept for the schema check.
    expect(journal.entries[2].identity).toBe(identity('10.50'));
    expect(journal.entries[5].identity).toBe(identity('10.50'));
    expect(journal.entries[1].body).toEqual({ recipientId: recipient.body.id, amount: '10' });
    expect(journal.entries[0].identity).toBe(JSON.stringify({ pixKey: 'ana@example.com', rail: 'brl_pix' }));
  });

  it('reads oldest first by time, though entries are stored as their requests commit (QA: concurrent requests out of order)', async () => {
    const { org } = await adminOf(e.a).org();
    const entry = (at: number, idempotencyKey: string) => ({ at, operationId: 'issueCard', idempotencyKey, identity: '{}', status: 201, code: null, resourceStatus: null, retryAfterSeconds: null, fault: null, answered: true });
    // Stored out of time order, as two concurrent requests commit: the later-arriving one first.
    await e.a.store.transaction(async (tx) => {
      for (const [at, key] of [[2_000, 'second'], [1_000, 'first'], [3_000, 'third']] as const) await tx.appendJournal(org.id, entry(at, key));
    });
    const journal = await journalOf(e.b, org.id);
    expect(journal.entries.map((x: any) => x.idempotencyKey)).toEqual(['first', 'second', 'third']);
  });

  it('keeps the newest `cap` entries per organization, counting the dropped ones, each organization apart', async () => {
    const admin = adminOf(e.capped);
    const one = await admin.org();
    const other = await admin.org();
    for (let i = 0; i < 12; i++) await call(e.capped.url, 'POST', '/v1/cards', { key: one.key, idem: `card-${i}`, body: {} });
    await call(e.capped.url, 'GET', '/v1/banking/balance', { key: other.key });
    const journal = await journalOf(e.capped, one.org.id);
    expect(journal.cap).toBe(5);
    expect(journal.dropped).toBe(7);
    expect(journal.entries.map((x: any) => x.idempotencyKey)).toEqual(['card-7', 'card-8', 'card-9', 'card-10', 'card-11']);
    const untouched = await journalOf(e.capped, other.org.id);
    expect([untouched.dropped, untouched.entries.length]).toEqual([0, 1]);
  });

  it('a frozen clock times requests and resources; advancing it moves them; real time again after', async () => {
    const admin = adminOf(e.a);
    const { org, key } = await admin.org({ cardTermsAccepted: true });
    const frozen = await admin.req('POST', `/organizations/${org.id}/clock/freeze`, { at: '2025-05-14T12:30:00.000Z' });
    expect(frozen).toEqual({ organizationId: org.id, mode: 'frozen', now: '2025-05-14T12:30:00.000Z', nowMs: Date.parse('2025-05-14T12:30:00.000Z') });
    const first = await call(e.b.url, 'POST', '/v1/cards', { key, idem: 'c-1', body: {} });
    await admin.req('POST', `/organizations/${org.id}/clock/advance`, { milliseconds: 60_000 });
    // Two advances at once on two instances add up.
    await Promise.all([adminOf(e.a).req('POST', `/organizations/${org.id}/clock/advance`, { milliseconds: 500 }), adminOf(e.b).req('POST', `/organizations/${org.id}/clock/advance`, { milliseconds: 500 })]);
    await call(e.a.url, 'POST', '/v1/cards', { key, idem: 'c-2', body: {} });
    const journal = await journalOf(e.a, org.id);
    expect(journal.entries.map((x: any) => x.time)).toEqual(['2025-05-14T12:30:00.000Z', '2025-05-14T12:31:01.000Z']);
    expect(first.status).toBe(201);
    // What the request stored carries the frozen time too (its idempotency record's createdAt).
    const record = await e.a.store.transaction((tx) => tx.findIdempotency(org.id, 'issueCard', 'c-1'));
    expect(record?.createdAt).toBe('2025-05-14T12:30:00.000Z');
    const real = await admin.req('DELETE', `/organizations/${org.id}/clock`);
    expect(real.mode).toBe('real');
    await call(e.b.url, 'GET', '/v1/banking/balance', { key });
    const last = (await journalOf(e.a, org.id)).entries.at(-1);
    expect(Math.abs(last.at - Date.now())).toBeLessThan(60_000);
  });

  it('rate-limit windows follow the clock: a card key over its limit is admitted again once the clock passes the window', async () => {
    const admin = adminOf(e.a);
    const { org, key } = await admin.org({ cardTermsAccepted: true });
    await admin.req('POST', `/organizations/${org.id}/clock/freeze`, { at: '2025-05-14T12:30:00.000Z' });
    let status = 0;
    for (let i = 0; i < 100 && status !== 429; i++) status = (await call(i % 2 ? e.a.url : e.b.url, 'POST', '/v1/cards', { key, idem: `rl-${i}`, body: {} })).status;
    expect(status).toBe(429);
    const refused = await call(e.a.url, 'POST', '/v1/cards', { key, idem: 'rl-late', body: {} });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('900'); // a frozen clock: the whole window is still ahead
    await admin.req('POST', `/organizations/${org.id}/clock/advance`, { milliseconds: 900_000 });
    expect((await call(e.b.url, 'POST', '/v1/cards', { key, idem: 'rl-late', body: {} })).status).toBe(201);
  });
});
