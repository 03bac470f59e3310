// The embedded store: node:sqlite (built into Node 24), one connection per store, on a file (WAL) or in
// memory. A SQLite connection has one transaction at a time while many requests run at once, so logical
// transactions take turns (one queue per store), and those of one event-loop turn share one SQLite
// transaction (group commit):
// - the first of a batch takes the database's write lock (BEGIN IMMEDIATE; another process on the file
//   waits for it asynchronously, never blocking this event loop for long);
// - each logical transaction runs in its own SAVEPOINT, rolled back alone when it throws;
// - the batch COMMITs once the turn's transactions are done, and only then does any of them return: what
//   a request acknowledges is in the WAL (it survives a crash of the process; with synchronous=NORMAL a
//   power loss may undo the last commits, never corrupt them).
// Callers (a key, its organization, a pending fault) are cached between requests, and the database says
// when to drop them (watchCallerRows). The operations themselves are sql-transaction.ts, shared with PostgreSQL.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { CallerCache } from './caller-cache.ts';
import { RateCounters } from './rate-counters.ts';
import { migrationsFrom, type SchemaDialect } from './schema.ts';
import { findCallerSql, refuseNested, runningTransaction, sqlTransaction, toCaller, type Dialect, type Row, type Sql, type SqlValue } from './sql-transaction.ts';
import type { Caller, Store, Transaction } from './types.ts';

export interface SqliteStoreOptions {
  /** A database file (created when missing); in memory when omitted or `':memory:'`. */
  file?: string | undefined;
  /** How long the store waits for a lock another process holds before failing (default 10 s). */
  busyTimeoutMs?: number | undefined;
}

const SCHEMA_DIALECT: SchemaDialect = { identity: 'INTEGER PRIMARY KEY', legacyInsertionOrder: 'rowid', unlogged: '' };

const FIND_CALLER = findCallerSql('$1', '$2');

/** The tables a caller is read from (findCallerSql): a write to any of them empties the caller cache. */
const CALLER_TABLES = ['organizations', 'api_keys', 'faults'];
/** Columns of those tables no caller reads: the journal trim's count changes often and must not empty the cache. */
const NOT_READ_BY_CALLERS = new Set(['journal_dropped']);
const CALLER_ROWS_CHANGED = 'sandbox_caller_rows_changed';

/** The TEMP triggers that call back on a write to a caller table (UPDATE: of a column a caller reads). */
function callerTriggers(db: DatabaseSync): string {
  return CALLER_TABLES.flatMap((table) => {
    const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as Row[]).map((c) => String(c.name)).filter((c) => !NOT_READ_BY_CALLERS.has(c));
    return ['INSERT', 'DELETE', `UPDATE OF ${columns.join(', ')}`].map(
      (event) => `CREATE TEMP TRIGGER IF NOT EXISTS callers_${table}_${event.slice(0, 6).toLowerCase()} AFTER ${event} ON main.${table} BEGIN SELECT ${CALLER_ROWS_CHANGED}(); END;`,
    );
  }).join('\n');
}

/** Logical transactions per COMMIT at most, so a steady stream of requests still commits regularly. */
const MAX_BATCH = 256;

/** One SQLite transaction shared by the logical transactions of a turn; none returns before `committed`. */
interface Batch {
  members: number;
  commitQueued: boolean;
  /** Set when SQLite itself rolled the whole transaction back under a member: every member fails. */
  lost?: unknown;
  committed: Promise<void>;
  settle(err?: unknown): void;
}

function isBusy(err: unknown): boolean {
  const e = err as { errcode?: number } | null;
  return typeof e?.errcode === 'number' && (e.errcode & 0xff) === 5; // SQLITE_BUSY and its extended codes
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The file's settings, applied when the store is migrated (any of them may meet another process's lock):
 * WAL, synchronous=NORMAL, and a checkpoint every 10,000 WAL pages rather than SQLite's 1,000 (a checkpoint
 * stalls the event loop for a few ms; this keeps it out of most requests' latency: bench p99 of new-key
 * transfers 7–9 → 3–5 ms).
 */
const FILE_SETTINGS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 10000';

