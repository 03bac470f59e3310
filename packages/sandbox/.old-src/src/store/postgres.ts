// The shared store: PostgreSQL through node-postgres (`pg`, pure JS), for several sandbox instances on one
// database. A pool; each transaction() is one pooled client in BEGIN … COMMIT/ROLLBACK at READ COMMITTED.
// What keeps instances apart is in the statements themselves:
// - claimIdempotency: INSERT … ON CONFLICT DO NOTHING. A second claimer of a key blocks on the unique index
//   until the first transaction ends, then reads (and locks) the committed row;
// - hitRateLimit: one upsert that increments and returns the count;
// - takeFault: UPDATE of the row picked by SELECT … FOR UPDATE (organization-specific first, oldest first).
//   Concurrent takers wait for each other rather than SKIP LOCKED past a fault still in use: with SKIP LOCKED
//   a request arriving while another holds the fault would miss it, and "remaining: 3" could fault fewer
//   than 3 requests;
// - migrate: the DDL runs under pg_advisory_xact_lock, versions in schema_migrations.
// Timestamps are stored as the given text (they round-trip exactly), bodies as `json` (kept as written),
// amounts as the canonical two-decimal string plus bigint cents (sums are exact).
import { AsyncLocalStorage } from 'node:async_hooks';
import { Pool, type PoolClient, type QueryResultRow } from 'pg';
import { fromCents, storedCents } from '../money.ts';
import type {
  ApiKeyRecord,
  FaultRecord,
  IdempotencyRecord,
  Organization,
  RecipientRecord,
  Store,
  Transaction,
  TransferRecord,
  TransferStatus,
} from './types.ts';
import { transactionViews, type TransactionState } from './transaction-views.ts';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Connections in the pool (default 10): at most this many transactions run at once in this instance. */
  poolSize?: number | undefined;
}

/** pg_advisory_xact_lock key (a bigint) serializing migrate() across instances: "sandbox" in ASCII. */
const MIGRATION_LOCK = 0x73616e64626f78n.toString();

