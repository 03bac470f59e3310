// Databases the previous sandbox made (commit f540a9f, through its own HTTP and admin APIs; the .json beside
// each says what it answered) are carried forward to the current schema on start: every row kept, the new
// constraints in place, the running balances equal to what the old sandbox answered, and every key
// replaying its original answer. node:sqlite: test/fixtures/legacy-v4.sqlite (schema version 4), the file
// itself; PostgreSQL: test/fixtures/legacy-v1.postgres.sql (schema version 1), its pg_dump.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { MIGRATIONS } from '../src/store/schema.ts';
import { adminOf, call } from './support.ts';

const TABLES = ['organizations', 'api_keys', 'recipients', 'transfers', 'resources', 'idempotency', 'faults'];
/** Columns later migrations added (version 6: the test clock and the journal's dropped count), absent from a legacy row. */
const ADDED_LATER = ['clock_ms', 'journal_dropped'];
const ORDER: Record<string, string> = { transfers: 'created_at, idempotency_key', idempotency: 'created_at, idem_key' };
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url);

/** A table's rows in a stable order, as plain values, without the insertion counter (seq) each schema numbers itself. */
type ReadRows = (sql: string) => Promise<Record<string, unknown>[]>;
const rowsOf = async (read: ReadRows, table: string) =>
  (await read(`SELECT * FROM ${table} ORDER BY ${ORDER[table] ?? 'id'}`)).map((row) =>
    Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'seq' && !ADDED_LATER.includes(column)).map(([column, value]) => [column, meaning(column, value)])),
  );
/** What a value means, on both engines: booleans as 0/1 (SQLite's form), JSON columns parsed (stored as text now, as json before on PostgreSQL). */
const meaning = (column: string, value: unknown) =>
  typeof value === 'boolean' ? Number(value) : (column === 'body' || column === 'funding') && typeof value === 'string' ? JSON.parse(value) : value;

interface Legacy {
  made: any;
  /** Opens the legacy database in a place of its own; `read` runs a query on it (before and after the sandbox migrates it). */
  open(): Promise<{ where: { file: string } | { databaseUrl: string }; read: ReadRows; indexes(): Promise<string[]>; close(): Promise<void> }>;
}

let cluster: ThrowawayPostgres | undefined;
const dir = mkdtempSync(join(tmpdir(), 'payments-legacy-'));

