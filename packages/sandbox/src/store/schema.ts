// The sandbox's schema, written once for node:sqlite and PostgreSQL. Its promises are constraints, so they
// hold whatever our code does and however many instances write at once:
// - idempotency (organization_id, operation_id, idem_key): one record, so one resource, per key and operation;
// - recipients_active_nickname: one ACTIVE external recipient (not a wallet) per nickname within an
//   organization (section 2);
// - recipients_unique_pix_key: one recipient per PIX key within an organization (section 7,
//   recipient_already_exists);
// - transfers (organization_id, id): a transfer id names one transfer of one organization;
// - balances: the running totals a balance read sums (a few rows per organization and currency).
// Types are ones both engines read alike (rows.ts): booleans are `boolean`, JSON is text, amounts are the
// canonical decimal string plus bigint cents.
import type { Row } from './rows.ts';

/** What differs between the engines in the DDL. */
export interface SchemaDialect {
  /** A column that orders rows by insertion (and is the table's key). */
  identity: string;
  /** How a legacy (version < 5) table orders its rows by insertion: SQLite's rowid, PostgreSQL's seq column. */
  legacyInsertionOrder: 'rowid' | 'seq';
  /** PostgreSQL's `UNLOGGED ` for a record no client was promised (the journal): a GET's row waits for no fsync, a crash empties it. */
  unlogged: string;
  /** A query of the names (`name`) of the tables the sandbox would create its own beside. */
  tableNames: string;
  /** A query of the column names (`name`) of the table named by $1, among those. */
  columnNames: string;
}

/** The database holds tables the sandbox did not create: it is refused, never written to (migrate()). */
export class NotASandboxDatabase extends Error {}

/** The version currentSchema() and upgradeFromLegacy() produce; MIGRATIONS carry it further. */
const SCHEMA_VERSION = 5;

/** The transfer statuses that debit the organization's balance (a failed or cancelled transfer moved nothing). */
export const DEBITING_STATUSES: readonly string[] = Object.freeze(['pending', 'completed']);

const TABLES = ['organizations', 'api_keys', 'recipients', 'transfers', 'resources', 'idempotency', 'faults'] as const;

function currentSchema(d: SchemaDialect): string {
  return `
    CREATE TABLE organizations (
      seq ${d.identity},
      id text NOT NULL UNIQUE,
      name text NOT NULL,
      api_access boolean NOT NULL,
      banking boolean NOT NULL,
      cards boolean NOT NULL,
      checkout boolean NOT NULL,
      wallet_transfers boolean NOT NULL,
      card_terms_accepted boolean NOT NULL,
      checkout_pix boolean NOT NULL,
      funding text NOT NULL,
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
    CREATE TABLE recipients (
      seq ${d.identity},
      id text NOT NULL UNIQUE,
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
    CREATE UNIQUE INDEX recipients_active_nickname ON recipients (organization_id, nickname) WHERE active;
    CREATE UNIQUE INDEX recipients_unique_pix_key ON recipients (organization_id, pix_key) WHERE pix_key IS NOT NULL;
    CREATE TABLE transfers (
      organization_id text NOT NULL,
      id text NOT NULL,
      recipient_id text NOT NULL,
      amount text NOT NULL,
      amount_cents bigint NOT NULL,
      currency text NOT NULL,
      status text NOT NULL,
      idempotency_key text NOT NULL,
      created_at text NOT NULL,
      PRIMARY KEY (organization_id, id)
    );
    CREATE TABLE balances (
      organization_id text NOT NULL,
      currency text NOT NULL,
      slot integer NOT NULL,
      debited_cents bigint NOT NULL,
      PRIMARY KEY (organization_id, currency, slot)
    );
    CREATE TABLE resources (
      id text PRIMARY KEY,
      organization_id text NOT NULL,
      kind text NOT NULL,
      idempotency_key text NOT NULL,
      body text NOT NULL,
      created_at text NOT NULL
    );
    CREATE INDEX resources_by_kind ON resources (kind, organization_id);
    CREATE TABLE idempotency (
      organization_id text NOT NULL,
      operation_id text NOT NULL,
      idem_key text NOT NULL,
      fingerprint text NOT NULL,
      state text NOT NULL,
      status integer,
      body text,
      resolution text,
      created_at text NOT NULL,
      PRIMARY KEY (organization_id, operation_id, idem_key)
    );
    CREATE TABLE faults (
      seq ${d.identity},
      id text NOT NULL UNIQUE,
      organization_id text,
      operation_id text NOT NULL,
      kind text NOT NULL,
      remaining integer NOT NULL,
      commit_action boolean NOT NULL,
      retry_after_seconds integer,
      resolution text,
      created_at text NOT NULL
    );
    CREATE INDEX faults_pending ON faults (operation_id) WHERE remaining > 0;
  `;
}

/** Columns carried over from a legacy table (every column it had but its own seq). */
const LEGACY_COLUMNS: Record<(typeof TABLES)[number], string> = {
  organizations: 'id, name, api_access, banking, cards, checkout, wallet_transfers, card_terms_accepted, checkout_pix, funding, created_at',
  api_keys: 'id, organization_id, hash, prefix, created_at, revoked_at',
  recipients: 'id, organization_id, nickname, rail, pix_key, destination_address, active, source, idempotency_key, created_at',
  transfers: 'organization_id, id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at',
  resources: 'id, organization_id, kind, idempotency_key, body, created_at',
  idempotency: 'organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at',
  faults: 'id, organization_id, operation_id, kind, remaining, commit_action, retry_after_seconds, resolution, created_at',
};

