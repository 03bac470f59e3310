// Maintenance by another connection never breaks "one key, one resource": between two requests with the
// same Idempotency-Key, another connection to the SQLite file runs VACUUM (which may renumber the rowids of
// a table without an INTEGER PRIMARY KEY) and wal_checkpoint(TRUNCATE); the second request still replays
// the first one's transfer. Refused requests before it leave gaps in the rowids, so VACUUM does move rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox.ts';
import { adminOf, call } from '../support.ts';

let dir = '';
let sandbox: RunningSandbox;
let file = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-vacuum-'));
  file = join(dir, 'sandbox.db');
  sandbox = await startSandbox({ file });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

function maintain(statements: string[]): void {
  const other = new DatabaseSync(file);
  try {
    other.exec('PRAGMA busy_timeout = 10000');
    for (const sql of statements) other.exec(sql);
  } finally {
    other.close();
  }
}

it.each([
  ['VACUUM', ['VACUUM']],
  ['wal_checkpoint(TRUNCATE)', ['PRAGMA wal_checkpoint(TRUNCATE)']],
  ['both', ['PRAGMA wal_checkpoint(TRUNCATE)', 'VACUUM', 'PRAGMA wal_checkpoint(TRUNCATE)']],
])('%s by another connection between two same-key requests: one transfer', async (_name, statements) => {
  const { org, key } = await adminOf(sandbox).org();
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: `rcp-${org.id}`, body: { rail: 'usd_ach', nickname: 'Vacuum test' } });
  expect(recipient.status, recipient.text).toBe(201);
  const transfer = (idem: string, recipientId: string) => call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem, body: { recipientId, amount: '10.00' } });
  // Refused after their key was claimed (no such recipient): their claims are rolled back, leaving gaps.
  for (let i = 0; i < 20; i++) expect((await transfer(`refused-${i}`, 'rcp_missing')).status).toBe(404);
  const keys = Array.from({ length: 10 }, (_, i) => `order-${org.id}-${i}`);
  const first = await Promise.all(keys.map((idem) => transfer(idem, recipient.body.id)));
  expect(first.map((r) => r.status)).toEqual(keys.map(() => 201));

  maintain(statements);

  const again = await Promise.all(keys.map((idem) => transfer(idem, recipient.body.id)));
  expect(again.map((r) => r.body?.id)).toEqual(first.map((r) => r.body.id));
  expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(keys.length);
});
