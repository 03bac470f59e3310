// How often a request waits for PostgreSQL (issue 25, deliver 1): each round trip costs the sandbox and the
// database a socket write, a read and a wake-up, so the count is part of the store's design and held here.
// A lone request (each statement shared per event-loop turn is its own round trip here). And what each of its
// statements costs PostgreSQL must not grow with the data: the plans the store's prepared statements run on.
import driver from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordRoundTrips, type Recording } from '../../../tools/lib/pg-round-trips.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { trimJournalSql } from '../src/store/sql-transaction.ts';
import { adminOf, call } from './support.ts';

let pg: ThrowawayPostgres;
let sandbox: RunningSandbox;
let key: string;
let organizationId: string;
let recipientId: string;

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  sandbox = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_round_trips_token_for_tests' });
  const created = await adminOf(sandbox).org();
  key = created.key;
  organizationId = String(created.org.id);
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-trips', body: { rail: 'usd_ach', nickname: 'Trips' } });
  recipientId = String(recipient.body.id);
});
afterAll(async () => {
  await sandbox?.close();
  await pg?.stop();
});

const transfer = (idem: string) => call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem, body: { recipientId, amount: '1.00' } });
const tripOf = (recording: Recording, table: string) => recording.sent.find((s) => new RegExp(`^SELECT \\* FROM ${table}\\b`).test(s.text))?.roundTrip;

it('a POST transfer with a new key waits for PostgreSQL 4 times: caller, rate limit, the key with the recipient, one statement of its writes', async () => {
  const recording = await recordRoundTrips(pg.url, () => transfer('trips-new'));
  expect(recording.result.status).toBe(201);
  expect(recording.roundTrips).toBe(4);
  // The recipient is read ahead, beside the key (OperationHandler.readAhead), not after the key's answer.
  expect(tripOf(recording, 'recipients')).toBe(tripOf(recording, 'idempotency'));
  // Its reads need no transaction block, and its four writes are one statement, committed as it ends.
  expect(recording.sent.map((s) => s.text)).not.toContain('BEGIN');
  const last = recording.sent.filter((s) => s.roundTrip === 4);
  expect(last).toHaveLength(1);
  expect([...last[0]!.text.matchAll(/INSERT INTO (\w+)/g)].map((m) => m[1])).toEqual(['transfers', 'balances', 'idempotency', 'journal']);
  expect(recording.writes).toBe(4); // one socket write per round trip (the connection is corked)
});