/**
 * Runs `step` until no other connection's lock is in the way, waiting asynchronously between tries, up to
 * `timeoutMs`. SQLite returns "database is locked" at once, without its busy handler, where waiting could
 * deadlock (switching a file another process is writing to WAL): a retry after a pause is what works.
 */
async function whenUnlocked(step: () => void, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    try {
      return step();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      await sleep(pause);
    }
  }
}

/** "table.column, …" of each explicit unique index → its name: how SQLite's error names a constraint. */
function uniqueIndexNames(db: DatabaseSync): Map<string, string> {
  const names = new Map<string, string>();
  for (const index of db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as Row[]) {
    const columns = db.prepare(`PRAGMA index_info(${String(index.name)})`).all() as Row[];
    names.set(columns.map((c) => `${String(index.tbl_name)}.${String(c.name)}`).join(', '), String(index.name));
  }
  return names;
}

/**
 * The caller cache and what keeps it true to the database, which findCaller would otherwise read:
 * - this connection's writes to the caller tables, committed or not (a lookup sees what the open batch
 *   wrote), empty it at once: a TEMP trigger on each calls back into this process;
 * - a rollback empties it (runInBatch, commit), since it may hold rows the rollback took back;
 * - `PRAGMA data_version` changes when another connection (another process on the file) has committed:
 *   read before each lookup made outside this connection's write lock, and once at each BEGIN IMMEDIATE
 *   (while the lock is held, no other connection commits).
 */
function watchCallerRows(db: DatabaseSync, prepare: (sql: string) => StatementSync) {
  const cache = new CallerCache();
  let seenVersion: unknown;
  db.function(CALLER_ROWS_CHANGED, () => {
    cache.clear();
    return null;
  });
  return {
    cache,
    noticeOtherWriters(): void {
      const version = (prepare('PRAGMA data_version').get() as Row).data_version;
      if (version === seenVersion) return;
      seenVersion = version;
      cache.clear();
    },
  };
}