/** JSON columns were `json` on PostgreSQL before version 5: carried over as their text. */
const asText = (columns: string) => columns.replace(/\b(funding|body)\b/g, 'CAST($1 AS text)');

/**
 * Carries a database of schema versions 1–4 (the same tables, without the unique indexes and the balances)
 * forward, every row kept in its insertion order, and sums the running balances once.
 */
function upgradeFromLegacy(d: SchemaDialect): string {
  const order = (table: string) =>
    table === 'faults' ? 'seq' : d.legacyInsertionOrder === 'rowid' ? 'rowid' : ['organizations', 'recipients'].includes(table) ? 'seq' : 'created_at';
  const renames = TABLES.map((t) => `ALTER TABLE ${t} RENAME TO legacy_${t};`).join('\n');
  const copies = TABLES.map((t) => `INSERT INTO ${t} (${LEGACY_COLUMNS[t]}) SELECT ${asText(LEGACY_COLUMNS[t])} FROM legacy_${t} ORDER BY ${order(t)};`).join('\n');
  const drops = TABLES.map((t) => `DROP TABLE legacy_${t};`).join('\n');
  return `
    ${renames}
    ${currentSchema(d)}
    ${copies}
    INSERT INTO balances (organization_id, currency, slot, debited_cents)
      SELECT organization_id, currency, 0, SUM(amount_cents) FROM transfers
      WHERE status IN (${DEBITING_STATUSES.map((s) => `'${s}'`).join(', ')}) GROUP BY organization_id, currency;
    ${drops}
    DROP TABLE IF EXISTS rate_limits;
  `;
}

/** Changes after version 5, in order: a database gets each one above its version, in migrate()'s transaction. */
export const MIGRATIONS: readonly { version: number; sql: (d: SchemaDialect) => string }[] = [
  {
    // Issue 13: per-organization test clocks and the traffic journal.
    // - organizations.clock_ms: the organization's frozen clock (epoch ms); NULL runs on real time. Stored
    //   here because every instance on one PostgreSQL database reads the organization with each request.
    // - organizations.journal_dropped: entries the journal cap removed (the trim adds to it in the
    //   transaction that deletes them, so a reader never counts a row twice or not at all).
    // - journal: one row per API request of an organization (pipeline/journal.ts), what it meant for
    //   idempotency; never the API key. An answer was sent exactly when it has a status.
    version: 6,
    sql: (d) => `
      ALTER TABLE organizations ADD COLUMN clock_ms bigint;
      ALTER TABLE organizations ADD COLUMN journal_dropped bigint NOT NULL DEFAULT 0;
      CREATE ${d.unlogged}TABLE journal (
        seq ${d.identity},
        organization_id text NOT NULL,
        at_ms bigint NOT NULL,
        operation_id text NOT NULL,
        idem_key text,
        identity text NOT NULL,
        body text,
        status integer,
        code text,
        resource_status text,
        retry_after_seconds integer,
        fault text,
        answered boolean NOT NULL,
        CHECK (answered = (status IS NOT NULL))
      );
      CREATE INDEX journal_by_organization ON journal (organization_id, seq);
    `,
  },
  {
    // Section 2: a nickname is unique among the organization's active EXTERNAL recipients (BRL PIX, USD ACH,
    // USD Wire); a wallet recipient's nickname takes none of theirs (before: among all active recipients).
    version: 7,
    sql: () => `
      DROP INDEX recipients_active_nickname;
      CREATE UNIQUE INDEX recipients_active_nickname ON recipients (organization_id, nickname) WHERE active AND rail <> 'wallet';
    `,
  },
];

/** Brings the database to the newest version, recording each; `db`: inside the transaction migrate() runs in. */
export async function migrate(db: MigrationConnection, d: SchemaDialect): Promise<void> {
  await refuseForeignTables(db, d);
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)');
  const [row] = await db.query('SELECT MAX(version) AS version FROM schema_migrations');
  const version = Number(row?.version ?? 0);
  const steps = MIGRATIONS.filter((m) => m.version > Math.max(version, SCHEMA_VERSION));
  if (version < SCHEMA_VERSION) steps.unshift({ version: SCHEMA_VERSION, sql: version === 0 ? currentSchema : upgradeFromLegacy });
  for (const step of steps) {
    await db.exec(step.sql(d));
    await db.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [step.version, new Date().toISOString()]);
  }
}

type MigrationConnection = { exec(script: string): unknown; query(sql: string, values?: unknown[]): Promise<Row[]> | Row[] };

/**
 * Refuses a database that is not the sandbox's: another program's schema_migrations (golang-migrate's, Rails'…)
 * would have its versions read as ours and our migrations skipped, and tables beside ours would be written
 * into (QA). Ours (since version 1, on both engines) has exactly the columns version and applied_at.
 */
async function refuseForeignTables(db: MigrationConnection, d: SchemaDialect): Promise<void> {
  const tables = (await db.query(d.tableNames)).map((r) => String(r.name));
  if (tables.includes('schema_migrations')) {
    const columns = (await db.query(d.columnNames, ['schema_migrations'])).map((r) => String(r.name)).sort();
    if (columns.join() === 'applied_at,version') return;
    throw new NotASandboxDatabase(`it has a schema_migrations table the sandbox did not create (columns ${columns.join(', ')}): give the sandbox a database of its own`);
  }
  if (tables.length > 0) {
    const named = tables.sort().slice(0, 5).join(', ') + (tables.length > 5 ? ', …' : '');
    throw new NotASandboxDatabase(`it already has tables the sandbox did not create (${named}): give the sandbox a database of its own`);
  }
}
