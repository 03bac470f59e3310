import type { JournalEntry } from '../audit/journal.ts';
// The sandbox's storage interface: one small set of operations, implemented once in SQL (sql-transaction.ts)
// over node:sqlite (embedded, default) and PostgreSQL (shared by several sandbox instances). Everything a
// request does to the data happens inside one `transaction`, so a resource and the idempotency record that
// replays it are written together; the schema's unique keys (schema.ts) make sure two requests with one
// key cannot both act, whatever our code does.

export interface Organization {
  id: string;
  name: string;
  /** Section 5 rule 6: a product works only while API access AND the product are enabled. */
  apiAccess: boolean;
  banking: boolean;
  cards: boolean;
  checkout: boolean;
  walletTransfers: boolean;
  /** Dashboard steps the API depends on. */
  cardTermsAccepted: boolean;
  checkoutPix: boolean;
  /** Opening balance per currency (decimal strings), the sandbox's funding. */
  funding: Record<string, string>;
  createdAt: string;
  /** The organization's test clock, frozen at this epoch ms; null or absent: real time (issue 13, deliver 2). */
  clockMs?: number | null;
}

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** SHA-256 hex of the full key: the full key itself is never stored. */
  hash: string;
  /** Short display prefix, e.g. `svc_live_AbC1`. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export type Rail = 'brl_pix' | 'usd_ach' | 'usd_wire' | 'wallet';

export interface RecipientRecord {
  id: string;
  organizationId: string;
  nickname: string;
  rail: Rail;
  pixKey: string | null;
  destinationAddress: string | null;
  active: boolean;
  /** Created through the API (external) or in the dashboard (admin: wallet recipients). */
  source: 'api' | 'dashboard';
  idempotencyKey: string | null;
  createdAt: string;
}

export type TransferStatus = 'pending' | 'completed' | 'failed' | 'cancelled';

export interface TransferRecord {
  id: string;
  organizationId: string;
  recipientId: string;
  /** Canonical two-decimal string. */
  amount: string;
  currency: string;
  status: TransferStatus;
  idempotencyKey: string;
  createdAt: string;
}

/** Cards, checkout products and checkout sessions: stored as the body the API returned. */
export interface ResourceRecord {
  id: string;
  organizationId: string;
  kind: 'card' | 'checkout_product' | 'checkout_session';
  idempotencyKey: string;
  body: Record<string, unknown>;
  createdAt: string;
}

/**
 * One row per (organization, operation, Idempotency-Key). `state`:
 * - `done`: `status`/`body` are the original response, replayed as is;
 * - `unresolved`: an earlier attempt hit a temporary 503 (or is pending review); the next request with the
 *   key resolves it per the provider's outcome table (`resolution` says how).
 */
export interface IdempotencyRecord {
  organizationId: string;
  operationId: string;
  key: string;
  /** The request identity (e.g. normalized amount + recipient), to detect a key reused for another request. */
  fingerprint: string;
  state: 'done' | 'unresolved';
  status: number | null;
  body: unknown;
  /** For `unresolved`: what the next attempt with this key yields (`pending`, `completed`, `failed`, `cancelled`, `pending_review`, `unavailable`). */
  resolution: string | null;
  createdAt: string;
}

export type FaultKind =
  | 'unavailable' // temporary 503, attempt left unresolved
  | 'pending_review' // 409 banking_transfer_attempt_pending_review while it holds
  | 'edge_502' // 502 without a JSON body
  | 'edge_504' // 504 without a JSON body
  | 'drop_after_commit' // the action commits, then the connection is destroyed without a response
  | 'provider_rate_limited'; // 503 provider_rate_limited with Retry-After

export interface FaultRecord {
  id: string;
  /** null: every organization. */
  organizationId: string | null;
  operationId: string;
  kind: FaultKind;
  /** Requests still to meet the fault. */
  remaining: number;
  /** Edge faults: whether the action is committed before the 502/504 (the request "may or may not" have been processed). */
  commit: boolean;
  retryAfterSeconds: number | null;
  /** For `unavailable`/`pending_review` on transfers: how the retry resolves the attempt. */
  resolution: string | null;
  createdAt: string;
}

/** An organization's traffic journal as stored: the newest entries (oldest first) and how many the cap dropped. */
export interface JournalPage {
  entries: JournalEntry[];
  /** Entries recorded and no longer kept (the oldest, dropped over the cap). */
  dropped: number;
}

