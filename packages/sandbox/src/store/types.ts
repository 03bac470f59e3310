// The sandbox's storage interface, implemented once in SQL (sql-transaction.ts) over node:sqlite (embedded,
// default) and PostgreSQL (shared by several instances). Everything a request does to the data happens in
// one `transaction`, so a resource and the idempotency record that replays it are written together; the
// schema's unique keys (schema.ts) make sure two requests with one key cannot both act.
import type { JournalEntry } from '../audit/journal.ts';

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

export interface RecipientRecord {
  id: string;
  organizationId: string;
  nickname: string;
  rail: 'brl_pix' | 'usd_ach' | 'usd_wire' | 'wallet';
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
 * One row per (organization, operation, Idempotency-Key). `done`: `status`/`body` are the original response,
 * replayed as is; `unresolved`: an earlier attempt hit a temporary 503 (or is pending review), and the next
 * request with the key resolves it per the provider's outcome table (`resolution` says how).
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

export interface Transaction {
  /** Whether statements asked for together reach the database together (PostgreSQL's pipeline): reads worth starting early. */
  readonly pipelined: boolean;
  insertOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'createdAt' | 'clockMs'>>): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;

  insertApiKey(key: ApiKeyRecord): Promise<void>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;

  // Inserting or activating a recipient whose active nickname or PIX key another recipient of the
  // organization holds throws a ConstraintViolation (the schema's unique indexes decide, not our code).
  insertRecipient(recipient: RecipientRecord): Promise<void>;
  getRecipient(organizationId: string, id: string): Promise<RecipientRecord | undefined>;
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