const legacies: [string, Legacy][] = [
  [
    'node:sqlite, schema version 4',
    {
      made: JSON.parse(readFileSync(fixture('legacy-v4.json'), 'utf8')),
      async open() {
        const file = join(dir, 'legacy.db');
        copyFileSync(fixture('legacy-v4.sqlite'), file);
        const query = (sql: string) => {
          const db = new DatabaseSync(file, { readOnly: true });
          try {
            return db.prepare(sql).all() as Record<string, unknown>[];
          } finally {
            db.close();
          }
        };
        return {
          where: { file },
          read: async (sql) => query(sql),
          indexes: async () => query("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map((r) => String(r.name)),
          close: async () => {},
        };
      },
    },
  ],
  [
    'PostgreSQL, schema version 1',
    {
      made: JSON.parse(readFileSync(fixture('legacy-v1.postgres.json'), 'utf8')),
      async open() {
        cluster ??= await startThrowawayPostgres();
        const url = await cluster.createDatabase('legacy');
        const restore = new pg.Client({ connectionString: url });
        await restore.connect();
        try {
          await restore.query(readFileSync(fixture('legacy-v1.postgres.sql'), 'utf8'));
        } finally {
          await restore.end();
        }
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return {
          where: { databaseUrl: url },
          read: async (sql) => (await client.query(sql)).rows,
          indexes: async () =>
            (await client.query("SELECT indexname FROM pg_indexes i WHERE schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY indexname")).rows.map((r) => String(r.indexname)),
          close: () => client.end(),
        };
      },
    },
  ],
];

afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(legacies)('a database of the previous sandbox: %s', (_name, legacy) => {
  const { made } = legacy;
  let sandbox: RunningSandbox;
  let db: Awaited<ReturnType<Legacy['open']>>;
  let before: Record<string, unknown[]> = {};

  beforeAll(async () => {
    db = await legacy.open();
    for (const table of TABLES) before[table] = await rowsOf(db.read, table);
    sandbox = await startSandbox({ ...db.where, adminToken: 'adm_legacy' });
  });
  afterAll(async () => {
    await sandbox?.close();
    await db?.close();
  });

  it('keeps every row of every table, and records schema version 5 and every later migration', async () => {
    for (const table of TABLES) expect(await rowsOf(db.read, table), table).toEqual(before[table]);
    expect(before.transfers!.length).toBe(made.transfers.length + 1); // + the wallet transfer
    expect((await db.read('SELECT version FROM schema_migrations WHERE version >= 5 ORDER BY version')).map((r) => Number(r.version))).toEqual([5, ...MIGRATIONS.map((m) => m.version)]);
    expect(await db.indexes()).toEqual(expect.arrayContaining(['faults_pending', 'recipients_active_nickname', 'recipients_unique_pix_key', 'resources_by_kind']));
    expect((await db.indexes()).filter((name) => !/^(faults_pending|recipients_active_nickname|recipients_unique_pix_key|resources_by_kind|journal_by_organization|rate_counters.*)$/.test(name))).toEqual([]);
  });

  it('answers as the old sandbox did: the balance, replays, the revoked key, the pending fault', async () => {
    const key = made.key as string;
    expect((await call(sandbox.url, 'GET', '/v1/banking/balance', { key })).body).toEqual(made.balance);
    const faults = (await adminOf(sandbox).req('GET', '/faults')).faults.filter((f: { remaining: number }) => f.remaining > 0);
    expect(faults).toEqual([expect.objectContaining({ kind: 'edge_502', remaining: 2, organizationId: made.organizationId })]);
    await adminOf(sandbox).req('DELETE', '/faults');
    for (const [i, transfer] of (made.transfers as { id: string; recipientId: string; amount: string }[]).entries()) {
      const replay = await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: `order-${i}`, body: { recipientId: transfer.recipientId, amount: transfer.amount } });
      expect(replay.body, `order-${i}`).toEqual(transfer);
    }
    const session = await call(sandbox.url, 'POST', '/v1/checkout/sessions', { key, idem: 'session-0001', body: { amount: '37.45' } });
    expect(session.body).toEqual(made.session);
    const revoked = await sandbox.store.transaction((tx) => tx.getApiKey(made.revokedKeyId));
    expect(revoked?.revokedAt).toEqual(expect.any(String));
  });

  it('goes on under the new constraints: the unresolved attempt resolves once, nicknames and PIX keys stay unique', async () => {
    const key = made.key as string;
    const pix = made.recipients.pix;
    const resolved = await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-503', body: { recipientId: pix.id, amount: '77.70' } });
    expect(resolved.status, resolved.text).toBe(201);
    expect(resolved.body).toMatchObject({ status: 'completed', amount: '77.70' });
    const again = await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-503', body: { recipientId: pix.id, amount: '77.70' } });
    expect(again.body).toEqual(resolved.body);
    const brl = (await call(sandbox.url, 'GET', '/v1/banking/balance', { key })).body.balances.find((b: { currency: string }) => b.currency === 'BRL');
    const brlBefore = made.balance.balances.find((b: { currency: string }) => b.currency === 'BRL');
    expect(brl.available).toBe((Number(brlBefore.available) - 77.7).toFixed(2));
    const sameNickname = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-new-1', body: { rail: 'usd_ach', nickname: 'Maria' } });
    expect(sameNickname.body.code).toBe('recipient_nickname_already_exists');
    const samePix = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-new-2', body: { rail: 'brl_pix', nickname: 'Maria 2', pixKey: 'maria@example.com' } });
    expect(samePix.body.code).toBe('recipient_already_exists');
  });
});
