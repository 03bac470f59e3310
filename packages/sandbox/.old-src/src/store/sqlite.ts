// The embedded store: node:sqlite (built into Node 24), one connection per store, on a file or in memory.
// `fn` in transaction() is async and several HTTP requests run at once in one process, while a SQLite
// connection has a single transaction: logical transactions are queued (one at a time per store). They
// share SQLite transactions (group commit): a batch takes the database's write lock (BEGIN IMMEDIATE)
// before the first statement of a transaction that may write; each logical transaction is undone alone
// when it throws (its inserted rows deleted, its other writes rolled back to a savepoint: see Scope); the
// batch COMMITs once the queue is empty at the end of an event-loop turn (or after MAX_BATCH members), and
// only then does any member's caller hear of its result: what a request acknowledges is in the WAL. One
// COMMIT per batch instead of one per transaction is most of this store's speed. A batch of read-only
// transactions (a hint: GETs) takes no lock and commits nothing. Another process (or another store) on
// the same file waits for the lock asynchronously (see `begin`), so it never blocks this process's event
// loop for long; its commits are noticed through PRAGMA data_version and drop the read cache
// (read-cache.ts). Rate-limit counters live in memory (rate-counters.ts), and so does the index of
// idempotency keys (key-index.ts; the table keeps the rows, append-only). Booleans are stored as integers,
// JSON as text, amounts as the canonical two-decimal string plus integer cents (sums are exact).
import { AsyncLocalStorage } from 'node:async_hooks';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { fromCents, storedCents } from '../money.ts';
import type {
  ApiKeyRecord,
  FaultRecord,
  IdempotencyRecord,
  Organization,
  RecipientRecord,
  Store,
  Transaction,
  TransactionOptions,
  TransferRecord,
  TransferStatus,
} from './types.ts';
import { RateCounters } from './rate-counters.ts';
import { KeyIndex } from './key-index.ts';
import { ReadCache } from './read-cache.ts';
import { transactionViews } from './transaction-views.ts';

export interface SqliteStoreOptions {
  /** A database file (created when missing); in memory when omitted or `':memory:'`. */
  file?: string | undefined;
  /**
   * How long a transaction waits for the write lock held by another connection to the same file (another
   * sandbox process) before failing with SQLITE_BUSY. Default 10 s.
   */
  busyTimeoutMs?: number | undefined;
  /** The in-memory index of idempotency keys to use (tests pass one whose hashes collide on purpose). */
  keyIndex?: KeyIndex | undefined;
}

/** SQLite's own (synchronous) busy wait per attempt; the rest of the wait is asynchronous. */
const SYNC_BUSY_TIMEOUT_MS = 100;
/** Logical transactions per COMMIT at most, so a steady stream of requests still commits regularly. */
const MAX_BATCH = 256;

/**
 * Logical transactions that share one SQLite transaction (group commit): each ran in its own savepoint, and
 * none of their callers hears of its result before `committed` settles.
 */
interface Batch {
  members: number;
  /**
   * It holds the write lock (BEGIN IMMEDIATE). A batch of read-only transactions never takes it: no BEGIN,
   * no COMMIT, and nothing blocks another process meanwhile.
   */
  locked: boolean;
  committed: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * A logical transaction or one of its `tx.nested` scopes. What it writes is undone when it throws: the rows
 * it INSERTs by deleting them again (by rowid), anything else (UPDATE, DELETE) by rolling back to a
 * savepoint, taken before the scope's first such write. Most requests only insert (a transfer and its
 * idempotency row), so they take no savepoint: a SAVEPOINT and its RELEASE, and the statement journal's
 * copy of every page the request touches, were a twentieth of a new transfer's cost.
 */
interface Scope {
  name: string;
  /** Its savepoint was taken. */
  open: boolean;
  /**
   * How many rows of `LogicalState.inserted` there were when the savepoint was taken: rolling back to it
   * removes the rows inserted after, and those before (inserted in this scope first) are deleted.
   */
  insertedAtSavepoint: number;
  /**
   * Idempotency keys claimed in this scope and not written yet. A claim is a SELECT (the batch holds the
   * write lock, so no other connection can claim the key meanwhile); the row is INSERTed once, final when
   * the scope's `updateIdempotency` came first, else as claimed when the scope ends. A claim followed by
   * its result (the common case) is one INSERT instead of an INSERT and an UPDATE, and a replay writes
   * nothing. Only the innermost scope has any: entering a nested scope writes the outer one's. Each keeps
   * its key's hash (key-index.ts), computed once for the lookup and the insert.
   */
  claims: { record: IdempotencyRecord; hash: number }[];
  /** Where `LogicalState.inserted` and `LogicalState.undoLog` stood when the scope began. */
  insertedFrom: number;
  undoFrom: number;
}

