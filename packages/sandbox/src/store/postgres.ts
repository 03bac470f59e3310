// The shared store: PostgreSQL through node-postgres (`pg`), for several sandbox instances on one database.
// Each transaction() is one pooled connection in BEGIN … COMMIT at READ COMMITTED, running the operations of
// sql-transaction.ts as named (prepared once per connection) statements. What keeps instances apart is the
// schema's unique keys (a second claimer of an Idempotency-Key waits on the key until the first commits,
// then finds its row) and row locks (FOR UPDATE); no row is updated by every request: a balance is split
// into slots, and rate counters live outside the data transactions. A round trip costs both processes more
// CPU than a small statement, so what every request does outside a transaction (its caller, its rate-limit
// hits, and a GET's balance read and journal entry) is sent once per event-loop turn for all its requests.
import { Pool, type PoolClient } from 'pg';
import { migrationsFrom, type SchemaDialect } from './schema.ts';
import {
  debitedTotalsFrom,
  debitedTotalsOf,
  findCallerSql,
  JOURNAL_COLUMNS,
  journalValues,
  refuseNested,
  runningTransaction,
  sqlTransaction,
  toCaller,
  type Dialect,
  type Row,
  type Sql,
  type SqlValue,
} from './sql-transaction.ts';
import type { Store, Transaction } from './types.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Connections in the pool (default 16): at most this many transactions run at once in this instance. */
  poolSize?: number | undefined;
}

