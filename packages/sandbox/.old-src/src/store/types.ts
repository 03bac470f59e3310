// The sandbox's storage interface: one small set of operations, implemented by node:sqlite (embedded,
// default) and PostgreSQL (shared by several sandbox instances). Everything a request does to the store
// happens inside one `transaction`, so a resource and the idempotency record that replays it are written
// together, and two requests with one key cannot both act.

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
  /** The stored response body for the API (what a replay returns). */
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

export interface Transaction {
  // organizations
  insertOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | undefined>;
  updateOrganization(id: string, patch: Partial<Omit<Organization, 'id' | 'createdAt'>>): Promise<Organization | undefined>;
  listOrganizations(): Promise<Organization[]>;
  /**
   * Holds the organization's row until the transaction ends, so checks that span rows (an active nickname,
   * a PIX key) cannot race between instances. A no-op where transactions are already serialized (SQLite).
   */
  lockOrganization(id: string): Promise<void>;

  // API keys
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  getApiKey(id: string): Promise<ApiKeyRecord | undefined>;
  revokeApiKey(id: string, at: string): Promise<ApiKeyRecord | undefined>;

  // recipients
  insertRecipient(recipient: RecipientRecord): Promise<void>;
  getRecipient(organizationId: string, id: string): Promise<RecipientRecord | undefined>;
  findActiveRecipientByNickname(organizationId: string, nickname: string): Promise<RecipientRecord | undefined>;
  findRecipientByPixKey(organizationId: string, pixKey: string): Promise<RecipientRecord | undefined>;
  updateRecipient(organizationId: string, id: string, patch: Partial<Pick<RecipientRecord, 'active' | 'nickname'>>): Promise<RecipientRecord | undefined>;

  // transfers
  insertTransfer(transfer: TransferRecord): Promise<void>;
  getTransfer(organizationId: string, id: string): Promise<TransferRecord | undefined>;
  updateTransferStatus(organizationId: string, id: string, status: TransferStatus): Promise<TransferRecord | undefined>;
  /** Sum of amounts per currency of the organization's transfers in the given statuses (decimal strings). */
  sumTransfers(organizationId: string, statuses: readonly TransferStatus[]): Promise<Record<string, string>>;
  countTransfers(organizationId?: string): Promise<number>;

  // cards, checkout products, checkout sessions
  insertResource(resource: ResourceRecord): Promise<void>;
  countResources(kind: ResourceRecord['kind'], organizationId?: string): Promise<number>;

  // idempotency
  /**
   * Inserts the record if no row exists for (organization, operation, key) and returns undefined; otherwise
   * returns the existing row. On PostgreSQL a concurrent claim of the same key waits for the first
   * transaction to finish, then sees its row.
   */
  claimIdempotency(record: IdempotencyRecord): Promise<IdempotencyRecord | undefined>;
  updateIdempotency(organizationId: string, operationId: string, key: string, patch: Pick<IdempotencyRecord, 'state' | 'status' | 'body' | 'resolution'>): Promise<void>;

  // rate limits: fixed windows
  /** Increments the counter of `bucket` for the window starting at `windowStart` (epoch ms); returns the new count. */
  hitRateLimit(bucket: string, windowStart: number): Promise<number>;

  // fault injection
  insertFault(fault: FaultRecord): Promise<void>;
  /** Takes one use of the oldest matching fault with remaining > 0 (organization-specific first), or undefined. */
  takeFault(organizationId: string, operationId: string): Promise<FaultRecord | undefined>;
  listFaults(): Promise<FaultRecord[]>;
  clearFaults(): Promise<void>;

  /**
   * Runs `fn` so that what it writes is undone when it throws while the rest of the transaction stays (a
   * savepoint): a request's rate-limit hit is kept when its operation is refused.
   */
  nested<T>(fn: () => Promise<T>): Promise<T>;
}

export interface TransactionOptions {
  /**
   * A hint: `fn` is not expected to write (rate-limit hits aside). The embedded store then runs it without
   * taking SQLite's write lock (no BEGIN IMMEDIATE, no COMMIT); should it write after all, its work is
   * undone and it is run again from the start under the lock, so `fn` must be safe to run twice (it only
   * acts through `tx`). PostgreSQL ignores it.
   */
  readOnly?: boolean;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates or upgrades the schema (idempotent; safe when several instances start together). */
  migrate(): Promise<void>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. Transactions are serialized per key where needed. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}