export interface Transaction {
  // organizations
  insertOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'createdAt'>>): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  // API keys
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;

  // recipients. Inserting or activating a recipient whose active nickname or PIX key another recipient of
  // the organization holds throws a ConstraintViolation (the schema's unique indexes decide, not our code).
  insertRecipient(recipient: RecipientRecord): Promise<void>;
  getRecipient(organizationId: string, id: string): Promise<RecipientRecord | undefined>;
  findActiveRecipientByNickname(organizationId: string, nickname: string): Promise<RecipientRecord | undefined>;
  findRecipientByPixKey(organizationId: string, pixKey: string): Promise<RecipientRecord | undefined>;
  updateRecipient(organizationId: string, id: string, patch: Partial<Pick<RecipientRecord, 'active' | 'nickname'>>): Promise<RecipientRecord | undefined>;

  // transfers. The organization's balance moves in the same transaction (see debitedTotals).
  insertTransfer(transfer: TransferRecord): Promise<void>;
  getTransfer(organizationId: string, id: string): Promise<TransferRecord | undefined>;
  updateTransferStatus(organizationId: string, id: string, status: TransferStatus): Promise<TransferRecord | undefined>;
  /**
   * What the organization's `pending` and `completed` transfers add up to, per currency (decimal strings):
   * running totals kept by insertTransfer and updateTransferStatus, so the read costs the same at any size.
   */
  debitedTotals(organizationId: string): Promise<Record<string, string>>;
  countTransfers(organizationId?: string): Promise<number>;

  // cards, checkout products, checkout sessions
  insertResource(resource: ResourceRecord): Promise<void>;
  countResources(kind: ResourceRecord['kind'], organizationId?: string): Promise<number>;

  // idempotency
  /**
   * Inserts the record unless a row exists for (organization, operation, key), in one statement (INSERT …
   * ON CONFLICT DO NOTHING): undefined when it was inserted, else the existing row. A concurrent claim of
   * the same key waits on the unique key until the first transaction ends, then sees its row.
   */
  claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | undefined>;
  /**
   * The row of a key as committed, or undefined: a finished one read as it is (it never changes); an open
   * one (an unresolved attempt) read again under a row lock, so one request at a time resolves it.
   */
  readIdempotency(organizationId: string, operationId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Writes the record of a key not seen by readIdempotency, with its result: once, no claim to update. When
   * a concurrent transaction has taken the key meanwhile, the primary key refuses the write (the
   * transaction fails with KEY_TAKEN; PostgreSQL: after waiting for the other to end) and nothing commits.
   */
  insertIdempotency(record: IdempotencyRecord): Promise<void>;
  /** The row of a key, held until the transaction ends (PostgreSQL: FOR UPDATE). */
  findIdempotency(organizationId: string, operationId: string, key: string): Promise<IdempotencyRecord | undefined>;
  updateIdempotency(organizationId: string, operationId: string, key: string, patch: Pick<IdempotencyRecord, 'state' | 'status' | 'body' | 'resolution'>): Promise<void>;

  // fault injection
  insertFault(fault: FaultRecord): Promise<void>;
  /** Takes one use of the oldest matching fault with remaining > 0 (organization-specific first), or undefined. */
  takeFault(organizationId: string, operationId: string): Promise<FaultRecord | undefined>;
  listFaults(): Promise<FaultRecord[]>;
  clearFaults(): Promise<void>;

  // test clocks (NULL: real time)
  /** Freezes the organization's clock at `ms`, or returns it to real time (null). */
  setClock(organizationId: string, ms: number | null): Promise<Organization | undefined>;
  /** Moves a frozen clock forward by `ms`, in one statement (two concurrent advances add up); undefined when the organization has no frozen clock. */
  advanceClock(organizationId: string, ms: number): Promise<Organization | undefined>;

  // traffic journal
  appendJournal(organizationId: string, entry: JournalEntry): Promise<void>;
  /** Deletes all but the newest `keep` entries of the organization, adding them to its dropped count; returns how many. */
  trimJournal(organizationId: string, keep: number): Promise<number>;
  /** The newest `keep` entries (oldest first); older ones still stored count as dropped. */
  readJournal(organizationId: string, keep: number): Promise<JournalPage>;
}

export interface Caller {
  key: ApiKeyRecord;
  organization: Organization;
  /** Whether a fault is scheduled for this operation and organization (then the transaction takes it). */
  faultPending: boolean;
}

/** A write refused by one of the schema's unique constraints; `constraint` is the index's name. */
/** ConstraintViolation.constraint of insertIdempotency's refusal: another transaction holds the key. */
export const KEY_TAKEN = 'idempotency_key_taken';

export class ConstraintViolation extends Error {
  readonly constraint: string;
  constructor(constraint: string, cause?: unknown) {
    super(`unique constraint ${constraint} refused the write`, { cause });
    this.constraint = constraint;
  }
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates or upgrades the schema (idempotent; safe when several instances start together). */
  migrate(): Promise<void>;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws; the promise
   * settles only after the COMMIT (what a caller acknowledges is durable). `fn` acts only through `tx`.
   * `readOnly`: `fn` needs no snapshot across its statements and writes at most single-statement changes
   * (a GET taking a fault, its journal entry); PostgreSQL then runs each statement on its own, without BEGIN
   * and COMMIT, and the balance reads and journal entries of one event-loop turn in one statement each;
   * SQLite runs it in the turn's batch without a SAVEPOINT of its own.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: { readOnly?: boolean }): Promise<T>;
  /**
   * Counts one request in `bucket`'s fixed window starting at `windowStart` (epoch ms) and returns the count
   * so far. Outside any transaction: a counter is not data a request's rollback takes back, and no request
   * waits for another's COMMIT on it.
   */
  hitRateLimit(bucket: string, windowStart: number): Promise<number>;
  /**
   * The API key with this SHA-256 hash, its organization, and whether a fault awaits the operation: one
   * read outside any transaction (it may see a key, flag or fault that a transaction still running has
   * written: no client can have heard of that yet).
   */
  findCaller(hash: string, operationId: string): Promise<Caller | undefined>;
  close(): Promise<void>;
}
