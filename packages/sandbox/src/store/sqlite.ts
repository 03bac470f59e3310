// The embedded store: node:sqlite (built into Node 24), one connection per store, on a file (WAL) or in
// memory. Logical transactions share the connection in turns, those of one event-loop turn in one SQLite
// transaction (sqlite-group-commit.ts); callers are cached between requests (caller-cache.ts).
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { CallerCache } from './caller-cache.ts';
import { RateCounters } from './rate-counters.ts';
import { migrate, type SchemaDialect } from './schema.ts';
import type { Row } from './rows.ts';
import { refuseNested, type Dialect } from './sql-transaction.ts';
import { watchWal } from './sqlite-checkpointer.ts';
import { GroupCommit, whenUnlocked } from './sqlite-group-commit.ts';
import type { Store, Transaction } from './types.ts';

export interface SqliteStoreOptions {
  /** A database file (created when missing); in memory when omitted or `':memory:'`. */
  file?: string | undefined;
}

const SCHEMA_DIALECT: SchemaDialect = {
  identity: 'INTEGER PRIMARY KEY',
  legacyInsertionOrder: 'rowid',
  unlogged: '',
  tableNames: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
  columnNames: 'SELECT name FROM pragma_table_info($1)',
};

/**
 * Applied by migrate() (any may meet another process's lock). Under load the background checkpointer copies
 * the WAL back (sqlite-checkpointer.ts); the COMMIT's own checkpoint, every 10,000 WAL pages rather than
 * 1,000, is the safety net (before the checkpointer it stalled the event loop for a few ms each time: bench
 * p99 of new-key transfers 7–9 → 3–5 ms at 10,000).
 */
export const FILE_SETTINGS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 10000';

/** "table.column, …" of each explicit unique index → its name: how SQLite's error names a constraint. */
function uniqueIndexNames(db: DatabaseSync): Map<string, string> {
  const names = new Map<string, string>();
  for (const index of db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as Row[]) {
    const columns = db.prepare(`PRAGMA index_info(${String(index.name)})`).all() as Row[];
    names.set(columns.map((c) => `${String(index.tbl_name)}.${String(c.name)}`).join(', '), String(index.name));
  }
  return names;
}

export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const file = !options.file || options.file === ':memory:' ? ':memory:' : options.file;
  // Loaded here: a process that never opens an embedded store must not need node:sqlite (issue 23).
  const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(file);
  db.exec('PRAGMA busy_timeout = 5'); // SQLite's own wait blocks the event loop: keep it short, and wait in whenUnlocked
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'))));
    return statement;
  };
  let constraintNames = new Map<string, string>();
  const dialect: Dialect = {
    forUpdate: '', // the batch holds the database's write lock
    violatedConstraint(err) {
      const message = /^UNIQUE constraint failed: (.+)$/.exec(String((err as Error | null)?.message));
      return message ? (constraintNames.get(message[1]!) ?? message[1]) : undefined;
    },
  };
  const rateCounters = new RateCounters();
  const callers = new CallerCache(db, prepare);

  const turns = new GroupCommit({ db, prepare, dialect, callers });
  const checkpointer = file === ':memory:' ? undefined : watchWal(file);
  let closed = false;

  return {
    kind: 'sqlite',

    async migrate() {
      if (closed) throw new Error('the store is closed');
      return turns.exclusive(async () => {
        if (file !== ':memory:') await whenUnlocked(() => db.exec(FILE_SETTINGS));
        // In one write transaction: of several processes starting together, one migrates, the others find it done.
        await turns.begin();
        try {
          await migrate({ exec: (sql) => db.exec(sql), query: (sql, values = []) => prepare(sql).all(...(values as SQLInputValue[])) as Row[] }, SCHEMA_DIALECT);
          db.exec('COMMIT');
        } catch (err) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw err;
        }
        await whenUnlocked(() => {
          constraintNames = uniqueIndexNames(db);
          callers.watchWrites();
        });
        callers.clear();
      });
    },

    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
      if (closed) throw new Error('the store is closed');
      refuseNested();
      return turns.run(fn, options?.readOnly === true);
    },

    hitRateLimit: async (bucket, windowStart) => rateCounters.hit(bucket, windowStart),

    findCaller(hash, operationId) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      // Inside this connection's write transaction no other connection has committed since its BEGIN.
      if (db.isTransaction) return Promise.resolve(callers.lookUp(hash, operationId));
      return whenUnlocked(() => {
        callers.noticeOtherWriters();
        return callers.lookUp(hash, operationId);
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      await turns.drain();
      await checkpointer?.close();
      db.close();
    },
  };
}
