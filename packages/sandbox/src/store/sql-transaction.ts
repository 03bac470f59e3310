// The store's operations, written once in SQL both engines read alike ($1… placeholders; sqlite.ts rewrites
// them to ?1…), with the row mapping. Each engine hands over a `Sql` that runs one statement on its
// transaction's connection and a few dialect parameters.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fromCents, storedCents } from '../money.ts';
import type { JournalEntry } from '../audit/journal.ts';
import { DEBITING_STATUSES } from './schema.ts';
import {
  ConstraintViolation,
  KEY_TAKEN,
  type ApiKeyRecord,
  type Caller,
  type FaultRecord,
  type IdempotencyRecord,
  type Organization,
  type RecipientRecord,
  type Transaction,
  type TransferRecord,
  type TransferStatus,
} from './types.ts';

export type Row = Record<string, unknown>;

/** Runs one statement of the transaction, returning its rows. */
export type Sql = (sql: string, values?: readonly SqlValue[]) => Promise<Row[]>;
/**
 * Sends a write whose rows nobody reads without waiting for it (PostgreSQL's pipeline): its failure, as
 * `translate` maps it, fails the transaction at COMMIT, which it turns into a ROLLBACK.
 */
export type Send = (sql: string, values: readonly SqlValue[], translate?: (err: unknown) => unknown) => void;
/** A parameter; arrays are PostgreSQL's (the batched statements of postgres.ts). */
export type SqlValue = string | number | bigint | null | readonly (string | number | null)[];

export interface Dialect {
  /** Appended to a SELECT whose rows must stay as read until the transaction ends (PostgreSQL's row lock; SQLite's write lock already holds the whole database). */
  forUpdate: string;
  /** Appended to a SELECT that locks the rows it returns except those another transaction holds, which it leaves out without waiting (PostgreSQL); empty on SQLite. */
  skipLocked: string;
  /** The name of the unique constraint a failed statement broke, if that is why it failed. */
  violatedConstraint(err: unknown): string | undefined;
}

const bool = (value: boolean): number => (value ? 1 : 0);
const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const parse = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.parse(String(value)));
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
/** Integers arrive as number (SQLite) or number/string (PostgreSQL int4/int8). */
const int = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

const toOrganization = (r: Row): Organization => ({
  id: String(r.id),
  name: String(r.name),
  apiAccess: Boolean(r.api_access),
  banking: Boolean(r.banking),
  cards: Boolean(r.cards),
  checkout: Boolean(r.checkout),
  walletTransfers: Boolean(r.wallet_transfers),
  cardTermsAccepted: Boolean(r.card_terms_accepted),
  checkoutPix: Boolean(r.checkout_pix),
  funding: parse(r.funding) as Record<string, string>,
  createdAt: String(r.created_at),
  ...(r.clock_ms === null || r.clock_ms === undefined ? {} : { clockMs: Number(r.clock_ms) }), // absent on real time
});

const toJournalEntry = (r: Row): JournalEntry => {
  const entry: JournalEntry = {
    at: Number(r.at_ms),
    operationId: String(r.operation_id),
    idempotencyKey: text(r.idem_key),
    identity: String(r.identity),
    status: int(r.status),
    code: text(r.code),
    resourceStatus: text(r.resource_status),
    retryAfterSeconds: int(r.retry_after_seconds),
    fault: text(r.fault),
    answered: Boolean(r.answered),
  };
  if (r.body !== null && r.body !== undefined) entry.body = JSON.parse(String(r.body));
  return entry;
};

const toApiKey = (r: Row): ApiKeyRecord => ({
  id: String(r.id),
  organizationId: String(r.organization_id),
  hash: String(r.hash),
  prefix: String(r.prefix),
  createdAt: String(r.created_at),
  revokedAt: text(r.revoked_at),
});

const toRecipient = (r: Row): RecipientRecord => ({
  id: String(r.id),
  organizationId: String(r.organization_id),
  nickname: String(r.nickname),
  rail: r.rail as RecipientRecord['rail'],
  pixKey: text(r.pix_key),
  destinationAddress: text(r.destination_address),
  active: Boolean(r.active),
  source: r.source as RecipientRecord['source'],
  idempotencyKey: text(r.idempotency_key),
  createdAt: String(r.created_at),
});