export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const file = !options.file || options.file === ':memory:' ? ':memory:' : options.file;
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const db = new DatabaseSync(file);
  db.exec('PRAGMA busy_timeout = 5'); // SQLite's own wait blocks the event loop: keep it short, and wait in whenUnlocked
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'))));
    return statement;
  };
  const exec = (sql: string) => prepare(sql).run();
  let constraintNames = new Map<string, string>();
  const dialect: Dialect = {
    forUpdate: '', // the batch holds the database's write lock
    skipLocked: '',
    violatedConstraint(err) {
      const message = /^UNIQUE constraint failed: (.+)$/.exec(String((err as Error | null)?.message));
      return message ? (constraintNames.get(message[1]!) ?? message[1]) : undefined;
    },
  };
  const rateCounters = new RateCounters();
  const callers = watchCallerRows(db, prepare);
  const lookUpCaller = (hash: string, operationId: string): Caller | undefined => {
    const cached = callers.cache.get(hash, operationId);
    if (cached) return cached;
    const row = prepare(FIND_CALLER).get(hash, operationId) as Row | undefined;
    if (!row) return undefined; // not kept: a key that does not exist costs its lookup every time
    const caller = toCaller(row);
    callers.cache.set(hash, operationId, caller);
    return caller;
  };

  let closed = false;
  /** Logical transactions (and commits) run one at a time: each waits for the previous one's turn to end. */
  let tail: Promise<unknown> = Promise.resolve();
  let batch: Batch | undefined;

  /** BEGIN IMMEDIATE, retried asynchronously while another connection holds the write lock. */
  const begin = async () => {
    await whenUnlocked(() => exec('BEGIN IMMEDIATE'), busyTimeoutMs);
    callers.noticeOtherWriters(); // while this lock is held, no other connection commits
  };

  async function join(): Promise<Batch> {
    if (batch && batch.members < MAX_BATCH) return batch;
    if (batch) commit(batch); // a full batch commits now (we hold the queue's turn), and a new one starts
    await begin();
    let settle!: Batch['settle'];
    const committed = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
    committed.catch(() => undefined); // members observe it; an unobserved rejection must not end the process
    return (batch = { members: 0, commitQueued: false, committed, settle });
  }

  /** Ends the batch: COMMIT, or ROLLBACK when it was lost or the COMMIT fails; then its members return. */
  function commit(b: Batch): void {
    if (batch !== b) return;
    batch = undefined;
    let failure = b.lost;
    if (failure === undefined) {
      try {
        exec('COMMIT');
      } catch (err) {
        failure = err;
      }
    }
    if (failure !== undefined && db.isTransaction) db.exec('ROLLBACK');
    if (failure !== undefined) callers.cache.clear(); // it may hold rows the rollback took back
    b.settle(failure);
  }

  /** The batch commits after this turn's I/O callbacks: the transactions they start join it first. */
  function queueCommit(b: Batch): void {
    if (b.commitQueued) return;
    b.commitQueued = true;
    setImmediate(() => void (tail = tail.then(() => commit(b))));
  }

  /**
   * One logical transaction in the current batch, in its own savepoint unless `readOnly` (its writes are
   * single statements, each atomic on its own, as PostgreSQL runs them). Resolves before the COMMIT.
   */
  async function runInBatch<T>(fn: (tx: Transaction) => Promise<T>, readOnly: boolean): Promise<{ b: Batch; ok: boolean; value: unknown }> {
    const b = await join();
    b.members++;
    const state = { open: true };
    const sql: Sql = async (text: string, values: readonly SqlValue[] = []) => {
      if (!state.open) throw new Error('a tx used after its transaction ended');
      return prepare(text).all(...(values as SQLInputValue[])) as Row[];
    };
    if (!readOnly) exec('SAVEPOINT logical');
    try {
      const value = await runningTransaction.run(state, () => fn(sqlTransaction(sql, dialect)));
      if (!readOnly) exec('RELEASE logical');
      return { b, ok: true, value };
    } catch (err) {
      callers.cache.clear(); // it may hold rows written by what is rolled back
      if (!db.isTransaction) {
        b.lost = err; // SQLite rolled the batch back (e.g. disk full): the others' work is gone too
      } else if (!readOnly) {
        exec('ROLLBACK TO logical');
        exec('RELEASE logical');
      }
      return { b, ok: false, value: err };
    } finally {
      state.open = false;
      queueCommit(b);
    }
  }

  return {
    kind: 'sqlite',

    async migrate() {
      if (closed) throw new Error('the store is closed');
      const turn = tail.then(async () => {
        if (file !== ':memory:') await whenUnlocked(() => db.exec(FILE_SETTINGS), busyTimeoutMs);
        await begin(); // several processes starting together: one migrates, the others then find it done
        try {
          db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)');
          const row = db.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as Row;
          const version = Number(row.version ?? 0);
          for (const step of migrationsFrom(version, SCHEMA_DIALECT)) {
            db.exec(step.sql);
            for (const v of step.versions) db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(v, new Date().toISOString());
          }
          db.exec('COMMIT');
        } catch (err) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw err;
        }
        await whenUnlocked(() => {
          constraintNames = uniqueIndexNames(db);
          db.exec(callerTriggers(db));
        }, busyTimeoutMs);
        callers.cache.clear();
      });
      tail = turn.catch(() => undefined);
      return turn;
    },

    // A read joins the batch like any transaction (and answers after its COMMIT), without a savepoint.
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
      if (closed) throw new Error('the store is closed');
      refuseNested();
      const turn = tail.then(() => runInBatch(fn, options?.readOnly === true));
      tail = turn.catch(() => undefined);
      const { b, ok, value } = await turn;
      await b.committed;
      if (!ok) throw value;
      return value as T;
    },

    async hitRateLimit(bucket, windowStart) {
      return rateCounters.hit(bucket, windowStart);
    },

    findCaller(hash, operationId) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      // Inside this connection's write transaction no other connection has committed since its BEGIN.
      if (db.isTransaction) return Promise.resolve(lookUpCaller(hash, operationId));
      let caller: Caller | undefined;
      const step = () => {
        callers.noticeOtherWriters();
        caller = lookUpCaller(hash, operationId);
      };
      return whenUnlocked(step, busyTimeoutMs).then(() => caller);
    },

    async close() {
      if (closed) return;
      closed = true;
      await tail;
      if (batch) commit(batch);
      db.close();
    },
  };
}
