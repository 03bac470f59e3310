// The shared store: PostgreSQL through node-postgres, for several sandbox instances on one database. Each
// transaction() is a pooled connection at READ COMMITTED, running named statements, in BEGIN … COMMIT only
// where its work needs a block (postgres-transaction.ts: a POST's writes are one statement). The
// schema's unique keys and row locks keep instances apart; no row is updated by every request (a balance is
// split into slots; rate counters live outside the transactions, postgres-per-turn.ts).
import { Pool, type PoolClient } from 'pg';
import { migrate, type SchemaDialect } from './schema.ts';
import { perTurnStatements } from './postgres-per-turn.ts';
import type { Row, SqlValue } from './rows.ts';
import { corkUntilNextTick, runOnConnection } from './postgres-transaction.ts';
import { refuseNested, runTransaction, type Dialect, type Send, type Sql } from './sql-transaction.ts';
import type { Store, Transaction } from './types.ts';
import { logProblem } from '../problems.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Connections in the pool (default 16): at most this many transactions run at once in this instance. */
  poolSize?: number | undefined;
}

const SCHEMA_DIALECT: SchemaDialect = {
  identity: 'bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  legacyInsertionOrder: 'seq',
  unlogged: 'UNLOGGED ',
  // The tables of the schema our unqualified CREATE TABLEs go to (the first of search_path); not views, nor an
  // extension's own tables (PostGIS's spatial_ref_sys in the postgis image's database: no program's data).
  tableNames: `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')`,
  columnNames: 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
};

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
 * Rate-limit counters shared by every instance: UNLOGGED (no WAL, so a hit waits for no fsync; a crash of
 * PostgreSQL empties it, which only resets windows), written outside any transaction.
 */
const RATE_COUNTERS = `
  CREATE UNLOGGED TABLE IF NOT EXISTS rate_counters (
    bucket text NOT NULL,
    window_start bigint NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (bucket, window_start)
  )`;

/**
 * Each named statement planned once per connection: on `auto`, PostgreSQL planned the statements that take
 * arrays anew at every run (their generic estimate looks dearer), two thirds of its CPU for a caller lookup.
 * Every statement a request sends has an index-probing generic plan: pg-round-trips.test.ts holds it.
 */
export const SESSION_SETTINGS = '-c plan_cache_mode=force_generic_plan';

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
    pipeline: true, // statements leave as they are asked for (postgres-transaction.ts)
    options: SESSION_SETTINGS,
    connectionTimeoutMillis: 30_000, // a transaction waiting for a connection gives up instead of hanging
    idle_in_transaction_session_timeout: 60_000, // a transaction left open cannot hold its locks forever
  });
  // An idle pooled connection that breaks (server restart) is dropped; unheard, the 'error' would end the process.
  pool.on('error', (err) => logProblem('PostgreSQL store: an idle connection failed (the pool opens another)', { error: err.message }));
  let closed = false;

  const run = async (client: PoolClient | Pool, text: string, values: readonly SqlValue[] = []): Promise<Row[]> => {
    if (client !== pool) corkUntilNextTick(client as PoolClient);
    return (await client.query<Row>({ name: nameOf(text), text, values: values as unknown[] })).rows;
  };

  /** `work` on a pooled connection (postgres-transaction.ts); only a connection that ended cleanly is reused. */
  async function inTransaction<T>(work: (sql: Sql, send: Send, client: PoolClient) => Promise<T>, begin = false): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => (broken = err); // an error while checked out: the connection is not reused
    client.on('error', onError);
    let reusable = false;
    try {
      const outcome = await runOnConnection(client, run, begin, (sql, send) => work(sql, send, client));
      reusable = !('failure' in outcome) || outcome.reusable;
      if ('failure' in outcome) throw outcome.failure;
      return outcome.result;
    } finally {
      client.off('error', onError);
      client.release(broken ?? !reusable);
    }
  }

  const turn = perTurnStatements((text, values) => run(pool, text, values));

  // A balance slot per connection (Engine.balanceSlot), another instance starting elsewhere: slots picked at
  // random mostly met a taken row (bench: the upsert averaged 0.7 ms, nearly all of it waiting for a COMMIT).
  const slots = new WeakMap<PoolClient, number>();
  let nextSlot = Math.floor(Math.random() * BALANCE_SLOTS);
  pool.on('connect', (client) => slots.set(client, nextSlot++ % BALANCE_SLOTS));

  return {
    kind: 'postgres',

    async migrate() {
      if (closed) throw new Error('the store is closed');
      await inTransaction(async (_sql, _send, client) => {
        // Several instances starting together: one migrates, the others wait here and then find it done.
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
        await migrate({ exec: (sql) => client.query(sql), query: async (sql, values) => (await client.query<Row>(sql, values)).rows }, SCHEMA_DIALECT);
        await client.query(RATE_COUNTERS);
      }, true);
    },

    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
      refuseNested();
      if (closed) throw new Error('the store is closed');
      // A GET: no BEGIN and COMMIT, each statement on its own, its balance read and journal entry in the turn's.
      if (options?.readOnly) return runTransaction(fn, { ...DIALECT, sql: (text, values) => run(pool, text, values), batched: turn });
      return inTransaction((sql, send, client) => runTransaction(fn, { ...DIALECT, sql, balanceSlot: slots.get(client)!, send }));
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