const toTransfer = (r: Row): TransferRecord => ({
  id: String(r.id),
  organizationId: String(r.organization_id),
  recipientId: String(r.recipient_id),
  amount: String(r.amount),
  currency: String(r.currency),
  status: r.status as TransferStatus,
  idempotencyKey: String(r.idempotency_key),
  createdAt: String(r.created_at),
});

const toIdempotency = (r: Row): IdempotencyRecord => ({
  organizationId: String(r.organization_id),
  operationId: String(r.operation_id),
  key: String(r.idem_key),
  fingerprint: String(r.fingerprint),
  state: r.state as IdempotencyRecord['state'],
  status: int(r.status),
  body: parse(r.body),
  resolution: text(r.resolution),
  createdAt: String(r.created_at),
});

const toFault = (r: Row): FaultRecord => ({
  id: String(r.id),
  organizationId: text(r.organization_id),
  operationId: String(r.operation_id),
  kind: r.kind as FaultRecord['kind'],
  remaining: Number(r.remaining),
  commit: Boolean(r.commit_action),
  retryAfterSeconds: int(r.retry_after_seconds),
  resolution: text(r.resolution),
  createdAt: String(r.created_at),
});

/** Fields a patch may change → column and stored value. */
type Patchable = Record<string, [column: string, encode: (value: never) => SqlValue]>;