it('its replay waits at most 4 times, and writes nothing but its journal entry', async () => {
  await transfer('trips-replay');
  const recording = await recordRoundTrips(pg.url, () => transfer('trips-replay'));
  expect(recording.result.status).toBe(201);
  // 4, or 3 when the recipient read ahead (unused by a replay) is still being answered as the journal row and
  // COMMIT go out: the recorder then counts them in its round trip (seen under load in CI).
  expect(recording.roundTrips).toBeGreaterThanOrEqual(3);
  expect(recording.roundTrips).toBeLessThanOrEqual(4);
  const writes = recording.sent.filter((s) => /^\s*(INSERT|UPDATE|DELETE)/.test(s.text) && !/rate_counters/.test(s.text));
  expect(writes.map((s) => s.text.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual(['INSERT INTO journal']);
});

it("connects over the cluster's Unix socket as well (postgres:///db?host=/folder&port=…&user=…)", async () => {
  // On one machine the socket costs both processes less than TCP on 127.0.0.1 (bench --pg-socket).
  const { port } = new URL(pg.url);
  const overSocket = await startSandbox({ databaseUrl: `postgres:///postgres?host=${encodeURIComponent(pg.dir)}&port=${port}&user=postgres`, adminToken: 'adm_round_trips_token_for_tests' });
  try {
    const reply = await call(overSocket.url, 'POST', '/v1/banking/transfers', { key, idem: 'trips-socket', body: { recipientId, amount: '1.00' } });
    expect(reply.status).toBe(201);
    expect((await call(sandbox.url, 'GET', `/v1/banking/transfers/${reply.body.id}`, { key })).status).toBe(200); // one database, seen over TCP
  } finally {
    await overSocket.close();
  }
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: unknown[] };

/** How a plan reads its tables (EXPLAIN's JSON plan tree): the indexes it probes, and `table (sequential)` for a sequential scan. */
function scans(plan: PlanNode): string[] {
  const own = plan['Node Type'] === 'Seq Scan' ? [`${plan['Relation Name']} (sequential)`] : plan['Index Name'] ? [plan['Index Name']] : [];
  return [...own, ...(plan.Plans ?? []).flatMap((p) => scans(p as PlanNode))];
}

/** The plan PostgreSQL runs a prepared statement on, with these values. */
async function planOf(db: driver.Client, name: string, text: string, values: readonly unknown[]): Promise<PlanNode> {
  await db.query(`PREPARE ${name} AS ${text}`);
  const [row] = (await db.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}(${values.map((v) => literal(db, v)).join(', ')})`)).rows as { 'QUERY PLAN': [{ Plan: PlanNode }] }[];
  return row!['QUERY PLAN'][0].Plan;
}

/** A recorded value as an SQL literal (an array as PostgreSQL's array text). */
function literal(client: driver.Client, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return client.escapeLiteral(`{${value.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`);
  return client.escapeLiteral(String(value));
}

/** The tables a request reads that grow with use: a sequential scan of one is a cost that grows with the data. */
const GROWING = ['organizations', 'api_keys', 'rate_counters', 'recipients', 'transfers', 'balances', 'idempotency', 'journal'];

it('every statement of a POST transfer and a GET balance, and the journal trim, probes an index on the tables that grow with use, whatever their size', async () => {
  // The store's statements run on generic plans (plan_cache_mode), which know no value: planned as a join, a
  // turn's callers met every API key (a hash join over a sequential scan) and its rate-limit prune every counter.
  const db = new driver.Client({ connectionString: pg.url });
  await db.connect();
  try {
    // 2,000 rows more in each table a request reads and that grows with use (other organizations' rows).
    const rows = (select: string) => `SELECT ${select} FROM generate_series(1, 2000) g`;
    const at = "'2026-11-27T00:00:00.000Z'";
    await db.query(`INSERT INTO organizations (id, name, api_access, banking, cards, checkout, wallet_transfers, card_terms_accepted, checkout_pix, funding, created_at)
      ${rows(`'org_plan_' || g, 'Plan', true, true, true, true, true, true, true, '{}', ${at}`)}`);
    await db.query(`INSERT INTO api_keys (id, organization_id, hash, prefix, created_at, revoked_at) ${rows(`'key_plan_' || g, 'org_plan_' || g, md5(g::text) || md5(g::text), 'svc_live_plan', ${at}, NULL`)}`);
    await db.query(`INSERT INTO rate_counters (bucket, window_start, count) ${rows("'key:key_plan_' || g, 0, 1")}`);
    await db.query(`INSERT INTO recipients (id, organization_id, nickname, rail, pix_key, destination_address, active, source, idempotency_key, created_at)
      ${rows(`'rcp_plan_' || g, 'org_plan_' || g, 'Plan', 'usd_ach', NULL, NULL, true, 'api', NULL, ${at}`)}`);
    await db.query(`INSERT INTO transfers (organization_id, id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
      ${rows(`'org_plan_' || g, 'trf_plan_' || g, 'rcp_plan_' || g, '1.00', 100, 'USD', 'pending', 'plan-' || g, ${at}`)}`);
    await db.query(`INSERT INTO balances (organization_id, currency, slot, debited_cents) ${rows("'org_plan_' || g, 'USD', 0, 100")}`);
    await db.query(`INSERT INTO idempotency (organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at)
      ${rows(`'org_plan_' || g, 'createTransfer', 'plan-' || g, '[]', 'done', 201, '{}', NULL, ${at}`)}`);
    await db.query(`INSERT INTO journal (organization_id, at_ms, operation_id, idem_key, identity, status, code, resource_status, retry_after_seconds, fault, answered, body)
      ${rows("'org_plan_' || g, g, 'createTransfer', 'plan-' || g, '[]', 201, NULL, 'pending', NULL, NULL, true, NULL")}`);
    await db.query('ANALYZE');
    const sent = [...(await recordRoundTrips(pg.url, () => transfer('trips-plans'))).sent, ...(await recordRoundTrips(pg.url, () => call(sandbox.url, 'GET', '/v1/banking/balance', { key }))).sent];
    await db.query('SET plan_cache_mode = force_generic_plan');
    const seqScans: string[] = [];
    for (const [i, { text, values }] of sent.entries()) {
      if (values.length === 0) continue; // BEGIN, COMMIT
      const plan = await planOf(db, `plan_${i}`, text, values);
      const sequential = scans(plan).filter((scan) => GROWING.some((table) => scan === `${table} (sequential)`));
      seqScans.push(...sequential.map((scan) => `${scan} in ${text.replace(/\s+/g, ' ').slice(0, 60)}…`));
    }
    expect(sent.some((s) => s.text.includes('INSERT INTO transfers')) && sent.some((s) => s.text.includes('FROM balances'))).toBe(true);
    expect(seqScans).toEqual([]);
    // The journal's trim (every 1,000 entries of an organization, off the answer path) reads that organization's rows only.
    const trim = await planOf(db, 'trim', trimJournalSql(' FOR UPDATE')[0], [organizationId, 10]);
    const journalScans = scans(trim).filter((scan) => scan.startsWith('journal'));
    expect(journalScans.length).toBeGreaterThan(0);
    expect(journalScans.filter((scan) => scan !== 'journal_by_organization')).toEqual([]);
  } finally {
    await db.end();
  }
});
