// The sandbox's storage interface, implemented once in SQL (sql-transaction.ts) over node:sqlite (embedded,
// default) and PostgreSQL (shared by several instances). Everything a request does to the data happens in
// one `transaction`, so a resource and the idempotency record that replays it are written together; the
// schema's unique keys (schema.ts) make sure two requests with one key cannot both act.
import type { JournalEntry } from '../audit/journal.ts';
import type { ApiKeyRecord, FaultRecord, IdempotencyRecord, Organization, RecipientRecord, ResourceRecord, TransferRecord, TransferStatus } from '../records.ts';

export type { ApiKeyRecord, FaultKind, FaultRecord, IdempotencyRecord, Organization, RecipientRecord, ResourceRecord, TransferRecord, TransferStatus } from '../records.ts';

export interface Transaction {
  /** Whether statements asked for together reach the database together (PostgreSQL's pipeline): reads worth starting early. */
  readonly pipelined: boolean;
  /** An id another organization has throws a ConstraintViolation. */
  insertOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'createdAt' | 'clockMs'>>): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  insertApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  /** The organization's keys, revoked ones included, oldest first. */
  listApiKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;

  // Inserting or activating an external recipient whose nickname another active external recipient of the
  // organization holds, or a recipient whose PIX key another holds, throws a ConstraintViolation (the
  // schema's unique indexes decide, not our code).
  insertRecipient(recipient: RecipientRecord): Promise<void>;
  getRecipient(organizationId: string, id: string): Promise<RecipientRecord | undefined>;
  /** The active external (not wallet) recipient with this nickname: the one section 2's uniqueness counts. */
  findActiveRecipientByNickname(organizationId: string, nickname: string): Promise<RecipientRecord | undefined>;
  findRecipientByPixKey(organizationId: string, pixKey: string): Promise<RecipientRecord | undefined>;
  updateRecipient(organizationId: string, id: string, patch: Partial<Pick<RecipientRecord, 'active' | 'nickname'>>): Promise<RecipientRecord | undefined>;

  insertTransfer(transfer: TransferRecord): Promise<void>;
  getTransfer(organizationId: string, id: string): Promise<TransferRecord | undefined>;
  updateTransferStatus(organizationId: string, id: string, status: TransferStatus): Promise<TransferRecord | undefined>;
  /** What the `pending` and `completed` transfers add up to, per currency: running totals, so it costs the same at any size. */
  debitedTotals(organizationId: string): Promise<Record<string, string>>;
  countTransfers(organizationId?: string): Promise<number>;

  insertResource(resource: ResourceRecord): Promise<void>;
  countResources(kind: ResourceRecord['kind'], organizationId?: string): Promise<number>;

  /** Inserts the record unless the key has a row: undefined when inserted, else the row (once the transaction holding it ends). */
  claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | undefined>;
  /** The row of a key as committed; an unresolved one read under a row lock, so one request at a time resolves it. */
  readIdempotency(organizationId: string, operationId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Writes the record of a key readIdempotency did not find; if another transaction took it meanwhile, fails with KEY_TAKEN. */
  insertIdempotency(record: IdempotencyRecord): Promise<void>;
  /** The row of a key, held until the transaction ends (PostgreSQL: FOR UPDATE). */
  findIdempotency(organizationId: string, operationId: string, key: string): Promise<IdempotencyRecord | undefined>;
  updateIdempotency(organizationId: string, operationId: string, key: string, patch: Pick<IdempotencyRecord, 'state' | 'status' | 'body' | 'resolution'>): Promise<void>;

  insertFault(fault: FaultRecord): Promise<void>;
  /** Takes one use of the oldest matching fault with remaining > 0 (organization-specific first), or undefined. */
  takeFault(organizationId: string, operationId: string): Promise<FaultRecord | undefined>;
  listFaults(): Promise<FaultRecord[]>;
  clearFaults(): Promise<void>;

  /** Freezes the organization's clock at `ms`, or returns it to real time (null). */
  setClock(organizationId: string, ms: number | null): Promise<Organization | undefined>;
  /** Moves a frozen clock forward by `ms` in one statement (concurrent advances add up); undefined when not frozen. */
  advanceClock(organizationId: string, ms: number): Promise<Organization | undefined>;

  appendJournal(organizationId: string, entry: JournalEntry): Promise<void>;
  /** Deletes all but the newest `keep` entries of the organization, adding them to its dropped count; returns how many. */
  trimJournal(organizationId: string, keep: number): Promise<number>;
  /** The newest `keep` entries (oldest first); `dropped`: those trimmed, and those older still stored. */
  readJournal(organizationId: string, keep: number): Promise<{ entries: JournalEntry[]; dropped: number }>;
}

export interface Caller {
  key: ApiKeyRecord;
  organization: Organization;
  /** Whether a fault is scheduled for this operation and organization (then the transaction takes it). */
  faultPending: boolean;
}

/** ConstraintViolation.constraint of insertIdempotency's refusal: another transaction holds the key. */
export const KEY_TAKEN = 'idempotency_key_taken';

/** A write refused by one of the schema's unique constraints; `constraint` is the index's name. */
export class ConstraintViolation extends Error {
  readonly constraint: string;
  constructor(constraint: string, cause?: unknown) {
    super(`unique constraint ${constraint} refused the write`, { cause });
    this.constraint = constraint;
  }
}

/**
 * A write of text no store keeps as written: U+0000 (PostgreSQL's `text` cannot hold it) or an unpaired
 * surrogate (not Unicode text; UTF-8 storage turns it into U+FFFD). Neither store keeps it, so both answer
 * alike: the request is refused, and a lookup by such a value finds nothing (sql-transaction.ts).
 */
export class UnstorableText extends Error {
  constructor() {
    super('Text holding the NUL character (U+0000) or an unpaired surrogate (\\uD800–\\uDFFF alone) cannot be stored: send it without.');
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates or upgrades the schema (idempotent; safe when several instances start together). */
  migrate(): Promise<void>;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws; the promise
   * settles only after the COMMIT (what a caller acknowledges is durable). `fn` acts only through `tx`.
   * `readOnly`: `fn` needs no snapshot across its statements and writes at most single-statement changes (a
   * GET taking a fault, its journal entry), so each statement may run on its own (no BEGIN, no SAVEPOINT).
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T>;
  /** Counts a request in `bucket`'s window from `windowStart` (epoch ms), outside any transaction: no request waits on another's COMMIT. */
  hitRateLimit(bucket: string, windowStart: number): Promise<number>;
  /**
   * The key with this SHA-256 hash, its organization, whether a fault awaits the operation: read outside any
   * transaction (it may see what a running one wrote, which no client can have heard of yet).
   */
  findCaller(hash: string, operationId: string): Promise<Caller | undefined>;
  close(): Promise<void>;
}
