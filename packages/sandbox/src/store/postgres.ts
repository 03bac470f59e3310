// The shared store: PostgreSQL through node-postgres (`pg`), for several sandbox instances on one database.
// Each transaction() is one pooled connection in BEGIN … COMMIT at READ COMMITTED, running the operations of
// sql-transaction.ts as named (prepared once per connection) statements. What keeps instances apart is the
// schema's unique keys (a second claimer of an Idempotency-Key waits on the key until the first commits,
// then finds its row) and row locks (FOR UPDATE); no row is updated by every request: a balance is split
// into slots, and rate counters live outside the data transactions.
import { Pool, type PoolClient } from 'pg';
import { migrationsFrom, type SchemaDialect } from './schema.ts';
import { findCaller, refuseNested, runningTransaction, sqlTransaction, type Dialect, type Row, type Sql, type SqlValue } from './sql-transaction.ts';
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
  balanceSlots: 16,
  violatedConstraint(err) {
    const e = err as { code?: string; constraint?: string } | null;
    return e?.code === '23505' ? e.constraint : undefined; // unique_violation
  },
};

/** pg_advisory_xact_lock key (a bigint) serializing migrate() across instances: "sandbox" in ASCII. */
const MIGRATION_LOCK = 0x73616e64626f78n.toString();

/**
 * Rate-limit counters shared by every instance: an UNLOGGED table (no WAL, so a hit's commit waits for no
 * fsync; the counts are lost if PostgreSQL crashes, which only resets windows), each hit one autocommit
 * statement outside the request's transaction. A client sees fixed windows counted across instances.
 */
const RATE_COUNTERS = `
  CREATE UNLOGGED TABLE IF NOT EXISTS rate_counters (
    bucket text NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
  )`;

/** A name per statement text, so each connection prepares a statement once and then only binds it. */
const names = new Map<string, string>();
const nameOf = (text: string) => {
  let name = names.get(text);
  if (!name) names.set(text, (name = `sandbox_${names.size + 1}`));
  return name;
};

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
   * `work` on one pooled connection: inside BEGIN … COMMIT (ROLLBACK when it throws), or with each statement
   * on its own (`transaction: false`). Only a connection that ended cleanly goes back to the pool.
   */
  async function onConnection<T>(work: (client: PoolClient) => Promise<T>, { transaction }: { transaction: boolean }): Promise<T> {
    if (closed) throw new Error('the store is closed');
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err); // an error while checked out: the connection is not reused
    client.on('error', onError);
    let ended = !transaction;
    try {
      if (!transaction) return await work(client);
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

  return {
    kind: 'postgres',

    async migrate() {
      await onConnection(async (client) => {
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
      }, { transaction: true });
    },

    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
      refuseNested();
      return onConnection(async (client) => {
        const state = { open: true };
        const sql: Sql = (text, values) => {
          if (!state.open) return Promise.reject(new Error('a tx used after its transaction ended'));
          return run(client, text, values);
        };
        try {
          return await runningTransaction.run(state, () => fn(sqlTransaction(sql, DIALECT)));
        } finally {
          state.open = false;
        }
      }, { transaction: !options?.readOnly });
    },

    async hitRateLimit(bucket, windowStart) {
      if (!Number.isSafeInteger(windowStart)) throw new TypeError(`windowStart must be an integer (epoch ms), got ${windowStart}`);
      // The increment, and this bucket's windows older than a day dropped on the way.
      const [row] = await run(
        pool,
        `WITH pruned AS (DELETE FROM rate_counters WHERE bucket = $1 AND window_start < $3)
         INSERT INTO rate_counters (bucket, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + 1
         RETURNING count`,
        [bucket, windowStart, windowStart - 86_400_000],
      );
      return Number(row?.count);
    },

    findCaller(hash, operationId) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      return findCaller((text, values) => run(pool, text, values), hash, operationId);
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
