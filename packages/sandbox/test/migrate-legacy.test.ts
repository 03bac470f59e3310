// A database the previous sandbox made (schema version 4, test/fixtures/legacy-v4.sqlite: made by the sandbox
// at commit f540a9f through its own HTTP and admin APIs; legacy-v4.json says what it answered) is carried
// forward to the current schema on start: every row kept, the new constraints in place, the running
// balances equal to what the old sandbox answered, and every key replaying its original answer.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call } from './support.ts';

const fixture = new URL('./fixtures/legacy-v4.sqlite', import.meta.url);
const made = JSON.parse(readFileSync(new URL('./fixtures/legacy-v4.json', import.meta.url), 'utf8'));
const TABLES = ['organizations', 'api_keys', 'recipients', 'transfers', 'resources', 'idempotency', 'faults'];

let dir = '';
let file = '';
let sandbox: RunningSandbox;
let before: Record<string, unknown[]> = {};

const ORDER: Record<string, string> = { transfers: 'created_at, idempotency_key', idempotency: 'created_at, idem_key' };
/** A table's rows in a stable order, without the insertion counter (seq), which each schema numbers itself. */
const rows = (db: DatabaseSync, table: string) =>
  db
    .prepare(`SELECT * FROM ${table} ORDER BY ${ORDER[table] ?? 'id'}`)
    .all()
    .map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'seq')));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-legacy-'));
  file = join(dir, 'sandbox.db');
  copyFileSync(fixture, file);
  const old = new DatabaseSync(file, { readOnly: true });
  before = Object.fromEntries(TABLES.map((t) => [t, rows(old, t)]));
  old.close();
  sandbox = await startSandbox({ file, adminToken: 'adm_legacy' });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('keeps every row of every table, and records schema version 5', () => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    for (const table of TABLES) {
      const after = rows(db, table);
      expect(after.length, table).toBe(before[table]!.length);
      expect(after, table).toEqual(before[table]);
    }
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: 5 });
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all().map((r) => r.name);
    expect(indexes).toEqual(['faults_pending', 'recipients_active_nickname', 'recipients_unique_pix_key', 'resources_by_kind']);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'legacy_%'").all()).toEqual([]);
  } finally {
    db.close();
  }
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
