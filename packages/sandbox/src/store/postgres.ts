// The shared store: PostgreSQL through node-postgres (`pg`), for several sandbox instances on one database.
// Each transaction() is one pooled connection in BEGIN … COMMIT at READ COMMITTED, running the operations of
// sql-transaction.ts as named (prepared once per connection) statements. What keeps instances apart is the
// schema's unique keys (a second claimer of an Idempotency-Key waits on the key until the first commits,
// then finds its row) and row locks (FOR UPDATE); no row is updated by every request: a balance is split
// into slots, and rate counters live outside the data transactions. A round trip costs both processes more
// CPU than a small statement, so what every request does outside a transaction (its caller, its rate-limit
// hits, and a GET's balance read and journal entry) is sent once per event-loop turn for all its requests
// (postgres-per-turn.ts).
import { Pool, type PoolClient } from 'pg';
import { migrationsFrom, type SchemaDialect } from './schema.ts';
import { perTurnStatements } from './postgres-per-turn.ts';
import type { Row, SqlValue } from './rows.ts';
import { refuseNested, runTransaction, type Dialect, type Send } from './sql-transaction.ts';
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

/** Rows a balance is split into, per organization and currency (at most this many for a balance read to sum). */
export const BALANCE_SLOTS = 16;

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
    pipeline: true, // see inTransaction
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
   * `work` on one pooled connection inside BEGIN … COMMIT (ROLLBACK when it throws). The connection
   * pipelines (pg's `pipeline`: each statement is written at once, with its own Sync), so what needs no
   * answer does not wait for one: BEGIN goes out with the first statement, and the writes `work` sends
   * (`Send`) with COMMIT. A statement that fails aborts the transaction on the server, and COMMIT answers
   * ROLLBACK: the first failure, a sent write's included, is what the transaction throws. BEGIN itself cannot
   * fail but by the connection breaking, which fails every statement behind it too. Only a connection that
   * ended cleanly goes back to the pool.
   */
  async function inTransaction<T>(work: (client: PoolClient, send: Send) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err); // an error while checked out: the connection is not reused
    client.on('error', onError);
    let ended = false;
    const begin = client.query('BEGIN');
    begin.catch(() => undefined);
    const sent: Promise<unknown>[] = [begin];
    const send: Send = (text, values, translate) => {
      const answer = run(client, text, values).catch((err: unknown) => Promise.reject(translate ? translate(err) : err));
      answer.catch(() => undefined); // read by firstFailure; not an unhandled rejection meanwhile
      sent.push(answer);
    };
    /** The first failure of a statement sent without waiting, once all have answered. */
    const firstFailure = async () => (await Promise.allSettled(sent)).find((s) => s.status === 'rejected')?.reason as unknown;
    try {
      let result: T;
      try {
        result = await work(client, send);
      } catch (err) {
        await client.query('ROLLBACK').then(() => (ended = true), () => undefined);
        throw (await firstFailure()) ?? err; // a statement behind a failed write fails for that write's reason
      }
      const commit = client.query('COMMIT');
      const failure = await firstFailure();
      const committed = await commit;
      ended = true;
      if (failure) throw failure;
      // COMMIT of a transaction that an error aborted (and `work` caught) is a silent ROLLBACK.
      if (committed.command === 'ROLLBACK') throw new Error('the transaction was rolled back: a statement in it failed (its error was caught inside the transaction)');
      return result;
    } finally {
      client.off('error', onError);
      client.release(broken ?? !ended);
    }
  }

  const turn = perTurnStatements((text, values) => run(pool, text, values));

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

  return {
    kind: 'postgres',

    async migrate() {
      if (closed) throw new Error('the store is closed');
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
      if (closed) throw new Error('the store is closed');
      // A GET: no BEGIN and COMMIT, each statement on its own, its balance read and journal entry in the turn's.
      if (options?.readOnly) return runTransaction(fn, { sql: (text, values) => run(pool, text, values), dialect: DIALECT, batched: turn });
      return inTransaction((client, send) => runTransaction(fn, { sql: (text, values) => run(client, text, values), dialect: DIALECT, balanceSlot: balanceSlotOf(client), send }));
    },

    async hitRateLimit(bucket, windowStart) {
      if (!Number.isSafeInteger(windowStart)) throw new TypeError(`windowStart must be an integer (epoch ms), got ${windowStart}`);
      return turn.hitRateLimits({ bucket, windowStart });
    },

    findCaller(hash, operationId) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      return turn.findCaller({ hash, operationId });
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
