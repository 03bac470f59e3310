// The traffic journal's writer (issue 25, deliver 2): the entries of one event-loop turn that have no
// transaction of their own (refusals, faults, edge answers) go to the store in one transaction, in the order
// they came, and none is reported written before that transaction has committed; so an answered request's
// entry is in the store when its client reads the journal right after the answer.
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { JournalEntry } from '../src/audit/journal.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { createJournal } from '../src/pipeline/journal.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import type { Store } from '../src/store/types.ts';
import { adminOf, call } from './support.ts';

const entry = (n: number): JournalEntry => ({
  at: 1_700_000_000_000 + n, operationId: 'createTransfer', idempotencyKey: `k-${n}`, identity: '{}', body: { amount: 'x' },
  status: 400, code: 'invalid_request', resourceStatus: null, retryAfterSeconds: null, fault: null, answered: true,
});

/**
 * The store as it is, counting the transactions asked of it, failing them while `failing` is set, and
 * starting each `delayMs` late (a slow database: an answer sent before its entry's COMMIT then arrives
 * before the entry is in the store).
 */
function counting(store: Store) {
  const seen = { transactions: 0, failing: false, delayMs: 0 };
  const wrapped: Store = {
    kind: store.kind,
    migrate: () => store.migrate(),
    transaction: async (fn, options) => {
      seen.transactions++;
      if (seen.failing) throw new Error('the journal is out of order (test)');
      if (seen.delayMs) await new Promise((resolve) => setTimeout(resolve, seen.delayMs));
      return store.transaction(fn, options);
    },
    hitRateLimit: (bucket, windowStart) => store.hitRateLimit(bucket, windowStart),
    findCaller: (hash, operationId) => store.findCaller(hash, operationId),
    close: () => store.close(),
  };
  return { wrapped, seen };
}

let pg: ThrowawayPostgres | undefined;
const engines: [string, () => Promise<RunningSandbox>][] = [
  ['node:sqlite', () => startSandbox({})],
  ['PostgreSQL', async () => {
    pg = await startThrowawayPostgres();
    return startSandbox({ databaseUrl: await pg.createDatabase('journal_batch') });
  }],
];

describe.each(engines)('%s', (_name, start) => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await start();
  }, 120_000);
  afterAll(async () => {
    await sandbox?.close();
    await pg?.stop();
    pg = undefined;
  });

  const journalOf = async (organizationId: string) => (await sandbox.store.transaction((tx) => tx.readJournal(organizationId, 10_000))).entries;

  describe('the journal writer', () => {
    it('writes the entries of one turn in one transaction, in order; each is committed when its promise resolves', async () => {
      const { org } = await adminOf(sandbox).org();
      const { wrapped, seen } = counting(sandbox.store);
      const journal = createJournal(wrapped, 1_000);
      const found: boolean[] = [];
      await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          await journal.commit(org.id, entry(n));
          found.push((await journalOf(org.id)).some((e) => e.idempotencyKey === `k-${n}`));
        }),
      );
      expect(found).toEqual(Array.from({ length: 20 }, () => true));
      expect(seen.transactions).toBe(1);
      expect(await journalOf(org.id)).toEqual(Array.from({ length: 20 }, (_, n) => entry(n)));
      // The next turn's entries are the next transaction's.
      await Promise.all([journal.commit(org.id, entry(20)), journal.commit(org.id, entry(21))]);
      expect(seen.transactions).toBe(2);
    });

    it('trims every cap / 10 entries in a transaction of its own, exactly: kept + dropped = written', async () => {
      const { org } = await adminOf(sandbox).org();
      const { wrapped, seen } = counting(sandbox.store);
      const journal = createJournal(wrapped, 10);
      for (let turn = 0; turn < 5; turn++) await Promise.all(Array.from({ length: 5 }, (_, i) => journal.commit(org.id, entry(turn * 5 + i))));
      await journal.drain();
      const page = await sandbox.store.transaction((tx) => tx.readJournal(org.id, 10));
      expect(page.entries).toEqual(Array.from({ length: 10 }, (_, n) => entry(15 + n)));
      expect(page.dropped).toBe(15);
      const stored = await sandbox.store.transaction((tx) => tx.readJournal(org.id, 1_000));
      expect(stored.entries.length).toBe(10); // the trim ran: nothing over the cap is left in the table
      expect(seen.transactions).toBe(10); // 5 batches, 5 trims (one per batch: each crossed cap / 10 = 1)
    });
  });

  describe('answers and their entries (HTTP)', () => {
    it('concurrent refusals and reads on a slow store: every answered request is in the journal when its answer arrives', async () => {
      const { wrapped, seen } = counting(sandbox.store);
      const slow = await startSandbox({ store: wrapped });
      onTestFinished(() => slow.close());
      const { org, key } = await adminOf(slow).org();
      seen.delayMs = 50;
      const missing: string[] = [];
      const answers = await Promise.all(
        Array.from({ length: 24 }, async (_, n) => {
          const reply =
            n % 4 === 3
              ? await call(slow.url, 'GET', '/v1/banking/balance', { key, headers: { 'idempotency-key': `read-${n}` } })
              : await call(slow.url, 'POST', '/v1/banking/transfers', { key, idem: `refused-${n}`, body: { recipientId: 'rcp_nobody', amount: 'x' } });
          const keys = (await journalOf(org.id)).map((e) => e.idempotencyKey);
          if (!keys.includes(n % 4 === 3 ? `read-${n}` : `refused-${n}`)) missing.push(`${n}`);
          return reply.status;
        }),
      );
      expect(answers.filter((s) => s === 400).length).toBe(18);
      expect(answers.filter((s) => s === 200).length).toBe(6);
      expect(missing).toEqual([]);
      expect((await journalOf(org.id)).length).toBe(24);
    });

    it('a journal that cannot write is reported on stderr and the refusal is still answered', async () => {
      const { wrapped, seen } = counting(sandbox.store);
      const failing = await startSandbox({ store: wrapped });
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        const { key } = await adminOf(failing).org();
        seen.failing = true;
        const refused = await call(failing.url, 'POST', '/v1/banking/transfers', { key, idem: 'lost-1', body: { recipientId: 'rcp_nobody', amount: 'x' } });
        expect(refused.status).toBe(400);
        const lines = stderr.mock.calls.map(([text]) => JSON.parse(String(text)) as Record<string, unknown>);
        expect(lines).toContainEqual(expect.objectContaining({ level: 'error', message: 'the journal entry of the request was not recorded', error: 'Error: the journal is out of order (test)' }));
      } finally {
        seen.failing = false;
        stderr.mockRestore();
        await failing.close();
      }
    });
  });
});
