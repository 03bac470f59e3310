// The store's operations, written once in SQL both engines read alike ($1… placeholders; sqlite.ts rewrites
// them to ?1…), over an Engine: what runs one statement on the transaction's connection, and the dialect.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fromCents, storedCents } from '../money.ts';
import { API_KEYS, FAULTS, IDEMPOTENCY, JOURNAL, ORGANIZATIONS, RECIPIENTS, RESOURCES, TRANSFERS, type Row, type SqlValue, type Table } from './rows.ts';
import { DEBITING_STATUSES } from './schema.ts';
import { ConstraintViolation, KEY_TAKEN, UnstorableText, type Caller, type Transaction } from './types.ts';

export type Sql = (sql: string, values?: readonly SqlValue[]) => Promise<Row[]>;
/** Sends a write without waiting for it (PostgreSQL's pipeline): its failure, as `translate` maps it, fails the COMMIT. */
export type Send = (sql: string, values: readonly SqlValue[], translate?: (err: unknown) => unknown) => void;

/** The running totals of the organizations `where` picks, per currency; SUM is exact on both engines, read as text. */
export const debitedTotalsOf = (where: string) =>
  `SELECT organization_id, currency, CAST(SUM(debited_cents) AS text) AS cents FROM balances WHERE ${where} GROUP BY organization_id, currency ORDER BY organization_id, currency`;

/** One organization's totals from debitedTotalsOf's rows, as decimal strings (a currency that adds up to zero left out). */
export function debitedTotalsFrom(rows: readonly Row[], organizationId: string): Record<string, string> {
  const totals: Record<string, string> = {};
  for (const row of rows) {
    const cents = BigInt(String(row.cents));
    if (row.organization_id === organizationId && cents !== 0n) totals[String(row.currency)] = fromCents(cents);
  }
  return totals;
}

// Statements every request runs, made once: a statement's text is the key of the engines' caches of
// prepared statements, and a text built anew for each call is hashed anew for each lookup.
const DEBITED_TOTALS = debitedTotalsOf('organization_id = $1');
const READ_IDEMPOTENCY = 'SELECT * FROM idempotency WHERE organization_id = $1 AND operation_id = $2 AND idem_key = $3';
const CLAIM_IDEMPOTENCY = `${IDEMPOTENCY.insert} ON CONFLICT (organization_id, operation_id, idem_key) DO NOTHING RETURNING 1 AS claimed`;
const GET_TRANSFER = `SELECT ${TRANSFERS.columns} FROM transfers WHERE organization_id = $1 AND id = $2`;

/**
 * The trim of one organization's journal to its newest $2 rows, answering `n`, the rows it deleted (on SQLite
 * the second statement answers it). The organization is a range (BETWEEN $1 AND $1) so that only the
 * (organization_id, seq) index serves the scans: with `= $1`, PostgreSQL's generic plans walked the primary
 * key through every organization's rows (10,000 kept of 12,000: 21 ms at 96,000 rows in all, 83 ms at
 * 768,000; now 5–6 ms).
 * - PostgreSQL (`forUpdate`): rows are locked in seq order, and one another trim holds is left to it (two
 *   DELETEs deadlocked, each locking in its own plan's order), so each trim counts only the rows it deleted.
 *   They are counted in the statement: no row per deleted entry comes back.
 * - SQLite: the batch's write lock holds the whole database, so a plain DELETE, counted by changes(). Its
 *   RETURNING and lock-ordering subquery took 2.6 ms a trim of 1,000 rows; without them, 1.0 ms.
 */
