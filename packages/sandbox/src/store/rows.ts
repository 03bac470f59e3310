// How each record is stored: a column per field, and how a value goes in and comes back out. The statements
// take their column lists, parameters and row mapping from here; the compiler checks each list is complete.
import type { JournalEntry } from '../audit/journal.ts';
import type { ApiKeyRecord, FaultRecord, IdempotencyRecord, Organization, RecipientRecord, ResourceRecord, TransferRecord } from '../records.ts';

export type Row = Record<string, unknown>;
/** A parameter; arrays are PostgreSQL's (the batched statements of postgres-per-turn.ts). */
export type SqlValue = string | number | bigint | null | readonly (string | number | null)[];

interface Field {
  /** The column, when it is not the field's name in snake_case. */
  column?: string;
  put(value: never): SqlValue;
  /** The stored value as the record holds it (a NULL as null). */
  get(stored: unknown): unknown;
  /** A NULL leaves the field out of the record instead (its type says `?`). */
  omitNull?: boolean;
}

const orNull = (read: (stored: unknown) => unknown) => (stored: unknown) => (stored === null || stored === undefined ? null : read(stored));
const text: Field = { put: (v: string | null) => v, get: orNull(String) };
/** Integers arrive as number (SQLite) or number/string (PostgreSQL int4/int8). */
const int: Field = { put: (v: number | null | undefined) => v ?? null, get: orNull(Number) };
/** Booleans are bound as 1/0, which PostgreSQL's boolean input accepts. */
const flag: Field = { put: (v: boolean) => (v ? 1 : 0), get: Boolean };
const json: Field = { put: (v: unknown) => (v === undefined ? null : JSON.stringify(v)), get: orNull((v) => JSON.parse(String(v))) };
const named = (column: string, field: Field): Field => ({ ...field, column });
const omitNull = (field: Field): Field => ({ ...field, omitNull: true });

/** A table's fields in column order: their columns, INSERT, parameters and row mapping. */
export class Table<T extends object> {
  /** The fields' columns, in order: `a, b, c`. */
  readonly columns: string;
  /** INSERT of a record: `leading` columns first (values() takes their parameters), then the fields'. */
  readonly insert: string;
  readonly name: string;
  private readonly fields: readonly { name: string; column: string; field: Field }[];

  constructor(name: string, fields: { [K in keyof T]-?: Field }, leading: readonly string[] = []) {
    this.name = name;
    this.fields = Object.entries<Field>(fields).map(([name, field]) => ({ name, field, column: field.column ?? name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) }));
    this.columns = this.fields.map((f) => f.column).join(', ');
    const count = leading.length + this.fields.length;
    this.insert = `INSERT INTO ${name} (${[...leading, this.columns].join(', ')}) VALUES (${Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ')})`;
  }

  /** The INSERT's parameters, after `leading`'s. */
  values(record: T, leading: SqlValue[] = []): SqlValue[] {
    for (const { name, field } of this.fields) leading.push(field.put((record as Record<string, never>)[name]!));
    return leading;
  }

  read(row: Row): T {
    const record: Record<string, unknown> = {};
    for (const { name, column, field } of this.fields) {
      const stored = row[column];
      if (!field.omitNull || (stored !== null && stored !== undefined)) record[name] = field.get(stored);
    }
    return record as T;
  }

  /** `a = $n, b = $n+1` and its parameters for the defined fields of `patch`; placeholders start at `first`. */
  set(patch: Partial<T>, first: number): { sql: string; values: SqlValue[] } {
    const parts: string[] = [];
    const values: SqlValue[] = [];
    for (const { name, column, field } of this.fields) {
      const value = (patch as Record<string, never>)[name];
      if (value === undefined) continue;
      values.push(field.put(value));
      parts.push(`${column} = $${first + values.length - 1}`);
    }
    return { sql: parts.join(', '), values };
  }
}

export const ORGANIZATIONS = new Table<Organization>('organizations', {
  id: text, name: text, apiAccess: flag, banking: flag, cards: flag, checkout: flag, walletTransfers: flag, cardTermsAccepted: flag, checkoutPix: flag, funding: json,
  createdAt: text, clockMs: omitNull(int), // absent on real time
});
export const API_KEYS = new Table<ApiKeyRecord>('api_keys', { id: text, organizationId: text, hash: text, prefix: text, createdAt: text, revokedAt: text });
export const RECIPIENTS = new Table<RecipientRecord>('recipients', {
  id: text, organizationId: text, nickname: text, rail: text, pixKey: text, destinationAddress: text, active: flag, source: text, idempotencyKey: text, createdAt: text,
});
/** A transfer's columns but its cents (kept for sums; beyond 2^53 SQLite cannot hand them over as a number). */
export const TRANSFERS = new Table<TransferRecord>(
  'transfers',
  { id: text, organizationId: text, recipientId: text, amount: text, currency: text, status: text, idempotencyKey: text, createdAt: text },
  ['amount_cents'],
);
export const RESOURCES = new Table<ResourceRecord>('resources', { id: text, organizationId: text, kind: text, idempotencyKey: text, body: json, createdAt: text });
export const IDEMPOTENCY = new Table<IdempotencyRecord>('idempotency', {
  organizationId: text, operationId: text, key: named('idem_key', text), fingerprint: text, state: text, status: int, body: json, resolution: text, createdAt: text,
});
export const FAULTS = new Table<FaultRecord>('faults', {
  id: text, organizationId: text, operationId: text, kind: text, remaining: int, commit: named('commit_action', flag), retryAfterSeconds: int, resolution: text, createdAt: text,
});
/** The journal's rows (postgres-per-turn.ts inserts several at once). */
export const JOURNAL = new Table<JournalEntry>(
  'journal',
  {
    at: named('at_ms', int), operationId: text, idempotencyKey: named('idem_key', text), identity: text, status: int, code: text, resourceStatus: text,
    retryAfterSeconds: int, fault: text, answered: flag, body: omitNull(json),
  },
  ['organization_id'],
);