const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE organizations (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text PRIMARY KEY,
        name text NOT NULL,
        api_access boolean NOT NULL,
        banking boolean NOT NULL,
        cards boolean NOT NULL,
        checkout boolean NOT NULL,
        wallet_transfers boolean NOT NULL,
        card_terms_accepted boolean NOT NULL,
        checkout_pix boolean NOT NULL,
        funding json NOT NULL,
        created_at text NOT NULL
      );
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at text NOT NULL,
        revoked_at text
      );
      CREATE INDEX api_keys_organization ON api_keys (organization_id);
      CREATE TABLE recipients (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        nickname text NOT NULL,
        rail text NOT NULL,
        pix_key text,
        destination_address text,
        active boolean NOT NULL,
        source text NOT NULL,
        idempotency_key text,
        created_at text NOT NULL
      );
      CREATE INDEX recipients_nickname ON recipients (organization_id, nickname);
      CREATE INDEX recipients_pix_key ON recipients (organization_id, pix_key);
      CREATE TABLE transfers (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        recipient_id text NOT NULL,
        amount text NOT NULL,
        amount_cents bigint NOT NULL,
        currency text NOT NULL,
        status text NOT NULL,
        idempotency_key text NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX transfers_organization ON transfers (organization_id, status);
      CREATE TABLE resources (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        kind text NOT NULL,
        idempotency_key text NOT NULL,
        body json NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX resources_kind ON resources (kind, organization_id);
      CREATE TABLE idempotency (
        organization_id text NOT NULL,
        operation_id text NOT NULL,
        idem_key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL,
        status integer,
        body json,
        resolution text,
        created_at text NOT NULL,
        PRIMARY KEY (organization_id, operation_id, idem_key)
      );
      CREATE TABLE rate_limits (
        bucket text NOT NULL,
        window_start bigint NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
      CREATE TABLE faults (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text PRIMARY KEY,
        organization_id text,
        operation_id text NOT NULL,
        kind text NOT NULL,
        remaining integer NOT NULL,
        commit_action boolean NOT NULL,
        retry_after_seconds integer,
        resolution text,
        created_at text NOT NULL
      );
      CREATE INDEX faults_operation ON faults (operation_id) WHERE remaining > 0;
    `,
  },
];

// ---- rows ----------------------------------------------------------------------------------------------

type Row = Record<string, unknown>;

/** JSON text for a `json` parameter (pg would turn a JS array into a PostgreSQL array literal). */
const json = (value: unknown): string | null => JSON.stringify(value) ?? null;

const toOrganization = (r: Row): Organization => ({
  id: r.id as string,
  name: r.name as string,
  apiAccess: r.api_access as boolean,
  banking: r.banking as boolean,
  cards: r.cards as boolean,
  checkout: r.checkout as boolean,
  walletTransfers: r.wallet_transfers as boolean,
  cardTermsAccepted: r.card_terms_accepted as boolean,
  checkoutPix: r.checkout_pix as boolean,
  funding: r.funding as Record<string, string>,
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
  active: r.active as boolean,
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
  body: r.body ?? null,
  resolution: r.resolution as string | null,
  createdAt: r.created_at as string,
});

const toFault = (r: Row): FaultRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string | null,
  operationId: r.operation_id as string,
  kind: r.kind as FaultRecord['kind'],
  remaining: r.remaining as number,
  commit: r.commit_action as boolean,
  retryAfterSeconds: r.retry_after_seconds as number | null,
  resolution: r.resolution as string | null,
  createdAt: r.created_at as string,
});

type Patchable = Record<string, [column: string, encode: (value: never) => unknown]>;

const same = (v: unknown) => v;

const ORGANIZATION_PATCH: Patchable = {
  name: ['name', same],
  apiAccess: ['api_access', same],
  banking: ['banking', same],
  cards: ['cards', same],
  checkout: ['checkout', same],
  walletTransfers: ['wallet_transfers', same],
  cardTermsAccepted: ['card_terms_accepted', same],
  checkoutPix: ['checkout_pix', same],
  funding: ['funding', json],
};

const RECIPIENT_PATCH: Patchable = {
  active: ['active', same],
  nickname: ['nickname', same],
};

/** `a = $n, b = $n+1` and its values for the known, defined fields of `patch`; placeholders start at `first`. */
function setClause(patch: object, fields: Patchable, first: number): { sql: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const [name, value] of Object.entries(patch)) {
    const field = fields[name];
    if (!field || value === undefined) continue;
    values.push(field[1](value as never));
    parts.push(`${field[0]} = $${first + values.length - 1}${field[0] === 'funding' ? '::json' : ''}`);
  }
  return { sql: parts.join(', '), values };
}

/** A pooled connection's `tx` methods, built once per connection (the pool keeps at most `max`). */
const viewsByClient = new WeakMap<PoolClient, new (state: TransactionState) => Transaction>();

function transactionOn(client: PoolClient): Transaction {
  const query = async (sql: string, values: unknown[] = []): Promise<Row[]> => (await client.query<QueryResultRow>(sql, values)).rows;
  const one = async (sql: string, values: unknown[] = []): Promise<Row | undefined> => (await query(sql, values))[0];
  let depth = 0;

  const tx: Transaction = {
    async nested(fn) {
      const name = `nested_${++depth}`;
      await query(`SAVEPOINT ${name}`);
      try {
        const value = await fn();
        await query(`RELEASE SAVEPOINT ${name}`);
        return value;
      } catch (err) {
        // After a failed ROLLBACK TO the connection is unusable anyway: COMMIT then reports it.
        await query(`ROLLBACK TO SAVEPOINT ${name}`).then(() => query(`RELEASE SAVEPOINT ${name}`)).catch(() => undefined);
        throw err;
      } finally {
        depth--;
      }
    },

    // organizations
    async insertOrganization(org) {
      await query(
        `INSERT INTO organizations (id, name, api_access, banking, cards, checkout, wallet_transfers, card_terms_accepted, checkout_pix, funding, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::json, $11)`,
        [
          org.id,
          org.name,
          org.apiAccess,
          org.banking,
          org.cards,
          org.checkout,
          org.walletTransfers,
          org.cardTermsAccepted,
          org.checkoutPix,
          JSON.stringify(org.funding),
          org.createdAt,
        ],
      );
    },
    async getOrganization(id) {
      const row = await one('SELECT * FROM organizations WHERE id = $1', [id]);
      return row && toOrganization(row);
    },
    async updateOrganization(id, patch) {
      const set = setClause(patch, ORGANIZATION_PATCH, 2);
      if (!set.sql) return tx.getOrganization(id);
      const row = await one(`UPDATE organizations SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
      return row && toOrganization(row);
    },
    async listOrganizations() {
      return (await query('SELECT * FROM organizations ORDER BY created_at, seq')).map(toOrganization);
    },

    // API keys
    async insertApiKey(key) {
      await query('INSERT INTO api_keys (id, organization_id, hash, prefix, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        key.id,
        key.organizationId,
        key.hash,
        key.prefix,
        key.createdAt,
        key.revokedAt,
      ]);
    },
    async findApiKeyByHash(hash) {
      const row = await one('SELECT * FROM api_keys WHERE hash = $1', [hash]);
      return row && toApiKey(row);
    },
    async getApiKey(id) {
      const row = await one('SELECT * FROM api_keys WHERE id = $1', [id]);
      return row && toApiKey(row);
    },
    async revokeApiKey(id, at) {
      // A key revoked twice keeps its first revocation time.
      const row = await one('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *', [id, at]);
      return row && toApiKey(row);
    },

    // recipients
    async lockOrganization(id) {
      await query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [id]);
    },
    async insertRecipient(r) {
      await query(
        `INSERT INTO recipients (id, organization_id, nickname, rail, pix_key, destination_address, active, source, idempotency_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [r.id, r.organizationId, r.nickname, r.rail, r.pixKey, r.destinationAddress, r.active, r.source, r.idempotencyKey, r.createdAt],
      );
    },
    async getRecipient(organizationId, id) {
      const row = await one('SELECT * FROM recipients WHERE organization_id = $1 AND id = $2', [organizationId, id]);
      return row && toRecipient(row);
    },
    async findActiveRecipientByNickname(organizationId, nickname) {
      const row = await one(
        'SELECT * FROM recipients WHERE organization_id = $1 AND nickname = $2 AND active ORDER BY created_at, seq LIMIT 1',
        [organizationId, nickname],
      );
      return row && toRecipient(row);
    },
    async findRecipientByPixKey(organizationId, pixKey) {
      const row = await one('SELECT * FROM recipients WHERE organization_id = $1 AND pix_key = $2 ORDER BY created_at, seq LIMIT 1', [
        organizationId,
        pixKey,
      ]);
      return row && toRecipient(row);
    },
    async updateRecipient(organizationId, id, patch) {
      const set = setClause(patch, RECIPIENT_PATCH, 3);
      if (!set.sql) return tx.getRecipient(organizationId, id);
      const row = await one(`UPDATE recipients SET ${set.sql} WHERE organization_id = $1 AND id = $2 RETURNING *`, [organizationId, id, ...set.values]);
      return row && toRecipient(row);
    },

    // transfers
    async insertTransfer(t) {
      await query(
        `INSERT INTO transfers (id, organization_id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [t.id, t.organizationId, t.recipientId, t.amount, storedCents(t.amount).toString(), t.currency, t.status, t.idempotencyKey, t.createdAt],
      );
    },
    async getTransfer(organizationId, id) {
      const row = await one('SELECT * FROM transfers WHERE organization_id = $1 AND id = $2', [organizationId, id]);
      return row && toTransfer(row);
    },
    async updateTransferStatus(organizationId, id, status) {
      const row = await one('UPDATE transfers SET status = $3 WHERE organization_id = $1 AND id = $2 RETURNING *', [organizationId, id, status]);
      return row && toTransfer(row);
    },
    async sumTransfers(organizationId, statuses) {
      const sums: Record<string, string> = {};
      if (statuses.length === 0) return sums;
      // SUM(bigint) is numeric, which pg hands over as a string: exact.
      const rows = await query(
        `SELECT currency, SUM(amount_cents)::text AS cents FROM transfers
         WHERE organization_id = $1 AND status = ANY($2::text[])
         GROUP BY currency ORDER BY currency`,
        [organizationId, statuses],
      );
      for (const row of rows) sums[row.currency as string] = fromCents(BigInt(row.cents as string));
      return sums;
    },
    async countTransfers(organizationId) {
      const row =
        organizationId === undefined
          ? await one('SELECT COUNT(*) AS n FROM transfers')
          : await one('SELECT COUNT(*) AS n FROM transfers WHERE organization_id = $1', [organizationId]);
      return Number(row?.n ?? 0);
    },

    // cards, checkout products, checkout sessions
    async insertResource(r) {
      await query('INSERT INTO resources (id, organization_id, kind, idempotency_key, body, created_at) VALUES ($1, $2, $3, $4, $5::json, $6)', [
        r.id,
        r.organizationId,
        r.kind,
        r.idempotencyKey,
        JSON.stringify(r.body),
        r.createdAt,
      ]);
    },
    async countResources(kind, organizationId) {
      const row =
        organizationId === undefined
          ? await one('SELECT COUNT(*) AS n FROM resources WHERE kind = $1', [kind])
          : await one('SELECT COUNT(*) AS n FROM resources WHERE kind = $1 AND organization_id = $2', [kind, organizationId]);
      return Number(row?.n ?? 0);
    },

    // idempotency
    async claimIdempotency(r) {
      // Rows are never deleted, so the loop runs at most twice; bounded anyway.
      for (let attempt = 0; attempt < 3; attempt++) {
        // A concurrent claim of the same key waits here, on the primary key, until the other transaction ends.
        const inserted = await query(
          `INSERT INTO idempotency (organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::json, $8, $9)
           ON CONFLICT (organization_id, operation_id, idem_key) DO NOTHING
           RETURNING 1 AS claimed`,
          [r.organizationId, r.operationId, r.key, r.fingerprint, r.state, r.status, json(r.body), r.resolution, r.createdAt],
        );
        if (inserted.length === 1) return undefined;
        // A new statement, a new snapshot: it sees the committed row. FOR UPDATE keeps the next claimer waiting
        // until we are done with it (e.g. resolving an `unresolved` attempt).
        const row = await one('SELECT * FROM idempotency WHERE organization_id = $1 AND operation_id = $2 AND idem_key = $3 FOR UPDATE', [
          r.organizationId,
          r.operationId,
          r.key,
        ]);
        if (row) return toIdempotency(row);
      }
      throw new Error(`idempotency record (${r.organizationId}, ${r.operationId}, ${r.key}) conflicted but cannot be read`);
    },
    async updateIdempotency(organizationId, operationId, key, patch) {
      const rows = await query(
        `UPDATE idempotency SET state = $4, status = $5, body = $6::json, resolution = $7
         WHERE organization_id = $1 AND operation_id = $2 AND idem_key = $3 RETURNING 1 AS updated`,
        [organizationId, operationId, key, patch.state, patch.status, json(patch.body), patch.resolution],
      );
      if (rows.length !== 1) throw new Error(`no idempotency record (${organizationId}, ${operationId}, ${key}) to update`);
    },

    // rate limits
    async hitRateLimit(bucket, windowStart) {
      if (!Number.isSafeInteger(windowStart)) throw new TypeError(`windowStart must be an integer (epoch ms), got ${windowStart}`);
      // One statement: the increment, and windows of this bucket older than a day (over whatever the window
      // length) dropped on the way.
      const row = await one(
        `WITH pruned AS (DELETE FROM rate_limits WHERE bucket = $1 AND window_start < $3)
         INSERT INTO rate_limits (bucket, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
         RETURNING count`,
        [bucket, windowStart, windowStart - 86_400_000],
      );
      return Number(row?.count);
    },

    // fault injection
    async insertFault(f) {
      await query(
        `INSERT INTO faults (id, organization_id, operation_id, kind, remaining, commit_action, retry_after_seconds, resolution, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [f.id, f.organizationId, f.operationId, f.kind, f.remaining, f.commit, f.retryAfterSeconds, f.resolution, f.createdAt],
      );
    },
    async takeFault(organizationId, operationId) {
      // FOR UPDATE (no SKIP LOCKED): a taker waits for a concurrent one; when that one used the fault up, the
      // row fails the re-check (remaining > 0) and the next candidate is taken.
      const row = await one(
        `UPDATE faults SET remaining = remaining - 1
         WHERE id = (
           SELECT id FROM faults
           WHERE operation_id = $2 AND remaining > 0 AND (organization_id = $1 OR organization_id IS NULL)
           ORDER BY organization_id IS NULL, created_at, seq
           LIMIT 1
           FOR UPDATE
         ) AND remaining > 0
         RETURNING *`,
        [organizationId, operationId],
      );
      return row && toFault(row);
    },
    async listFaults() {
      return (await query('SELECT * FROM faults ORDER BY created_at, seq')).map(toFault);
    },
    async clearFaults() {
      await query('DELETE FROM faults');
    },
  };
  return tx;
}

export function createPostgresStore(options: PostgresStoreOptions): Store {
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // A transaction waiting for a connection gives up after 30 s instead of hanging.
    connectionTimeoutMillis: 30_000,
    // A transaction left open (a handler stuck inside `fn`) cannot hold its locks forever.
    idle_in_transaction_session_timeout: 60_000,
  });
  // An idle pooled connection that breaks (server restart) is dropped by the pool; without a listener the
  // 'error' event would crash the process.
  pool.on('error', (err) => process.emitWarning(`PostgreSQL store: idle connection error: ${err.message}`));

  let closed = false;
  const context = new AsyncLocalStorage<{ open: boolean }>();

  /** `work` on one client inside BEGIN … COMMIT; ROLLBACK when it throws. */
  async function withTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    // A connection that errors while checked out emits 'error': without a listener that would crash the process.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    // Whether the transaction ended with a COMMIT or ROLLBACK that completed: only then may the connection be
    // reused; otherwise (BEGIN/COMMIT/ROLLBACK failed, the connection broke) it is destroyed.
    let ended = false;
    try {
      await client.query('BEGIN');
      let result: T;
      try {
        result = await work(client);
      } catch (err) {
        await client.query('ROLLBACK').then(
          () => (ended = true),
          () => undefined,
        );
        throw err;
      }
      const commit = await client.query('COMMIT');
      ended = true;
      // COMMIT of a transaction that an error aborted (and `work` caught) is a silent ROLLBACK.
      if (commit.command === 'ROLLBACK') {
        throw new Error('the transaction was rolled back: a statement in it failed (its error was caught inside the transaction)');
      }
      return result;
    } finally {
      client.off('error', onError);
      client.release(broken ?? !ended);
    }
  }

  return {
    kind: 'postgres',

    async migrate() {
      if (closed) throw new Error('the store is closed');
      await withTransaction(async (client) => {
        // Several instances starting together: one migrates, the others wait here and then find nothing to do.
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
        await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
        const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
        for (const migration of MIGRATIONS) {
          if (applied.has(migration.version)) continue;
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [migration.version]);
        }
      });
    },

    transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error('the store is closed'));
      // A nested transaction would take a second connection and could wait forever on the outer one's locks.
      if (context.getStore()?.open) {
        return Promise.reject(new Error('store.transaction() was called inside another transaction of the same store: use the outer `tx`'));
      }
      return withTransaction(async (client) => {
        const state = { open: true };
        try {
          let TxView = viewsByClient.get(client);
          if (!TxView) viewsByClient.set(client, (TxView = transactionViews(transactionOn(client))));
          return await context.run(state, () => fn(new TxView(state)));
        } finally {
          state.open = false;
        }
      });
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