export function trimJournalSql(forUpdate: string): [trim: string, count?: string] {
  const cutoff = 'cutoff AS (SELECT seq FROM journal WHERE organization_id BETWEEN $1 AND $1 ORDER BY organization_id DESC, seq DESC LIMIT 1 OFFSET $2)';
  const older = 'organization_id BETWEEN $1 AND $1 AND seq <= (SELECT seq FROM cutoff)';
  if (!forUpdate) return [`WITH ${cutoff} DELETE FROM journal WHERE ${older}`, 'SELECT changes() AS n'];
  const inOrder = `SELECT seq FROM journal WHERE ${older} ORDER BY seq${forUpdate} SKIP LOCKED`;
  return [`WITH ${cutoff}, gone AS (DELETE FROM journal WHERE ${older} AND seq IN (${inOrder}) RETURNING 1) SELECT COUNT(*) AS n FROM gone`];
}

const debits = (status: string): boolean => DEBITING_STATUSES.includes(status);

/**
 * Where a transaction's `fn` runs: a store.transaction() from inside it would wait for itself (SQLite's queue,
 * PostgreSQL's locks), so it is refused; work left behind (a timer) runs once it has ended, and may open one.
 */
const runningTransaction = new AsyncLocalStorage<{ open: boolean }>();

export function refuseNested(): void {
  if (runningTransaction.getStore()?.open) throw new Error('store.transaction() was called inside another transaction of the same store: use the outer `tx`');
}

export interface Engine {
  sql: Sql;
  /** Appended to a SELECT whose rows must stay as read until the transaction ends (PostgreSQL's row lock; SQLite's write lock already holds the whole database). */
  forUpdate: string;
  /** The name of the unique constraint a failed statement broke, if that is why it failed. */
  violatedConstraint(err: unknown): string | undefined;
  /** Which of a balance's rows this transaction adds to: one per PostgreSQL connection, so transfers never wait on each other's. */
  balanceSlot?: number;
  send?: Send | undefined;
  /** Operations the engine runs its own way (PostgreSQL's GETs: in the statements of their event-loop turn). */
  batched?: Pick<Transaction, 'debitedTotals' | 'appendJournal'>;
}
export type Dialect = Pick<Engine, 'forUpdate' | 'violatedConstraint'>;

/** Runs `fn` on the engine's operations, which throw once `fn` has settled (a tx kept too long is refused). */
export async function runTransaction<T>(fn: (tx: Transaction) => Promise<T>, engine: Engine): Promise<T> {
  const state = { open: true };
  const whileOpen = <A extends unknown[], R>(f: (...a: A) => R) => (...a: A): R => {
    if (!state.open) throw new Error('a tx used after its transaction ended');
    return f(...a);
  };
  const tx = sqlTransaction({ ...engine, sql: whileOpen(engine.sql), send: engine.send && whileOpen(engine.send) });
  if (engine.batched) Object.assign(tx, { debitedTotals: whileOpen(engine.batched.debitedTotals), appendJournal: whileOpen(engine.batched.appendJournal) });
  try {
    return await runningTransaction.run(state, () => fn(tx));
  } finally {
    state.open = false;
  }
}

/** Text no store keeps as written: U+0000 (PostgreSQL's `text` refuses it) or an unpaired surrogate (UTF-8 has none: stored as U+FFFD). */
const unstorableText = (v: unknown): boolean => typeof v === 'string' && (v.includes('\0') || !v.isWellFormed());
const holdsUnstorable = (values: readonly SqlValue[] = []): boolean => values.some((v) => unstorableText(v) || (Array.isArray(v) && v.some(unstorableText)));

/**
 * A statement with a parameter holding text no store keeps (QA: PostgreSQL answered NUL with a 500; an
 * unpaired surrogate became U+FFFD, so "x\uD800" and "x\uDBFF" were one nickname): since no stored text holds
 * one, a read, UPDATE or DELETE by it finds no row (an unknown id is the operation's 404 on both stores), and
 * an INSERT of it is refused (UnstorableText). An UPDATE's new values are checked by update().
 */
const withUnstorable = (statement: string): Promise<Row[]> => (/^\s*INSERT\b/i.test(statement) ? Promise.reject(new UnstorableText()) : Promise.resolve([]));