const SCHEMA_DIALECT: SchemaDialect = { identity: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY', legacyInsertionOrder: 'seq', unlogged: 'UNLOGGED ' };

const DIALECT: Dialect = {
  forUpdate: ' FOR UPDATE',
  violatedConstraint(err) {
    const e = err as { code?: string; constraint?: string } | null;
    return e?.code === '23505' ? e.constraint : undefined; // unique_violation
  },
};

// The statements of several requests at once (see perTurn): their inputs as arrays, one per column.
const FIND_CALLERS = findCallerSql('q.hash', 'q.operation_id', 'unnest($1::text[], $2::text[]) AS q(hash, operation_id), ');
const DEBITED_TOTALS = debitedTotalsOf('organization_id = ANY($1::text[])');
/** The journal's column types, in JOURNAL_COLUMNS' order. */
const JOURNAL_COLUMN_TYPES = ['text', 'bigint', 'text', 'text', 'text', 'text', 'integer', 'text', 'text', 'integer', 'text', 'boolean'];
const APPEND_JOURNAL = `INSERT INTO journal (${JOURNAL_COLUMNS}) SELECT * FROM unnest(${JOURNAL_COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

/** Rows a balance is split into, per organization and currency (at most this many for a balance read to sum). */
const BALANCE_SLOTS = 16;

/** pg_advisory_xact_lock key (a bigint) serializing migrate() across instances: "sandbox" in ASCII. */
const MIGRATION_LOCK = 0x73616e64626f78n.toString();

/**
 * Rate-limit counters shared by every instance: an UNLOGGED table (no WAL, so a hit's commit waits for no
 * fsync; the counts are lost if PostgreSQL crashes, which only resets windows), the hits of an event-loop
 * turn one autocommit statement outside any transaction. A client sees fixed windows counted across instances.
 */
const RATE_COUNTERS = `
  CREATE UNLOGGED TABLE IF NOT EXISTS rate_counters (
    bucket text NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
  )`;

/**
 * The calls of one event-loop turn, handed to `flush` together once the turn's I/O callbacks have run
 * (setImmediate); each call gets its own answer, in order. The statements outside any transaction that
 * every request makes (its caller, its rate-limit hits; a GET's balance read and journal entry) travel this
 * way: under load a turn holds a few requests (bench: 2.4 on average at 32 connections), and a round trip
 * costs both processes more CPU than such a statement (GET balance: 190 → 100 µs of sandbox CPU).
 */
function perTurn<In, Out>(flush: (inputs: In[]) => Promise<Out[]>): (input: In) => Promise<Out> {
  let queue: { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  const send = () => {
    const batch = queue;
    queue = [];
    flush(batch.map((call) => call.input)).then(
      (outs) => batch.forEach((call, i) => call.resolve(outs[i]!)),
      (err: unknown) => batch.forEach((call) => call.reject(err)),
    );
  };
  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (queue.push({ input, resolve, reject }) === 1) setImmediate(send);
    });
}

/** A name per statement text, so each connection prepares a statement once and then only binds it. */
const names = new Map<string, string>();
const nameOf = (text: string) => {
  let name = names.get(text);
  if (!name) names.set(text, (name = `sandbox_${names.size + 1}`));
  return name;
};

/** One caller lookup: the hash of the presented API key and the operation asked for. */
interface CallerRequest {
  hash: string;
  operationId: string;
}

export function createPostgresStore(options: PostgresStoreOptions): Store {
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 16,
    connectionTimeoutMillis: 30_000, // a transaction waiting for a connection gives up instead of hanging
    idle_in_transaction_session_timeout: 60_000, // a transaction left open cannot hold its locks forever
  });
  // An idle pooled connection that breaks (server restart) is dropped by the pool; without a listener the
  // 'error' event would end the process.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL store: idle connection error: ${err.message}`));
  let closed = false;

  const run = async (client: PoolClient | Pool, text: string, values: readonly SqlValue[] = []): Promise<Row[]> =>
    (await client.query<Row>({ name: nameOf(text), text, values: values as unknown[] })).rows;

  /**
   * `work` on one pooled connection inside BEGIN … COMMIT (ROLLBACK when it throws). Only a connection that
   * ended cleanly goes back to the pool.
   */
  async function inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    if (closed) throw new Error('the store is closed');
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err); // an error while checked out: the connection is not reused
    client.on('error', onError);
    let ended = false;
    try {
      await client.query('BEGIN');
      let result: T;
      try {
        result = await work(client);
      } catch (err) {
        await client.query('ROLLBACK').then(() => (ended = true), () => undefined);
        throw err;
      }
      const commit = await client.query('COMMIT');
      ended = true;
      // COMMIT of a transaction that an error aborted (and `work` caught) is a silent ROLLBACK.
      if (commit.command === 'ROLLBACK') throw new Error('the transaction was rolled back: a statement in it failed (its error was caught inside the transaction)');
      return result;
    } finally {
      client.off('error', onError);
      client.release(broken ?? !ended);
    }
  }

  // Each pooled connection adds its transfers to a balance row of its own (see sqlTransaction): with slots
  // picked at random, 16 concurrent transfers of one organization met a taken row most of the time and
  // waited for its COMMIT (bench: the upsert averaged 0.7 ms, nearly all of it waiting). Another instance
  // starts at another slot, so one of its connections shares each row.
  const slots = new WeakMap<PoolClient, number>();
  let nextSlot = Math.floor(Math.random() * BALANCE_SLOTS);
  const balanceSlotOf = (client: PoolClient): number => {
    let slot = slots.get(client);
    if (slot === undefined) slots.set(client, (slot = nextSlot++ % BALANCE_SLOTS));
    return slot;
  };

  const findCaller = perTurn(async (asked: CallerRequest[]) => {
    const rows = await run(pool, FIND_CALLERS, [asked.map((r) => r.hash), asked.map((r) => r.operationId)]);
    const found = new Map(rows.map((row) => [`${String(row.asked_hash)} ${String(row.asked_operation)}`, toCaller(row)]));
    return asked.map((r) => found.get(`${r.hash} ${r.operationId}`));
  });

  /**
   * One statement for a turn's hits: each (bucket, window) gets all its hits at once, and each hit the count
   * it made (the counts in between, in order); a bucket's windows a day older than its oldest one here go.
   */
  const hitRateLimits = perTurn(async (hits: { bucket: string; windowStart: number }[]) => {
    const windows = new Map<string, { bucket: string; windowStart: number; hits: number; seen: number; count: number }>();
    for (const { bucket, windowStart } of hits) {
      const name = `${windowStart} ${bucket}`;
      const window = windows.get(name) ?? { bucket, windowStart, hits: 0, seen: 0, count: 0 };
      windows.set(name, window);
      window.hits++;
    }
    // In one order on every instance, so two instances' statements lock the same rows in the same order.
    const sorted = [...windows.keys()].sort().map((name) => windows.get(name)!);
    const rows = await run(
      pool,
      `WITH hits AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[]) AS h(bucket, window_start, hits)),
         oldest AS (SELECT bucket, MIN(window_start) AS window_start FROM hits GROUP BY bucket),
         pruned AS (DELETE FROM rate_counters r USING oldest WHERE r.bucket = oldest.bucket AND r.window_start < oldest.window_start - 86400000)
       INSERT INTO rate_counters (bucket, window_start, count) SELECT bucket, window_start, hits FROM hits
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + excluded.count
       RETURNING bucket, window_start, count`,
      [sorted.map((w) => w.bucket), sorted.map((w) => w.windowStart), sorted.map((w) => w.hits)],
    );
    for (const row of rows) windows.get(`${Number(row.window_start)} ${String(row.bucket)}`)!.count = Number(row.count);
    return hits.map(({ bucket, windowStart }) => {
      const window = windows.get(`${windowStart} ${bucket}`)!;
      return window.count - window.hits + ++window.seen;
    });
  });

  // A GET's two statements, shared by the turn's GETs: the balance read, and the journal entry (in order).
  const debitedTotals = perTurn(async (organizations: string[]) => {
    const rows = await run(pool, DEBITED_TOTALS, [organizations]);
    return organizations.map((organizationId) => debitedTotalsFrom(rows, organizationId));
  });
  const appendJournal = perTurn(async (entries: SqlValue[][]) => {
    await run(pool, APPEND_JOURNAL, JOURNAL_COLUMN_TYPES.map((_, i) => entries.map((values) => values[i])) as SqlValue[]);
    return entries.map(() => undefined);
  });

  /**
   * A read-only transaction (a GET): no BEGIN and COMMIT, each statement on its own through the pool, and its
   * balance read and journal entry in the statements the turn's GETs share.
   */
  async function readOnly<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (closed) throw new Error('the store is closed');
    const state = { open: true };
    const ended = () => Promise.reject(new Error('a tx used after its transaction ended'));
    const tx = sqlTransaction((text, values) => (state.open ? run(pool, text, values) : ended()), DIALECT);
    tx.debitedTotals = (organizationId) => (state.open ? debitedTotals(organizationId) : ended());
    tx.appendJournal = (organizationId, entry) => (state.open ? appendJournal(journalValues(organizationId, entry)) : ended());
    try {
      return await runningTransaction.run(state, () => fn(tx));
    } finally {
      state.open = false;
    }
  }

  return {
    kind: 'postgres',

    async migrate() {
      await inTransaction(async (client) => {
        // Several instances starting together: one migrates, the others wait here and then find it done.
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
        await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)');
        const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
        const version = Number(rows[0]?.version ?? 0);
        for (const step of migrationsFrom(version, SCHEMA_DIALECT)) {
          await client.query(step.sql);
          for (const v of step.versions) await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [v, new Date().toISOString()]);
        }
        await client.query(RATE_COUNTERS);
      });
    },

    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
      refuseNested();
      if (options?.readOnly) return readOnly(fn);
      return inTransaction(async (client) => {
        const state = { open: true };
        const sql: Sql = (text, values) => {
          if (!state.open) return Promise.reject(new Error('a tx used after its transaction ended'));
          return run(client, text, values);
        };
        try {
          return await runningTransaction.run(state, () => fn(sqlTransaction(sql, DIALECT, balanceSlotOf(client))));
        } finally {
          state.open = false;
        }
      });
    },

    async hitRateLimit(bucket, windowStart) {
      if (!Number.isSafeInteger(windowStart)) throw new TypeError(`windowStart must be an integer (epoch ms), got ${windowStart}`);
      return hitRateLimits({ bucket, windowStart });
    },

    findCaller(hash, operationId) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      return findCaller({ hash, operationId });
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
