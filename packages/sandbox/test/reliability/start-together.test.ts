// Four sandbox processes started at the same moment on one fresh store all come up and serve, 20 times in
// a row: on one new SQLite file (they race to switch it to WAL and migrate it, while another connection is
// still writing to it: the start waits for its lock instead of failing with "database is locked") and on
// one new PostgreSQL database (they race to migrate it). Each round checks that every instance answers and sees
// what another one wrote, then stops them all; a round whose start fails stops those that did start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../../tools/lib/postgres.ts';
import { adminOf } from '../support.ts';
import { startChildSandboxes, type ChildSandbox } from './child-sandbox.ts';
import { must } from './wire.ts';

const ROUNDS = 20;
const INSTANCES = 4;
const ADMIN_TOKEN = 'adm_reliability_start_together_token';

/** Every instance answers, and a key made through the first works on all of them. */
async function expectServing(sandboxes: ChildSandbox[]): Promise<void> {
  const { key } = await adminOf(sandboxes[0]!).org();
  const replies = await Promise.all(sandboxes.map((s) => must(s.url, 'GET', '/v1/banking/balance', { key })));
  expect(replies.map((r) => r.status)).toEqual(sandboxes.map(() => 200));
}

async function rounds(place: (round: number) => Promise<{ file?: string; databaseUrl?: string }>): Promise<void> {
  for (let round = 1; round <= ROUNDS; round++) {
    const where = await place(round);
    const sandboxes = await startChildSandboxes(INSTANCES, { ...where, adminToken: ADMIN_TOKEN }).catch((err: Error) => {
      throw new Error(`round ${round}: ${err.message}`);
    });
    try {
      await expectServing(sandboxes);
    } finally {
      await Promise.all(sandboxes.map((s) => s.stop()));
    }
  }
}

describe(`${INSTANCES} sandbox processes started together, ${ROUNDS} times`, () => {
  let dir = '';
  let cluster: ThrowawayPostgres | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payments-start-together-'));
    cluster = await startThrowawayPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on one new SQLite file each time, busy with another writer: all come up and serve', { timeout: 300_000 }, async () => {
    await rounds(async (round) => {
      const file = join(dir, `round-${round}.db`);
      // Another process's write in progress on the new file (rollback journal: switching it to WAL needs it done).
      // Its COMMIT waits for the sandboxes' shared locks (SQLite's busy handler, up to 10 s): without a timeout
      // it failed with SQLITE_BUSY whenever a sandbox was reading at that moment, which left the write lock
      // held, so every sandbox gave up after 10 s with "database is locked" (seen once in 20 rounds at load 14).
      // The write is the start of a sandbox's own schema, as another sandbox's migrate() would begin it (a table
      // the sandbox did not create would be refused: foreign-database.test.ts).
      const writer = new DatabaseSync(file, { timeout: 10_000 });
      writer.exec('BEGIN IMMEDIATE; CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)');
      setTimeout(() => {
        try {
          writer.exec('COMMIT');
        } finally {
          writer.close();
        }
      }, 400);
      return { file };
    });
  });

  it('on one new PostgreSQL database each time: all come up and serve', { timeout: 300_000 }, async () => {
    await rounds(async (round) => ({ databaseUrl: await cluster!.createDatabase(`start_together_${round}`) }));
  });
});