function sqlTransaction({ sql: runOnEngine, forUpdate, violatedConstraint, balanceSlot = 0, send }: Engine): Transaction {
  const sql: Sql = (statement, values) => (holdsUnstorable(values) ? withUnstorable(statement) : runOnEngine(statement, values));
  const run = async (statement: string, values?: readonly SqlValue[]) => void (await sql(statement, values));
  const all = async <T extends object>(table: Table<T>, statement: string, values?: readonly SqlValue[]) => (await sql(statement, values)).map((row) => table.read(row));
  const first = async <T extends object>(table: Table<T>, statement: string, values: readonly SqlValue[]) => (await all(table, statement, values))[0];
  const count = async (statement: string, values: readonly SqlValue[]) => Number((await sql(statement, values))[0]?.n ?? 0);
  /** A unique index's refusal as a ConstraintViolation naming the index (or `as`); any other error as is. */
  const violation = (err: unknown, as?: string) => {
    const constraint = violatedConstraint(err);
    return constraint ? new ConstraintViolation(as ?? constraint, err) : err;
  };
  /** A write that a unique index may refuse: the refusal becomes a ConstraintViolation naming the index. */
  const guarded = (statement: string, values: readonly SqlValue[]) => sql(statement, values).catch((err: unknown) => Promise.reject(violation(err)));
  /** A write whose rows nobody reads: sent without waiting where the engine can (`send`), else run. */
  const write = async (statement: string, values: readonly SqlValue[], translate?: (err: unknown) => unknown) => {
    if (send) {
      if (holdsUnstorable(values)) throw new UnstorableText(); // sql() checks the statements it runs itself
      return send(statement, values, translate);
    }
    await sql(statement, values).catch((err: unknown) => Promise.reject(translate ? translate(err) : err));
  };
  /** Adds `cents` (may be negative) to the organization's running total of debits in `currency`. */
  const addToBalance = (organizationId: string, currency: string, cents: bigint) =>
    write(
      `INSERT INTO balances (organization_id, currency, slot, debited_cents) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, currency, slot) DO UPDATE SET debited_cents = balances.debited_cents + excluded.debited_cents`,
      [organizationId, currency, balanceSlot, cents.toString()],
    );

  /** The row `where` picks (by `keys`: $1…) with the defined fields of `patch` written; a unique index's refusal as a ConstraintViolation. */
  const update = async <T extends object>(table: Table<T>, where: string, keys: SqlValue[], patch: NoInfer<Partial<T>>) => {
    const set = table.set(patch, keys.length + 1);
    if (holdsUnstorable(set.values)) throw new UnstorableText();
    const [row] = await guarded(set.sql ? `UPDATE ${table.name} SET ${set.sql} WHERE ${where} RETURNING *` : `SELECT * FROM ${table.name} WHERE ${where}`, [...keys, ...set.values]);
    return row && table.read(row);
  };

  const tx: Transaction = {
    pipelined: send !== undefined,
    insertOrganization: async (o) => void (await guarded(ORGANIZATIONS.insert, ORGANIZATIONS.values(o))),
    getOrganization: (id) => first(ORGANIZATIONS, 'SELECT * FROM organizations WHERE id = $1', [id]),
    updateOrganization: (id, patch) => update(ORGANIZATIONS, 'id = $1', [id], patch),
    listOrganizations: () => all(ORGANIZATIONS, 'SELECT * FROM organizations ORDER BY created_at, seq'),

    insertApiKey: (k) => run(API_KEYS.insert, API_KEYS.values(k)),
    getApiKey: (id) => first(API_KEYS, 'SELECT * FROM api_keys WHERE id = $1', [id]),
    listApiKeys: (organizationId) => all(API_KEYS, 'SELECT * FROM api_keys WHERE organization_id = $1 ORDER BY created_at, id', [organizationId]),
    // A key revoked twice keeps its first revocation time.
    revokeApiKey: (id, at) => first(API_KEYS, 'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING *', [id, at]),

    insertRecipient: async (r) => void (await guarded(RECIPIENTS.insert, RECIPIENTS.values(r))),
    getRecipient: (organizationId, id) => first(RECIPIENTS, 'SELECT * FROM recipients WHERE organization_id = $1 AND id = $2', [organizationId, id]),
    findActiveRecipientByNickname: (organizationId, nickname) =>
      first(RECIPIENTS, "SELECT * FROM recipients WHERE organization_id = $1 AND nickname = $2 AND active AND rail <> 'wallet'", [organizationId, nickname]),
    findRecipientByPixKey: (organizationId, pixKey) => first(RECIPIENTS, 'SELECT * FROM recipients WHERE organization_id = $1 AND pix_key = $2', [organizationId, pixKey]),
    updateRecipient: (organizationId, id, patch) => update(RECIPIENTS, 'organization_id = $1 AND id = $2', [organizationId, id], patch),

    async insertTransfer(t) {
      const cents = storedCents(t.amount);
      await write(TRANSFERS.insert, TRANSFERS.values(t, [cents.toString()]));
      if (debits(t.status)) await addToBalance(t.organizationId, t.currency, cents);
    },
    getTransfer: (organizationId, id) => first(TRANSFERS, GET_TRANSFER, [organizationId, id]),
    async updateTransferStatus(organizationId, id, status) {
      const [before] = await sql(`SELECT status FROM transfers WHERE organization_id = $1 AND id = $2${forUpdate}`, [organizationId, id]);
      if (!before) return undefined;
      const after = (await first(TRANSFERS, `UPDATE transfers SET status = $3 WHERE organization_id = $1 AND id = $2 RETURNING ${TRANSFERS.columns}`, [organizationId, id, status]))!;
      const change = Number(debits(status)) - Number(debits(String(before.status)));
      if (change !== 0) await addToBalance(organizationId, after.currency, BigInt(change) * storedCents(after.amount));
      return after;
    },
    debitedTotals: async (organizationId) => debitedTotalsFrom(await sql(DEBITED_TOTALS, [organizationId]), organizationId),
    countTransfers: (organizationId) =>
      organizationId === undefined ? count('SELECT COUNT(*) AS n FROM transfers', []) : count('SELECT COUNT(*) AS n FROM transfers WHERE organization_id = $1', [organizationId]),

    insertResource: (r) => write(RESOURCES.insert, RESOURCES.values(r)),
    countResources: (kind, organizationId) =>
      organizationId === undefined
        ? count('SELECT COUNT(*) AS n FROM resources WHERE kind = $1', [kind])
        : count('SELECT COUNT(*) AS n FROM resources WHERE kind = $1 AND organization_id = $2', [kind, organizationId]),

    async claimIdempotency(r) {
      // The primary key decides: a concurrent claim waits here until this transaction ends, then reads the row.
      if ((await sql(CLAIM_IDEMPOTENCY, IDEMPOTENCY.values(r))).length === 1) return undefined;
      const current = await tx.readIdempotency(r.organizationId, r.operationId, r.key);
      if (!current) throw new Error(`idempotency record (${r.organizationId}, ${r.operationId}, ${r.key}) conflicted but cannot be read`);
      return current;
    },
    async readIdempotency(organizationId, operationId, key) {
      // A finished record never changes: a replay reads it as it is (no lock, nothing written).
      const existing = await first(IDEMPOTENCY, READ_IDEMPOTENCY, [organizationId, operationId, key]);
      return !existing || existing.state === 'done' ? existing : tx.findIdempotency(organizationId, operationId, key);
    },
    // The table's only unique key is the primary key: any refusal means the key is taken.
    insertIdempotency: (r) => write(IDEMPOTENCY.insert, IDEMPOTENCY.values(r), (err) => violation(err, KEY_TAKEN)),
    findIdempotency: (organizationId, operationId, key) => first(IDEMPOTENCY, READ_IDEMPOTENCY + forUpdate, [organizationId, operationId, key]),
    async updateIdempotency(organizationId, operationId, key, patch) {
      const keys = [organizationId, operationId, key];
      // Every field given (an undefined body too), so one statement text.
      const updated = await update(IDEMPOTENCY, 'organization_id = $1 AND operation_id = $2 AND idem_key = $3', keys, { ...patch, body: patch.body ?? null });
      if (!updated) throw new Error(`no idempotency record (${keys.join(', ')}) to update`);
    },

    insertFault: (f) => run(FAULTS.insert, FAULTS.values(f)),
    takeFault: (organizationId, operationId) =>
      // The picked row is locked and re-checked: concurrent takers wait for each other, so "remaining: 3" faults exactly 3 requests.
      first(
        FAULTS,
        `UPDATE faults SET remaining = remaining - 1
         WHERE seq = (
           SELECT seq FROM faults
           WHERE operation_id = $2 AND remaining > 0 AND (organization_id = $1 OR organization_id IS NULL)
           ORDER BY organization_id IS NULL, created_at, seq
           LIMIT 1${forUpdate}
         ) AND remaining > 0
         RETURNING *`,
        [organizationId, operationId],
      ),
    listFaults: () => all(FAULTS, 'SELECT * FROM faults ORDER BY created_at, seq'),
    clearFaults: () => run('DELETE FROM faults'),

    setClock: (organizationId, ms) => first(ORGANIZATIONS, 'UPDATE organizations SET clock_ms = $2 WHERE id = $1 RETURNING *', [organizationId, ms]),
    advanceClock: (organizationId, ms) =>
      first(ORGANIZATIONS, 'UPDATE organizations SET clock_ms = clock_ms + $2 WHERE id = $1 AND clock_ms IS NOT NULL RETURNING *', [organizationId, ms]),

    appendJournal: (organizationId, e) => write(JOURNAL.insert, JOURNAL.values(e, [organizationId])),
    async trimJournal(organizationId, keep) {
      const [trim, count] = trimJournalSql(forUpdate);
      let [answer] = await sql(trim, [organizationId, keep]);
      if (count) [answer] = await sql(count);
      const deleted = Number(answer?.n ?? 0);
      if (deleted) await run('UPDATE organizations SET journal_dropped = journal_dropped + $2 WHERE id = $1', [organizationId, deleted]);
      return deleted;
    },
    async readJournal(organizationId, keep) {
      const rows = await sql('SELECT * FROM journal WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2', [organizationId, keep]);
      const [counts] = await sql(
        'SELECT journal_dropped AS dropped, (SELECT COUNT(*) FROM journal WHERE organization_id = $1) AS stored FROM organizations WHERE id = $1',
        [organizationId],
      );
      return { entries: rows.reverse().map((row) => JOURNAL.read(row)), dropped: Number(counts?.dropped ?? 0) + Math.max(0, Number(counts?.stored ?? 0) - keep) };
    },
  };
  return tx;
}

/**
 * Store.findCaller's statement; `hash` and `operation` are SQL expressions: parameters for one lookup, or the
 * columns of the unnest through which postgres-per-turn.ts looks a turn's callers up at once.
 */
export const findCallerSql = (hash: string, operation: string) =>
  `SELECT ${hash} AS asked_hash, ${operation} AS asked_operation, k.id AS key_id, k.organization_id, k.hash, k.prefix, k.created_at AS key_created_at, k.revoked_at, o.*,
     EXISTS (SELECT 1 FROM faults f WHERE f.operation_id = ${operation} AND f.remaining > 0
             AND (f.organization_id = k.organization_id OR f.organization_id IS NULL)) AS fault_pending
   FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.hash = ${hash}`;

export const toCaller = (r: Row): Caller => ({
  key: { id: String(r.key_id), organizationId: String(r.organization_id), hash: String(r.hash), prefix: String(r.prefix), createdAt: String(r.key_created_at), revokedAt: r.revoked_at as string | null },
  organization: ORGANIZATIONS.read(r),
  faultPending: Boolean(r.fault_pending),
});