const ORGANIZATION_PATCH: Patchable = {
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

const RECIPIENT_PATCH: Patchable = {
  active: ['active', bool],
  nickname: ['nickname', (v: string) => v],
};

/** `a = $n, b = $n+1` and its values for the known, defined fields of `patch`; placeholders start at `first`. */
function setClause(patch: object, fields: Patchable, first: number): { sql: string; values: SqlValue[] } {
  const parts: string[] = [];
  const values: SqlValue[] = [];
  for (const [name, value] of Object.entries(patch)) {
    const field = fields[name];
    if (!field || value === undefined) continue;
    values.push(field[1](value as never));
    parts.push(`${field[0]} = $${first + values.length - 1}`);
  }
  return { sql: parts.join(', '), values };
}

/** The journal's columns, and what an entry puts in them (also postgres.ts's insert of several entries). */
export const JOURNAL_COLUMNS = 'organization_id, at_ms, operation_id, idem_key, identity, body, status, code, resource_status, retry_after_seconds, fault, answered';
export const journalValues = (organizationId: string, e: JournalEntry): SqlValue[] =>
  [organizationId, e.at, e.operationId, e.idempotencyKey, e.identity, json(e.body), e.status, e.code, e.resourceStatus, e.retryAfterSeconds, e.fault, bool(e.answered)];

/** The running totals of the organizations `where` picks, per currency; SUM is exact on both (SQLite: 64-bit integers; PostgreSQL: numeric), read as text. */
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
const APPEND_JOURNAL = `INSERT INTO journal (${JOURNAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
const READ_IDEMPOTENCY = 'SELECT * FROM idempotency WHERE organization_id = $1 AND operation_id = $2 AND idem_key = $3';
const INSERT_IDEMPOTENCY = `INSERT INTO idempotency (organization_id, operation_id, idem_key, fingerprint, state, status, body, resolution, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** A transfer's columns but its cents (kept for sums; beyond 2^53 SQLite cannot hand them over as a number). */
const TRANSFER = 'organization_id, id, recipient_id, amount, currency, status, idempotency_key, created_at';
const GET_TRANSFER = `SELECT ${TRANSFER} FROM transfers WHERE organization_id = $1 AND id = $2`;

const debits = (status: string): boolean => DEBITING_STATUSES.includes(status);

/**
 * Where a transaction's `fn` runs: a store.transaction() called from inside it would wait for itself
 * (SQLite's queue) or for a second connection blocked by the first one's locks (PostgreSQL), so it is
 * refused. Work the transaction leaves behind (a timer) runs once it has ended, and may open its own.
 */
export const runningTransaction = new AsyncLocalStorage<{ open: boolean }>();

export function refuseNested(): void {
  if (runningTransaction.getStore()?.open) throw new Error('store.transaction() was called inside another transaction of the same store: use the outer `tx`');
}

/**
 * The operations on one transaction's statements. `balanceSlot`: which of the rows a balance is split into
 * (per organization and currency) this transaction adds its transfers to; PostgreSQL gives each pooled
 * connection its own, so concurrent transfers of one organization never wait for each other's row lock
 * until COMMIT; SQLite has a single writer and one row.
 */
export function sqlTransaction(sql: Sql, dialect: Dialect, balanceSlot = 0, send?: Send): Transaction {
  const one = async (statement: string, values?: readonly SqlValue[]) => (await sql(statement, values))[0];
  /** A unique index's refusal as a ConstraintViolation naming the index (or `as`); any other error as is. */
  const violation = (err: unknown, as?: string) => {
    const constraint = dialect.violatedConstraint(err);
    return constraint ? new ConstraintViolation(as ?? constraint, err) : err;
  };
  /** A write that a unique index may refuse: the refusal becomes a ConstraintViolation naming the index. */
  const guarded = (statement: string, values: readonly SqlValue[]) => sql(statement, values).catch((err: unknown) => Promise.reject(violation(err)));
  /** A write whose rows nobody reads: sent without waiting where the engine can (`send`), else run. */
  const write = async (statement: string, values: readonly SqlValue[], translate?: (err: unknown) => unknown) => {
    if (send) return send(statement, values, translate);
    await sql(statement, values).catch((err: unknown) => Promise.reject(translate ? translate(err) : err));
  };
  /** Adds `cents` (may be negative) to the organization's running total of debits in `currency`. */
  const addToBalance = (organizationId: string, currency: string, cents: bigint) =>
    write(
      `INSERT INTO balances (organization_id, currency, slot, debited_cents) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, currency, slot) DO UPDATE SET debited_cents = balances.debited_cents + excluded.debited_cents`,
      [organizationId, currency, balanceSlot, cents.toString()],
    );

  const readIdempotency = async (organizationId: string, operationId: string, key: string, lock: string) => {
    const row = await one(lock ? READ_IDEMPOTENCY + lock : READ_IDEMPOTENCY, [organizationId, operationId, key]);
    return row && toIdempotency(row);
  };
  const idempotencyValues = (r: IdempotencyRecord): SqlValue[] => [r.organizationId, r.operationId, r.key, r.fingerprint, r.state, r.status, json(r.body), r.resolution, r.createdAt];

  const tx: Transaction = {
    // organizations
    async insertOrganization(o) {
      await sql(
        `INSERT INTO organizations (id, name, api_access, banking, cards, checkout, wallet_transfers, card_terms_accepted, checkout_pix, funding, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [o.id, o.name, bool(o.apiAccess), bool(o.banking), bool(o.cards), bool(o.checkout), bool(o.walletTransfers), bool(o.cardTermsAccepted), bool(o.checkoutPix), JSON.stringify(o.funding), o.createdAt],
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
      return (await sql('SELECT * FROM organizations ORDER BY created_at, seq')).map(toOrganization);
    },

    // API keys
    async insertApiKey(k) {
      await sql('INSERT INTO api_keys (id, organization_id, hash, prefix, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        k.id, k.organizationId, k.hash, k.prefix, k.createdAt, k.revokedAt,
      ]);
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
    async insertRecipient(r) {
      await guarded(
        `INSERT INTO recipients (id, organization_id, nickname, rail, pix_key, destination_address, active, source, idempotency_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [r.id, r.organizationId, r.nickname, r.rail, r.pixKey, r.destinationAddress, bool(r.active), r.source, r.idempotencyKey, r.createdAt],
      );
    },
    async getRecipient(organizationId, id) {
      const row = await one('SELECT * FROM recipients WHERE organization_id = $1 AND id = $2', [organizationId, id]);
      return row && toRecipient(row);
    },
    async findActiveRecipientByNickname(organizationId, nickname) {
      const row = await one('SELECT * FROM recipients WHERE organization_id = $1 AND nickname = $2 AND active', [organizationId, nickname]);
      return row && toRecipient(row);
    },
    async findRecipientByPixKey(organizationId, pixKey) {
      const row = await one('SELECT * FROM recipients WHERE organization_id = $1 AND pix_key = $2', [organizationId, pixKey]);
      return row && toRecipient(row);
    },
    async updateRecipient(organizationId, id, patch) {
      const set = setClause(patch, RECIPIENT_PATCH, 3);
      if (!set.sql) return tx.getRecipient(organizationId, id);
      const [row] = await guarded(`UPDATE recipients SET ${set.sql} WHERE organization_id = $1 AND id = $2 RETURNING *`, [organizationId, id, ...set.values]);
      return row && toRecipient(row);
    },

    // transfers
    async insertTransfer(t) {
      const cents = storedCents(t.amount);
      await write(
        `INSERT INTO transfers (organization_id, id, recipient_id, amount, amount_cents, currency, status, idempotency_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [t.organizationId, t.id, t.recipientId, t.amount, cents.toString(), t.currency, t.status, t.idempotencyKey, t.createdAt],
      );
      if (debits(t.status)) await addToBalance(t.organizationId, t.currency, cents);
    },
    async getTransfer(organizationId, id) {
      const row = await one(GET_TRANSFER, [organizationId, id]);
      return row && toTransfer(row);
    },
    async updateTransferStatus(organizationId, id, status) {
      const before = await one(`SELECT status FROM transfers WHERE organization_id = $1 AND id = $2${dialect.forUpdate}`, [organizationId, id]);
      if (!before) return undefined;
      const row = (await one(`UPDATE transfers SET status = $3 WHERE organization_id = $1 AND id = $2 RETURNING ${TRANSFER}`, [organizationId, id, status]))!;
      const change = Number(debits(status)) - Number(debits(String(before.status)));
      if (change !== 0) await addToBalance(organizationId, String(row.currency), BigInt(change) * storedCents(String(row.amount)));
      return toTransfer(row);
    },
    async debitedTotals(organizationId) {
      return debitedTotalsFrom(await sql(DEBITED_TOTALS, [organizationId]), organizationId);
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
      await write('INSERT INTO resources (id, organization_id, kind, idempotency_key, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        r.id, r.organizationId, r.kind, r.idempotencyKey, JSON.stringify(r.body), r.createdAt,
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
      // The primary key decides: a concurrent claim of the key waits here (PostgreSQL) or cannot run at all
      // (SQLite's write lock) until this transaction ends, then inserts nothing and reads the row.
      const inserted = await sql(`${INSERT_IDEMPOTENCY} ON CONFLICT (organization_id, operation_id, idem_key) DO NOTHING RETURNING 1 AS claimed`, idempotencyValues(r));
      if (inserted.length === 1) return undefined;
      const current = await tx.readIdempotency(r.organizationId, r.operationId, r.key);
      if (!current) throw new Error(`idempotency record (${r.organizationId}, ${r.operationId}, ${r.key}) conflicted but cannot be read`);
      return current;
    },
    async readIdempotency(organizationId, operationId, key) {
      // A finished record never changes: a replay reads it as it is (no lock, nothing written).
      const existing = await readIdempotency(organizationId, operationId, key, '');
      return !existing || existing.state === 'done' ? existing : tx.findIdempotency(organizationId, operationId, key);
    },
    insertIdempotency(r) {
      // The table's only unique key is the primary key: any refusal means the key is taken.
      return write(INSERT_IDEMPOTENCY, idempotencyValues(r), (err) => violation(err, KEY_TAKEN));
    },
    findIdempotency(organizationId, operationId, key) {
      return readIdempotency(organizationId, operationId, key, dialect.forUpdate);
    },
    async updateIdempotency(organizationId, operationId, key, patch) {
      const rows = await sql(
        `UPDATE idempotency SET state = $4, status = $5, body = $6, resolution = $7
         WHERE organization_id = $1 AND operation_id = $2 AND idem_key = $3 RETURNING 1 AS updated`,
        [organizationId, operationId, key, patch.state, patch.status, json(patch.body), patch.resolution],
      );
      if (rows.length !== 1) throw new Error(`no idempotency record (${organizationId}, ${operationId}, ${key}) to update`);
    },

    // fault injection
    async insertFault(f) {
      await sql(
        `INSERT INTO faults (id, organization_id, operation_id, kind, remaining, commit_action, retry_after_seconds, resolution, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [f.id, f.organizationId, f.operationId, f.kind, f.remaining, bool(f.commit), f.retryAfterSeconds, f.resolution, f.createdAt],
      );
    },
    async takeFault(organizationId, operationId) {
      // The picked row is locked (PostgreSQL) and re-checked, so concurrent takers wait for each other
      // instead of skipping past a fault still in use: "remaining: 3" faults exactly 3 requests.
      const row = await one(
        `UPDATE faults SET remaining = remaining - 1
         WHERE seq = (
           SELECT seq FROM faults
           WHERE operation_id = $2 AND remaining > 0 AND (organization_id = $1 OR organization_id IS NULL)
           ORDER BY organization_id IS NULL, created_at, seq
           LIMIT 1${dialect.forUpdate}
         ) AND remaining > 0
         RETURNING *`,
        [organizationId, operationId],
      );
      return row && toFault(row);
    },
    async listFaults() {
      return (await sql('SELECT * FROM faults ORDER BY created_at, seq')).map(toFault);
    },
    async clearFaults() {
      await sql('DELETE FROM faults');
    },

    // test clocks
    async setClock(organizationId, ms) {
      const row = await one('UPDATE organizations SET clock_ms = $2 WHERE id = $1 RETURNING *', [organizationId, ms]);
      return row && toOrganization(row);
    },
    async advanceClock(organizationId, ms) {
      const row = await one('UPDATE organizations SET clock_ms = clock_ms + $2 WHERE id = $1 AND clock_ms IS NOT NULL RETURNING *', [organizationId, ms]);
      return row && toOrganization(row);
    },

    // traffic journal
    appendJournal(organizationId, e) {
      return write(APPEND_JOURNAL, journalValues(organizationId, e));
    },
    async trimJournal(organizationId, keep) {
      // The newest `keep` rows stay. Rows are locked in seq order and a row another trim holds is left to it
      // without waiting (two DELETEs of one organization's rows deadlocked on PostgreSQL, each locking them
      // in its own plan's order): each row is deleted once, and each trim adds only what it deleted.
      const deleted = await sql(
        `DELETE FROM journal WHERE seq IN (
           SELECT seq FROM journal WHERE organization_id = $1 AND seq <= (
             SELECT seq FROM journal WHERE organization_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2
           ) ORDER BY seq${dialect.skipLocked}
         ) RETURNING 1 AS gone`,
        [organizationId, keep],
      );
      if (deleted.length) await sql('UPDATE organizations SET journal_dropped = journal_dropped + $2 WHERE id = $1', [organizationId, deleted.length]);
      return deleted.length;
    },
    async readJournal(organizationId, keep) {
      const rows = await sql('SELECT * FROM journal WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2', [organizationId, keep]);
      const counts = await one(
        'SELECT journal_dropped AS dropped, (SELECT COUNT(*) FROM journal WHERE organization_id = $1) AS stored FROM organizations WHERE id = $1',
        [organizationId],
      );
      const stored = Number(counts?.stored ?? 0);
      return { entries: rows.reverse().map(toJournalEntry), dropped: Number(counts?.dropped ?? 0) + Math.max(0, stored - keep) };
    },
  };
  return tx;
}

/**
 * Store.findCaller's statement: the key whose hash is `hash`, its organization, and whether a fault awaits
 * `operation`, each an SQL expression: parameters ($1, $2) for one lookup (SQLite), or the columns of
 * `from`, an unnest of arrays that postgres.ts prepends to look a turn's callers up in one statement.
 */
export const findCallerSql = (hash: string, operation: string, from = '') =>
  `SELECT ${hash} AS asked_hash, ${operation} AS asked_operation, k.id AS key_id, k.organization_id, k.hash, k.prefix, k.created_at AS key_created_at, k.revoked_at, o.*,
     EXISTS (SELECT 1 FROM faults f WHERE f.operation_id = ${operation} AND f.remaining > 0
             AND (f.organization_id = k.organization_id OR f.organization_id IS NULL)) AS fault_pending
   FROM ${from}api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.hash = ${hash}`;

export const toCaller = (r: Row): Caller => ({
  key: { id: String(r.key_id), organizationId: String(r.organization_id), hash: String(r.hash), prefix: String(r.prefix), createdAt: String(r.key_created_at), revokedAt: text(r.revoked_at) },
  organization: toOrganization(r),
  faultPending: Boolean(r.fault_pending),
});
