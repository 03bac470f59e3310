// The embedded store's answers to findCaller, kept between requests: the lookup is a join every request
// makes, and its rows change rarely. It never answers what the database would not, because it is emptied
// - by this connection's writes to the caller tables, committed or not: a TEMP trigger calls back;
// - by a rollback (sqlite.ts), which may take back rows it holds;
// - when `PRAGMA data_version` says another connection has committed: read before each lookup outside this
//   connection's write lock, and once at each BEGIN IMMEDIATE (no other connection commits while it holds).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Row } from './rows.ts';
import { findCallerSql, toCaller } from './sql-transaction.ts';
import type { Caller } from './types.ts';

/** Callers kept at most; a full cache starts over (its entries are cheap to read again). */
const CAPACITY = 4096;
const FIND_CALLER = findCallerSql('$1', '$2');
/** The tables a caller is read from (findCallerSql). */
const CALLER_TABLES = ['organizations', 'api_keys', 'faults'];
/** Columns of those tables no caller reads: the journal trim's count changes often and must not empty the cache. */
const NOT_READ_BY_CALLERS = new Set(['journal_dropped']);
const CHANGED = 'sandbox_caller_rows_changed';

export class CallerCache {
  /** operationId → key hash → caller */
  private readonly byOperation = new Map<string, Map<string, Caller>>();
  private size = 0;
  private seenVersion: unknown;
  private readonly prepare: (sql: string) => StatementSync;

  constructor(db: DatabaseSync, prepare: (sql: string) => StatementSync) {
    this.prepare = prepare;
    db.function(CHANGED, () => {
      this.clear();
      return null;
    });
  }

  /** The caller, kept frozen once read: every request that gets it shares the one object. */
  lookUp(hash: string, operationId: string): Caller | undefined {
    const cached = this.byOperation.get(operationId)?.get(hash);
    if (cached) return cached;
    const row = this.prepare(FIND_CALLER).get(hash, operationId) as Row | undefined;
    if (!row) return undefined; // not kept: a key that does not exist costs its lookup every time
    const caller = toCaller(row);
    if (this.size >= CAPACITY) this.clear();
    let byHash = this.byOperation.get(operationId);
    if (!byHash) this.byOperation.set(operationId, (byHash = new Map()));
    for (const part of [caller.key, caller.organization.funding, caller.organization]) Object.freeze(part);
    this.size++;
    byHash.set(hash, Object.freeze(caller));
    return caller;
  }

  /** Creates the TEMP triggers that empty the cache on a write to a caller table (UPDATE: of a column a caller reads). */
  watchWrites(): void {
    for (const table of CALLER_TABLES) {
      const columns = (this.prepare(`PRAGMA table_info(${table})`).all() as Row[]).map((c) => String(c.name)).filter((c) => !NOT_READ_BY_CALLERS.has(c));
      for (const event of ['INSERT', 'DELETE', `UPDATE OF ${columns.join(', ')}`]) {
        this.prepare(`CREATE TEMP TRIGGER IF NOT EXISTS callers_${table}_${event.slice(0, 6).toLowerCase()} AFTER ${event} ON main.${table} BEGIN SELECT ${CHANGED}(); END;`).run();
      }
    }
  }

  /** Empties the cache if another connection has committed since the last call. */
  noticeOtherWriters(): void {
    const version = (this.prepare('PRAGMA data_version').get() as Row).data_version;
    if (version === this.seenVersion) return;
    this.seenVersion = version;
    this.clear();
  }

  clear(): void {
    this.byOperation.clear();
    this.size = 0;
  }
}
