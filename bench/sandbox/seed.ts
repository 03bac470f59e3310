// Fills a bench organization with many transfers straight through SQL (a million through the API would
// take minutes), together with the running balance the store keeps for them, so the bench can read the
// balance of organizations of every size. Same statements on both engines ($n placeholders; SQLite reads
// them as ?n).
//
// Then the database is settled before anything is measured: a million new rows otherwise bring their
// maintenance into the measured windows. Seen on PostgreSQL (pg_stat_activity, polled after seeding 1M):
// autovacuum started "VACUUM ANALYZE public.transfers" 60 s later (its naptime) and ran for ~4 s, in the
// middle of the rounds, and the seed's dirty buffers wait for the next timed checkpoint; GET balance's
// spread over 0 / 100k / 1M read 1.58 with no trend in size. So: VACUUM ANALYZE and CHECKPOINT here (and on
// SQLite a WAL checkpoint, else the sandbox's own autocheckpoint copies the seed during a round).
import { createRequire } from 'node:module';
import { DatabaseSync } from 'node:sqlite';
import type { Tenant } from './provision.ts';

/** node-postgres, as the sandbox depends on it (the bench has no dependencies of its own). */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}
const pg = createRequire(new URL('../../packages/sandbox/package.json', import.meta.url))('pg') as { Client: new (options: { connectionString: string }) => PgClient };

const TRANSFERS = `
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3)
  INSERT INTO transfers (organization_id, id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
  SELECT $1, 'trf_seed_' || i, $2, '1.00', 100, 'USD', 'completed', 'bench-seed-' || i, $4 FROM n`;
const BALANCE = `
  INSERT INTO balances (organization_id, currency, slot, debited_cents) VALUES ($1, 'USD', 0, $2)
  ON CONFLICT (organization_id, currency, slot) DO UPDATE SET debited_cents = balances.debited_cents + excluded.debited_cents`;

export async function seedTransfers(store: { file: string } | { databaseUrl: string }, tenant: Tenant, count: number): Promise<void> {
  const now = new Date().toISOString();
  if ('file' in store) {
    const db = new DatabaseSync(store.file);
    try {
      db.exec('PRAGMA busy_timeout = 30000; BEGIN IMMEDIATE');
      db.prepare(TRANSFERS.replace(/\$(\d)/g, '?$1')).run(tenant.orgId, tenant.recipientId, count, now);
      db.prepare(BALANCE.replace(/\$(\d)/g, '?$1')).run(tenant.orgId, count * 100);
      db.exec('COMMIT');
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: store.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(TRANSFERS, [tenant.orgId, tenant.recipientId, count, now]);
    await client.query(BALANCE, [tenant.orgId, count * 100]);
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE transfers, balances');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}
