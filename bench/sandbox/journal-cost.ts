// What the traffic journal itself costs per request (issue 25, deliver 2), measured in CPU time, without
// HTTP: a whole-sandbox bench cannot resolve ~10 µs in ~100–2,000 µs per request on a shared machine. Each
// call is one event-loop turn of `--turn` requests, through a real store (node:sqlite on a file, and
// PostgreSQL in a throwaway cluster, whose processes' CPU counts too), journaled by two versions of
// pipeline/journal.ts (--old and --new, copies of the sandbox's src), against the same turn without a
// journal:
//   served   each request is a transaction that appends its entry in it (on PostgreSQL, a write of the
//            statement that commits it);
//            (and, for the choice, the same entry in the turn's batch once the transaction has committed);
//   refused  each request's entry is written with no transaction of its own (old: record(), one
//            transaction per entry; new: commit(), the turn's entries together).
// The entry is built per request (journalEntry of a refused transfer body) in every contender but the
// baseline. Cap 1,000 (a trim every 100 entries: the cost per trimmed row is the cap's, not its size).
// Rounds rotate (bench/lib/rounds.ts); a row is the median µs of CPU per request, the baseline subtracted.
//
//   node bench/sandbox/journal-cost.ts --old /tmp/old-src --new packages/sandbox/src [--rounds 7] [--calls 300] [--turn 8] [--skip-postgres]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres } from '../../tools/lib/postgres.ts';
import { treeCpuMsOf } from '../lib/proc.ts';
import { runRounds, type Contender } from '../lib/rounds.ts';
import { createStore } from '../../packages/sandbox/src/store/index.ts';
import type { Store } from '../../packages/sandbox/src/store/types.ts';

const { values: args } = parseArgs({
  options: {
    old: { type: 'string' },
    new: { type: 'string', default: 'packages/sandbox/src' },
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '300' },
    turn: { type: 'string', default: '8' },
    'skip-postgres': { type: 'boolean', default: false },
  },
});
if (!args.old) throw new Error('--old path/to/a/copy/of/packages/sandbox/src is required');
const turn = Number(args.turn);
const CAP = 1_000;

// Both versions' journal.ts, each with its own journalEntry: `write`/`record` (before) or `inTransaction`/`commit` (after).
type Entry = ReturnType<typeof import('../../packages/sandbox/src/pipeline/journal.ts').journalEntry>;
interface Version {
  journalEntry: (request: unknown, answer: unknown) => Entry;
  createJournal: (store: Store, cap: number) => any;
}
const load = async (dir: string) => (await import(pathToFileURL(join(resolve(dir), 'pipeline', 'journal.ts')).href)) as Version;
const versions = { before: await load(args.old), after: await load(args.new) };

const op = { operationId: 'createTransfer', hasBody: true };
const body = { recipientId: 'rcp_01JD7Q3Z8X4K2M9N5P6R7S8T9V', amount: 'x' };
const entryOf = (v: Version) => v.journalEntry({ op, at: new Date(), idempotencyKey: 'refused-1', body }, { status: 400, code: 'invalid_request' });

const drains: (() => Promise<void>)[] = [];
const drainAll = async () => {
  for (const drain of drains.splice(0)) await drain();
};

function contenders(store: Store, org: string): Contender[] {
  const all = (one: () => Promise<unknown>) => () => Promise.all(Array.from({ length: turn }, one));
  const before = versions.before.createJournal(store, CAP);
  const after = versions.after.createJournal(store, CAP);
  drains.push(() => after.drain());
  return [
    { name: 'served, no journal', call: all(() => store.transaction(async () => {})) },
    { name: 'served, before', call: all(() => store.transaction((tx) => before.write(tx, org, entryOf(versions.before)))) },
    { name: 'served, after', call: all(() => store.transaction((tx) => after.inTransaction(tx, org, entryOf(versions.after)))) },
    // The alternative for a served request: its entry in the turn's batch once its transaction has committed.
    { name: 'served, after, in the batch', call: all(async () => (await store.transaction(async () => {}), await after.commit(org, entryOf(versions.after)))) },
    { name: 'refused, before', call: all(() => before.record(org, entryOf(versions.before))) },
    { name: 'refused, after', call: all(() => after.commit(org, entryOf(versions.after))) },
  ];
}

async function measure(label: string, store: Store, dbParent?: number): Promise<void> {
  await store.migrate();
  const org = `org_journal_cost_${Date.now()}`;
  await store.transaction((tx) =>
    tx.insertOrganization({ id: org, name: 'journal cost', apiAccess: true, banking: true, cards: false, checkout: false, walletTransfers: false, cardTermsAccepted: false, checkoutPix: false, funding: {}, createdAt: new Date().toISOString() }),
  );
  const clock = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000 + (dbParent ? (treeCpuMsOf(dbParent) ?? 0) : 0);
  };
  const list = contenders(store, org);
  const results = await runRounds(list, { rounds: Number(args.rounds), calls: Number(args.calls), warmupCalls: 100, deadline: performance.now() + 900_000, clock });
  await drainAll(); // the new journal's last trims, before the store closes
  const perRequest = (name: string) => results.find((r) => r.name === name)!.medianUs / turn;
  const base = perRequest('served, no journal');
  process.stdout.write(`\n${label}: CPU µs per request (this process${dbParent ? ' + PostgreSQL' : ''}), median of ${args.rounds} rounds, ${turn} requests a turn; load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs\n`);
  process.stdout.write('| journal step | before | after |\n|---|---|---|\n');
  process.stdout.write(`| served: the entry in the request's transaction (minus the same transaction without it, ${base.toFixed(1)} µs) | ${(perRequest('served, before') - base).toFixed(1)} | ${(perRequest('served, after') - base).toFixed(1)} |\n`);
  process.stdout.write(`| served, the entry in the turn's batch after the transaction's COMMIT instead (not taken) | | ${(perRequest('served, after, in the batch') - base).toFixed(1)} |\n`);
  process.stdout.write(`| refused: the entry alone | ${perRequest('refused, before').toFixed(1)} | ${perRequest('refused, after').toFixed(1)} |\n`);
  for (const r of results) process.stdout.write(`    ${r.name}: rounds ${r.rounds.map((us) => (us / turn).toFixed(1)).join(' ')} µs/request\n`);
}

const dir = mkdtempSync(join(tmpdir(), 'journal-cost-'));
try {
  const sqlite = createStore({ file: join(dir, 'journal.db') });
  await measure('node:sqlite (file)', sqlite);
  await sqlite.close();
  if (!args['skip-postgres']) {
    const pg = await startThrowawayPostgres();
    try {
      const store = createStore({ databaseUrl: await pg.createDatabase('journal_cost') });
      await measure('PostgreSQL', store, Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]));
      await store.close();
    } finally {
      await pg.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