interface LogicalState {
  open: boolean;
  /** It changed data the read cache may hold: if it rolls back, the cache is dropped whole. */
  wroteCached: boolean;
  /**
   * Its scope, then one per `tx.nested` scope, innermost last. A scope's savepoint is taken only before
   * the first UPDATE or DELETE inside it, and only the innermost scope's: an outer scope without a
   * savepoint of its own adopts the nested one's when the nested scope succeeds, instead of releasing it
   * (rolling back to it, then deleting the rows inserted before it, undoes all the outer scope wrote). A
   * request (an operation nested in its transaction) so takes one savepoint if it updates, none if it
   * only inserts.
   */
  savepoints: Scope[];
  /** The rows it inserted, in order; a scope's start is a position in it (as in `undoLog`). */
  inserted: { table: string; rowid: number | bigint }[];
  /** It was started as read-only in a batch without the write lock, and then wanted to write: run it again, locked. */
  needsLock: boolean;
  /**
   * How to take back what it changed in memory rather than in SQLite (rate-limit hits, keys added to the
   * key index), in order: run backwards from a scope's start when the scope rolls back, like its savepoint.
   */
  undoLog: (() => void)[];
}

const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        api_access INTEGER NOT NULL,
        banking INTEGER NOT NULL,
        cards INTEGER NOT NULL,
        checkout INTEGER NOT NULL,
        wallet_transfers INTEGER NOT NULL,
        card_terms_accepted INTEGER NOT NULL,
        checkout_pix INTEGER NOT NULL,
        funding TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE INDEX api_keys_organization ON api_keys (organization_id);
      CREATE TABLE recipients (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        nickname TEXT NOT NULL,
        rail TEXT NOT NULL,
        pix_key TEXT,
        destination_address TEXT,
        active INTEGER NOT NULL,
        source TEXT NOT NULL,
        idempotency_key TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX recipients_nickname ON recipients (organization_id, nickname);
      CREATE INDEX recipients_pix_key ON recipients (organization_id, pix_key);
      CREATE TABLE transfers (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        recipient_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        amount_cents INTEGER NOT NULL,
        currency TEXT NOT NULL,
        status TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX transfers_organization ON transfers (organization_id, status);
      CREATE TABLE resources (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX resources_kind ON resources (kind, organization_id);
      CREATE TABLE idempotency (
        organization_id TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        resolution TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (organization_id, operation_id, idem_key)
      );
      CREATE TABLE rate_limits (
        bucket TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (bucket, window_start)
      ) WITHOUT ROWID;
      CREATE TABLE faults (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        organization_id TEXT,
        operation_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        remaining INTEGER NOT NULL,
        commit_action INTEGER NOT NULL,
        retry_after_seconds INTEGER,
        resolution TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX faults_operation ON faults (operation_id, remaining);
    `,
  },
  // Rate-limit counters moved to the process's memory (rate-counters.ts): a write per request was most of
  // the cost of a read-only request.
  { version: 2, sql: 'DROP TABLE IF EXISTS rate_limits' },
  // Idempotency keys are looked up in memory (key-index.ts): the table loses its primary key, a B-tree that
  // random keys dirtied a random page of on every insert. Rowids are kept: the index refers to them.
  {
    version: 3,
    sql: `
      CREATE TABLE idempotency_rows (
        organization_id TEXT NOT NULL,
        operation_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        resolution TEXT,
        created_at TEXT NOT NULL
      );
      INSERT INTO idempotency_rows (rowid, organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at)
        SELECT rowid, organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at FROM idempotency ORDER BY rowid;
      DROP TABLE idempotency;
      ALTER TABLE idempotency_rows RENAME TO idempotency;
    `,
  },
  // One index for transfers instead of two: every query names the organization (a lookup by id, the
  // balance's sums), so (organization_id, id) serves them all, and a transfer insert updates one index
  // B-tree, not two (the id's own primary key index, and (organization_id, status)).
  {
    version: 4,
    sql: `
      CREATE TABLE transfers_rows (
        id TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        recipient_id TEXT NOT NULL,
        amount TEXT NOT NULL,
        amount_cents INTEGER NOT NULL,
        currency TEXT NOT NULL,
        status TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      INSERT INTO transfers_rows (rowid, id, organization_id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
        SELECT rowid, id, organization_id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at FROM transfers ORDER BY rowid;
      DROP TABLE transfers;
      ALTER TABLE transfers_rows RENAME TO transfers;
      CREATE UNIQUE INDEX transfers_organization_id ON transfers (organization_id, id);
    `,
  },
];

// ---- amounts -------------------------------------------------------------------------------------------

/** A bigint bound as a plain number where that is exact (binding a BigInt costs more), as a BigInt beyond. */
const sqlInteger = (n: bigint): number | bigint => (n <= MAX_SAFE && n >= -MAX_SAFE ? Number(n) : n);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

// ---- read cache keys ---------------------------------------------------------------------------------

/** The cache key of a list of statuses; remembered for a frozen list (callers pass one constant list on every request). */
const statusesKeys = new WeakMap<readonly string[], string>();
function statusesKey(statuses: readonly string[]): string {
  if (!Object.isFrozen(statuses)) return statuses.join(',');
  let key = statusesKeys.get(statuses);
  if (key === undefined) statusesKeys.set(statuses, (key = statuses.join(',')));
  return key;
}

// ---- rows ----------------------------------------------------------------------------------------------

type Row = Record<string, unknown>;

const bool = (value: boolean): number => (value ? 1 : 0);
const json = (value: unknown): string | null => JSON.stringify(value) ?? null;
const parse = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.parse(String(value)));

const toOrganization = (r: Row): Organization => ({
  id: r.id as string,
  name: r.name as string,
  apiAccess: r.api_access === 1,
  banking: r.banking === 1,
  cards: r.cards === 1,
  checkout: r.checkout === 1,
  walletTransfers: r.wallet_transfers === 1,
  cardTermsAccepted: r.card_terms_accepted === 1,
  checkoutPix: r.checkout_pix === 1,
  funding: parse(r.funding) as Record<string, string>,
  createdAt: r.created_at as string,
});

const toApiKey = (r: Row): ApiKeyRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  hash: r.hash as string,
  prefix: r.prefix as string,
  createdAt: r.created_at as string,
  revokedAt: r.revoked_at as string | null,
});

const toRecipient = (r: Row): RecipientRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  nickname: r.nickname as string,
  rail: r.rail as RecipientRecord['rail'],
  pixKey: r.pix_key as string | null,
  destinationAddress: r.destination_address as string | null,
  active: r.active === 1,
  source: r.source as RecipientRecord['source'],
  idempotencyKey: r.idempotency_key as string | null,
  createdAt: r.created_at as string,
});

const toTransfer = (r: Row): TransferRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  recipientId: r.recipient_id as string,
  amount: r.amount as string,
  currency: r.currency as string,
  status: r.status as TransferStatus,
  idempotencyKey: r.idempotency_key as string,
  createdAt: r.created_at as string,
});

const toIdempotency = (r: Row): IdempotencyRecord => ({
  organizationId: r.organization_id as string,
  operationId: r.operation_id as string,
  key: r.idem_key as string,
  fingerprint: r.fingerprint as string,
  state: r.state as IdempotencyRecord['state'],
  status: r.status as number | null,
  body: parse(r.body),
  resolution: r.resolution as string | null,
  createdAt: r.created_at as string,
});

const toFault = (r: Row): FaultRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string | null,
  operationId: r.operation_id as string,
  kind: r.kind as FaultRecord['kind'],
  remaining: r.remaining as number,
  commit: r.commit_action === 1,
  retryAfterSeconds: r.retry_after_seconds as number | null,
  resolution: r.resolution as string | null,
  createdAt: r.created_at as string,
});

/** Organization fields a patch may change → column and stored value. */
const ORGANIZATION_PATCH: Record<string, [column: string, encode: (value: never) => SQLInputValue]> = {
  name: ['name', (v: string) => v],
  apiAccess: ['api_access', bool],
  banking: ['banking', bool],
  cards: ['cards', bool],
  checkout: ['checkout', bool],
  walletTransfers: ['wallet_transfers', bool],
  cardTermsAccepted: ['card_terms_accepted', bool],
  checkoutPix: ['checkout_pix', bool],
  funding: ['funding', (v: Record<string, string>) => JSON.stringify(v)],
};

const RECIPIENT_PATCH: Record<string, [column: string, encode: (value: never) => SQLInputValue]> = {
  active: ['active', bool],
  nickname: ['nickname', (v: string) => v],
};

/** `SET a = ?, b = ?` and its values for the known, defined fields of `patch`. */
function setClause(patch: object, fields: typeof ORGANIZATION_PATCH): { sql: string; values: SQLInputValue[] } {
  const parts: string[] = [];
  const values: SQLInputValue[] = [];
  for (const [name, value] of Object.entries(patch)) {
    const field = fields[name];
    if (!field || value === undefined) continue;
    parts.push(`${field[0]} = ?`);
    values.push(field[1](value as never));
  }
  return { sql: parts.join(', '), values };
}

/** Thrown by a write in a read-only transaction whose batch does not hold the write lock (see runLogical). */
class NeedsWriteLock extends Error {
  constructor() {
    super('a read-only transaction wrote: it is run again with the write lock');
  }
}

function isBusy(err: unknown): boolean {
  const e = err as { errcode?: number; message?: string } | null;
  // SQLITE_BUSY (5) and its extended codes (5 | n << 8).
  return typeof e?.errcode === 'number' ? (e.errcode & 0xff) === 5 : /database is locked/i.test(String(e?.message));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createSqliteStore(options: SqliteStoreOptions = {}): Store {
  const file = options.file ?? ':memory:';
  const inMemory = file === ':memory:' || file === '';
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  const db = new DatabaseSync(inMemory ? ':memory:' : file);
  try {
    if (!inMemory) {
      db.exec(`PRAGMA busy_timeout = ${SYNC_BUSY_TIMEOUT_MS}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      // A checkpoint (copying the WAL back, with an fsync) stalls the event loop for a few ms: every 10,000
      // WAL pages instead of SQLite's 1,000 keeps that out of most requests' latency (bench p99 of new-key
      // transfers 7–9 → 3–5 ms) at the same throughput. SQLite's default page cache (2 MB) is enough since
      // idempotency keys are indexed in memory (key-index.ts): a 16 MB one cost 17 MB of RSS for nothing.
      db.exec('PRAGMA wal_autocheckpoint = 10000');
    }
  } catch (err) {
    db.close();
    throw err;
  }

  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const run = (sql: string, ...values: SQLInputValue[]) => prepare(sql).run(...values);
  const get = (sql: string, ...values: SQLInputValue[]) => prepare(sql).get(...values) as Row | undefined;
  const all = (sql: string, ...values: SQLInputValue[]) => prepare(sql).all(...values) as Row[];
  const cache = new ReadCache();
  const rateCounters = new RateCounters();
  const keyIndex = options.keyIndex ?? new KeyIndex();
  /** The logical transaction that is running (they run one at a time). */
  let current: LogicalState | undefined;
  /** Called by every method before it writes. */
  const mayWrite = () => {
    if (current && !batch?.locked) {
      // A read-only transaction that writes after all (a scheduled fault taken on a GET): what it read
      // without the lock may be stale, so it stops here and runs again from the start, locked (runLogical).
      current.needsLock = true;
      throw new NeedsWriteLock();
    }
  };
  /** Before an UPDATE or DELETE: takes the innermost scope's savepoint if not yet taken (see Scope). */
  const writing = () => {
    mayWrite();
    if (!current) return;
    const innermost = current.savepoints[current.savepoints.length - 1]!;
    if (innermost.open) return;
    prepare(`SAVEPOINT ${innermost.name}`).run();
    innermost.open = true;
    innermost.insertedAtSavepoint = current.inserted.length;
  };
  /** INSERTs a row, to be deleted again if its scope rolls back (see Scope). */
  const insert = (table: string, sql: string, ...values: SQLInputValue[]): number => {
    mayWrite();
    const { lastInsertRowid } = run(sql, ...values);
    current?.inserted.push({ table, rowid: lastInsertRowid });
    return Number(lastInsertRowid);
  };
  /** A write is changing cached data: the running transaction must drop the caches if it rolls back. */
  const touched = () => {
    if (current) current.wroteCached = true;
  };
  const insertIdempotency = (r: IdempotencyRecord, hash: number) => {
    const rowid = insert(
      'idempotency',
      `INSERT INTO idempotency (organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      r.organizationId,
      r.operationId,
      r.key,
      r.fingerprint,
      r.state,
      r.status,
      json(r.body),
      r.resolution,
      r.createdAt,
    );
    const highestBefore = keyIndex.add(hash, rowid);
    current?.undoLog.push(() => keyIndex.remove(hash, rowid, highestBefore));
  };
  /** The row of an idempotency key (of that hash), with its rowid, found through the key index. */
  const findIdempotency = (organizationId: string, operationId: string, key: string, hash: number): Row | undefined => {
    for (const rowid of keyIndex.candidates(hash)) {
      const row = get('SELECT rowid, * FROM idempotency WHERE rowid = ?', rowid);
      if (row && row.idem_key === key && row.operation_id === operationId && row.organization_id === organizationId) return row;
    }
    return undefined;
  };
  /** Writes the claims a scope still holds (it is ending, or a nested scope is starting inside it). */
  const writeClaims = (scope: Scope) => {
    for (const { record, hash } of scope.claims.splice(0)) insertIdempotency(record, hash);
  };
  const sameKey = (r: IdempotencyRecord, organizationId: string, operationId: string, key: string) =>
    r.organizationId === organizationId && r.operationId === operationId && r.key === key;
  /** A new scope of `state`, starting now. */
  const scopeOf = (state: Pick<LogicalState, 'inserted' | 'undoLog'>, name: string): Scope => ({
    name,
    open: false,
    insertedAtSavepoint: 0,
    claims: [],
    insertedFrom: state.inserted.length,
    undoFrom: state.undoLog.length,
  });
  /**
   * Undoes what a scope wrote. In SQLite (unless SQLite itself rolled the transaction back): back to its
   * savepoint (when it took one), then the rows it inserted before that are deleted, latest first. In
   * memory: its undo log, latest first. Its unwritten claims go with the scope.
   */
  const rollBack = (state: LogicalState, scope: Scope) => {
    let rows = state.inserted.splice(scope.insertedFrom);
    if (db.isTransaction) {
      if (scope.open) {
        prepare(`ROLLBACK TO ${scope.name}`).run();
        prepare(`RELEASE ${scope.name}`).run();
        rows = rows.slice(0, scope.insertedAtSavepoint - scope.insertedFrom);
      }
      for (const { table, rowid } of rows.reverse()) prepare(`DELETE FROM ${table} WHERE rowid = ?`).run(rowid);
      if (state.wroteCached) cache.clear();
    }
    for (const undo of state.undoLog.splice(scope.undoFrom).reverse()) undo();
  };

  const tx: Transaction = {
    async nested(fn) {
      const state = current;
      if (!state) throw new Error('tx.nested() outside a transaction');
      writeClaims(state.savepoints.at(-1)!);
      const savepoint = scopeOf(state, `nested_${state.savepoints.length}`);
      state.savepoints.push(savepoint);
      try {
        const value = await fn();
        writeClaims(savepoint);
        const outer = state.savepoints[state.savepoints.length - 2]!;
        if (savepoint.open && outer.open) prepare(`RELEASE ${savepoint.name}`).run();
        else if (savepoint.open) Object.assign(outer, { name: savepoint.name, open: true, insertedAtSavepoint: savepoint.insertedAtSavepoint }); // adopted: see savepoints
        return value;
      } catch (err) {
        rollBack(state, savepoint);
        throw err;
      } finally {
        state.savepoints.pop();
      }
    },

    // organizations
    async insertOrganization(org) {
      insert(
        'organizations',
        `INSERT INTO organizations (id, name, api_access, banking, cards, checkout, wallet_transfers, card_terms_accepted, checkout_pix, funding, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        org.id,
        org.name,
        bool(org.apiAccess),
        bool(org.banking),
        bool(org.cards),
        bool(org.checkout),
        bool(org.walletTransfers),
        bool(org.cardTermsAccepted),
        bool(org.checkoutPix),
        JSON.stringify(org.funding),
        org.createdAt,
      );
      touched();
      cache.organizations.delete(org.id);
    },
    async getOrganization(id) {
      const cached = cache.organizations.get(id);
      if (cached) return cached;
      const row = get('SELECT * FROM organizations WHERE id = ?', id);
      return row && cache.organization(toOrganization(row));
    },
    async updateOrganization(id, patch) {
      writing();
      const set = setClause(patch, ORGANIZATION_PATCH);
      if (set.sql) {
        run(`UPDATE organizations SET ${set.sql} WHERE id = ?`, ...set.values, id);
        touched();
        cache.organizations.delete(id);
      }
      return tx.getOrganization(id);
    },
    async listOrganizations() {
      return all('SELECT * FROM organizations ORDER BY created_at, rowid').map(toOrganization);
    },

    // API keys
    async insertApiKey(key) {
      insert(
        'api_keys',
        'INSERT INTO api_keys (id, organization_id, hash, prefix, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)',
        key.id,
        key.organizationId,
        key.hash,
        key.prefix,
        key.createdAt,
        key.revokedAt,
      );
    },
    async findApiKeyByHash(hash) {
      const cached = cache.keysByHash.get(hash);
      if (cached) return cached;
      const row = get('SELECT * FROM api_keys WHERE hash = ?', hash);
      return row && cache.key(hash, toApiKey(row));
    },
    async getApiKey(id) {
      const row = get('SELECT * FROM api_keys WHERE id = ?', id);
      return row && toApiKey(row);
    },
    async revokeApiKey(id, at) {
      writing();
      // A key revoked twice keeps its first revocation time.
      const row = get('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING *', at, id);
      touched();
      cache.keysByHash.clear(); // revocations are rare; the next request of each key reads it again
      return row && toApiKey(row);
    },

    // recipients
    async lockOrganization() {
      // Transactions are serialized (one connection, BEGIN IMMEDIATE): nothing else can run meanwhile.
    },
    async insertRecipient(r) {
      insert(
        'recipients',
        `INSERT INTO recipients (id, organization_id, nickname, rail, pix_key, destination_address, active, source, idempotency_key, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        r.id,
        r.organizationId,
        r.nickname,
        r.rail,
        r.pixKey,
        r.destinationAddress,
        bool(r.active),
        r.source,
        r.idempotencyKey,
        r.createdAt,
      );
      touched(); // a read of it later in this transaction caches it: a rollback must drop that
    },
    async getRecipient(organizationId, id) {
      const cached = cache.recipients.get(`${organizationId} ${id}`);
      if (cached) return cached;
      const row = get('SELECT * FROM recipients WHERE organization_id = ? AND id = ?', organizationId, id);
      return row && cache.recipient(toRecipient(row));
    },
    async findActiveRecipientByNickname(organizationId, nickname) {
      const row = get(
        'SELECT * FROM recipients WHERE organization_id = ? AND nickname = ? AND active = 1 ORDER BY created_at, rowid LIMIT 1',
        organizationId,
        nickname,
      );
      return row && toRecipient(row);
    },
    async findRecipientByPixKey(organizationId, pixKey) {
      const row = get('SELECT * FROM recipients WHERE organization_id = ? AND pix_key = ? ORDER BY created_at, rowid LIMIT 1', organizationId, pixKey);
      return row && toRecipient(row);
    },
    async updateRecipient(organizationId, id, patch) {
      writing();
      const set = setClause(patch, RECIPIENT_PATCH);
      if (set.sql) {
        run(`UPDATE recipients SET ${set.sql} WHERE organization_id = ? AND id = ?`, ...set.values, organizationId, id);
        touched();
        cache.recipients.delete(`${organizationId} ${id}`);
      }
      return tx.getRecipient(organizationId, id);
    },

    // transfers
    async insertTransfer(t) {
      const cents = storedCents(t.amount);
      insert(
        'transfers',
        `INSERT INTO transfers (id, organization_id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        t.id,
        t.organizationId,
        t.recipientId,
        t.amount,
        sqlInteger(cents),
        t.currency,
        t.status,
        t.idempotencyKey,
        t.createdAt,
      );
      touched();
      cache.addToSums(t.organizationId, t.status, t.currency, cents);
    },
    async getTransfer(organizationId, id) {
      const row = get('SELECT * FROM transfers WHERE organization_id = ? AND id = ?', organizationId, id);
      return row && toTransfer(row);
    },
    async updateTransferStatus(organizationId, id, status) {
      writing();
      const row = get('UPDATE transfers SET status = ? WHERE organization_id = ? AND id = ? RETURNING *', status, organizationId, id);
      touched();
      cache.sums.delete(organizationId);
      return row && toTransfer(row);
    },
    async sumTransfers(organizationId, statuses) {
      const which = statusesKey(statuses);
      const cached = cache.sums.get(organizationId)?.get(which);
      if (cached) return cached;
      const sums: Record<string, string> = {};
      if (statuses.length === 0) return sums;
      const statement = prepare(
        `SELECT currency, SUM(amount_cents) AS cents FROM transfers
         WHERE organization_id = ? AND status IN (${statuses.map(() => '?').join(', ')})
         GROUP BY currency ORDER BY currency`,
      );
      statement.setReadBigInts(true); // exact beyond 2^53 cents
      for (const row of statement.all(organizationId, ...statuses) as Row[]) {
        sums[row.currency as string] = fromCents(row.cents as bigint);
      }
      return cache.sum(organizationId, which, sums);
    },
    async countTransfers(organizationId) {
      const row =
        organizationId === undefined
          ? get('SELECT COUNT(*) AS n FROM transfers')
          : get('SELECT COUNT(*) AS n FROM transfers WHERE organization_id = ?', organizationId);
      return Number(row?.n ?? 0);
    },

    // cards, checkout products, checkout sessions
    async insertResource(r) {
      insert(
        'resources',
        'INSERT INTO resources (id, organization_id, kind, idempotency_key, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        r.id,
        r.organizationId,
        r.kind,
        r.idempotencyKey,
        JSON.stringify(r.body),
        r.createdAt,
      );
    },
    async countResources(kind, organizationId) {
      const row =
        organizationId === undefined
          ? get('SELECT COUNT(*) AS n FROM resources WHERE kind = ?', kind)
          : get('SELECT COUNT(*) AS n FROM resources WHERE kind = ? AND organization_id = ?', kind, organizationId);
      return Number(row?.n ?? 0);
    },

    // idempotency
    async claimIdempotency(r) {
      const claims = current?.savepoints.at(-1)!.claims;
      const pending = claims?.find((c) => sameKey(c.record, r.organizationId, r.operationId, r.key));
      if (pending) return { ...pending.record };
      const hash = keyIndex.hash(r.organizationId, r.operationId, r.key);
      const row = findIdempotency(r.organizationId, r.operationId, r.key, hash);
      if (row) return toIdempotency(row);
      if (claims) claims.push({ record: { ...r }, hash });
      else insertIdempotency(r, hash);
      return undefined;
    },
    async updateIdempotency(organizationId, operationId, key, patch) {
      const claims = current?.savepoints.at(-1)!.claims ?? [];
      const at = claims.findIndex((c) => sameKey(c.record, organizationId, operationId, key));
      if (at >= 0) {
        const { record, hash } = claims.splice(at, 1)[0]!;
        insertIdempotency({ ...record, ...patch }, hash);
        return;
      }
      const row = findIdempotency(organizationId, operationId, key, keyIndex.hash(organizationId, operationId, key));
      if (!row) throw new Error(`no idempotency record (${organizationId}, ${operationId}, ${key}) to update`);
      writing();
      run('UPDATE idempotency SET state = ?, status = ?, body = ?, resolution = ? WHERE rowid = ?', patch.state, patch.status, json(patch.body), patch.resolution, row.rowid as number);
    },

    // rate limits
    async hitRateLimit(bucket, windowStart) {
      const count = rateCounters.hit(bucket, windowStart); // in memory: see rate-counters.ts
      current?.undoLog.push(() => rateCounters.unhit(bucket, windowStart));
      return count;
    },

    // fault injection
    async insertFault(f) {
      insert(
        'faults',
        `INSERT INTO faults (id, organization_id, operation_id, kind, remaining, commit_action, retry_after_seconds, resolution, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        f.id,
        f.organizationId,
        f.operationId,
        f.kind,
        f.remaining,
        bool(f.commit),
        f.retryAfterSeconds,
        f.resolution,
        f.createdAt,
      );
      touched();
      cache.faultsPending = undefined;
    },
    async takeFault(organizationId, operationId) {
      // Nearly every request asks; nearly always there is nothing scheduled.
      cache.faultsPending ??= get('SELECT EXISTS (SELECT 1 FROM faults WHERE remaining > 0) AS pending')?.pending === 1;
      if (!cache.faultsPending) return undefined;
      writing();
      const row = get(
        `UPDATE faults SET remaining = remaining - 1
         WHERE seq = (
           SELECT seq FROM faults
           WHERE operation_id = ? AND remaining > 0 AND (organization_id = ? OR organization_id IS NULL)
           ORDER BY organization_id IS NULL, created_at, seq LIMIT 1
         )
         RETURNING *`,
        operationId,
        organizationId,
      );
      if (row) {
        touched();
        cache.faultsPending = undefined; // that may have been the last use
      }
      return row && toFault(row);
    },
    async listFaults() {
      return all('SELECT * FROM faults ORDER BY created_at, seq').map(toFault);
    },
    async clearFaults() {
      writing();
      run('DELETE FROM faults');
      touched();
      cache.faultsPending = false;
    },
  };

  let closed = false;
  /** The queue of logical transactions: each starts when the previous one has released its savepoint. */
  let tail: Promise<unknown> = Promise.resolve();
  /** Logical transactions enqueued and not yet finished: the batch commits when none is left. */
  let queued = 0;
  let batch: Batch | undefined;
  let commitScheduled = false;
  /** PRAGMA data_version when the current batch began: it changes only when ANOTHER connection commits. */
  let seenDataVersion: number | undefined;
  const context = new AsyncLocalStorage<LogicalState>();
  const TxView = transactionViews(tx);

  /** BEGIN IMMEDIATE, waiting (asynchronously, bounded) while another connection holds the write lock. */
  async function begin(): Promise<void> {
    const deadline = Date.now() + busyTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        db.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if (!isBusy(err) || Date.now() >= deadline) throw err;
        await sleep(Math.min(5 * 2 ** attempt, 50) + Math.random() * 10);
      }
    }
  }

  /** Ends an open transaction; the error that got us here is the one worth reporting. */
  function rollback(): void {
    try {
      if (db.isTransaction) db.exec('ROLLBACK');
    } catch {
      // nothing more to do: the next BEGIN reports a connection stuck in a transaction
    }
  }

  /**
   * If another connection (another process) committed since we last looked: forgets the caches and reads
   * the idempotency keys it added into the key index.
   */
  function noticeOtherCommits(): void {
    const version = Number((prepare('PRAGMA data_version').get() as Row).data_version);
    if (version === seenDataVersion) return;
    seenDataVersion = version;
    cache.clear();
    keyIndex.catchUp(function* (above) {
      for (const row of prepare('SELECT rowid, organization_id, operation_id, idem_key FROM idempotency WHERE rowid > ? ORDER BY rowid').iterate(above) as Iterable<Row>) {
        yield { rowid: Number(row.rowid), organizationId: row.organization_id as string, operationId: row.operation_id as string, key: row.idem_key as string };
      }
    });
  }

  /**
   * The caches or the key index may not match the database any more (what this connection wrote was lost
   * with its transaction, or a migration rewrote a table): both are read again at the next batch.
   */
  function rereadAtNextBatch(): void {
    cache.clear();
    keyIndex.invalidate();
    seenDataVersion = undefined;
  }

  /**
   * Takes the write lock for the batch. Holding it, whatever another process committed before is visible,
   * and nothing more can be committed by it until we COMMIT. Called before the first statement of a
   * transaction that may write, so none of its reads predates the lock.
   */
  async function lock(member: Batch): Promise<void> {
    await begin();
    member.locked = true;
    noticeOtherCommits();
  }

  /** A new batch; with the write lock unless all it has to run so far is read-only. */
  async function openBatch(locked: boolean): Promise<Batch> {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const committed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    committed.catch(() => {}); // every member observes it; this only keeps an orphaned rejection quiet
    const opened: Batch = { members: 0, locked: false, committed, resolve, reject };
    batch = opened;
    if (locked) await lock(opened);
    else noticeOtherCommits(); // a read-only batch reads what is committed now: the caches must agree
    return opened;
  }

  /** COMMITs the open batch and settles every logical transaction in it. Runs between logical transactions only. */
  function commitBatch(): void {
    const current = batch;
    if (!current) return;
    batch = undefined;
    if (!current.locked) return current.resolve(); // read-only: nothing to commit
    try {
      db.exec('COMMIT');
    } catch (err) {
      rollback();
      rereadAtNextBatch();
      current.reject(err);
      return;
    }
    current.resolve();
  }

  /** Gives up a batch that SQLite itself rolled back (an I/O error, a full disk): none of it was stored. */
  function abandonBatch(reason: unknown): void {
    const current = batch;
    batch = undefined;
    rereadAtNextBatch();
    current?.reject(reason);
  }

  /** Commits at the end of this turn of the event loop, so requests whose I/O arrived together share one COMMIT. */
  function scheduleCommit(): void {
    if (commitScheduled || !batch) return;
    commitScheduled = true;
    setImmediate(() => {
      commitScheduled = false;
      tail = tail.then(commitBatch);
    });
  }

  /**
   * One logical transaction: a savepoint inside the batch, released when `fn` resolves, rolled back when it
   * throws. A read-only one (a hint) runs without the write lock unless its batch holds it already; if it
   * writes after all, it is undone and run again from the start under the lock.
   */
  async function runLogical<T>(fn: (tx: Transaction) => Promise<T>, readOnly: boolean): Promise<{ value: T; batch: Batch }> {
    if (batch?.locked && !db.isTransaction) abandonBatch(new Error('SQLite rolled the transaction back'));
    const member = batch ?? (await openBatch(!readOnly));
    if (!readOnly && !member.locked) await lock(member);
    member.members++;
    for (;;) {
      const state: LogicalState = { open: true, wroteCached: false, needsLock: false, savepoints: [], inserted: [], undoLog: [] };
      state.savepoints.push(scopeOf(state, 'logical'));
      try {
        const value = await context.run(state, () => {
          current = state;
          return fn(new TxView(state));
        });
        if (state.needsLock) throw new NeedsWriteLock(); // fn caught the refusal to write: still run it again
        writeClaims(state.savepoints[0]!);
        if (state.savepoints[0]!.open) prepare(`RELEASE ${state.savepoints[0]!.name}`).run();
        return { value, batch: member };
      } catch (err) {
        if (member.locked && !db.isTransaction) abandonBatch(err);
        rollBack(state, state.savepoints[0]!);
        if (!state.needsLock || member.locked) throw err;
        await lock(member); // and once more, locked: it cannot need the lock again
      } finally {
        state.open = false;
        current = undefined;
      }
    }
  }

  function afterLogical(): void {
    queued--;
    if (batch && batch.members >= MAX_BATCH) commitBatch();
    else if (queued === 0) scheduleCommit();
  }

  return {
    kind: 'sqlite',

    migrate() {
      if (closed) return Promise.reject(new Error('the store is closed'));
      const migrated = tail.then(async () => {
        commitBatch();
        await begin();
        try {
          db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
          const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => Number(r.version)));
          for (const migration of MIGRATIONS) {
            if (applied.has(migration.version)) continue;
            db.exec(migration.sql);
            db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, new Date().toISOString());
          }
          db.exec('COMMIT');
        } catch (err) {
          rollback();
          throw err;
        }
        statements.clear();
        rereadAtNextBatch();
      });
      tail = migrated.catch(() => undefined);
      return migrated;
    },

    transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      if (closed) return Promise.reject(new Error('the store is closed'));
      // Waiting for our own queue from inside a transaction would never end.
      if (context.getStore()?.open) {
        return Promise.reject(new Error('store.transaction() was called inside another transaction of the same store: use the outer `tx`'));
      }
      queued++;
      const finished = tail.then(() => runLogical(fn, options.readOnly === true));
      tail = finished.then(afterLogical, afterLogical);
      // Acknowledged only once durable: the caller hears of its result after the batch's COMMIT.
      return finished.then(({ value, batch: member }) => member.committed.then(() => value));
    },

    async close() {
      if (closed) return;
      closed = true;
      tail = tail.then(commitBatch);
      await tail;
      statements.clear();
      db.close();
    },
  };
}
