// What the sandbox keeps: its organizations and API keys, and the resources, idempotency records and
// faults the API and the admin API create. The operations build these records; the store (store/) keeps them,
// a column per field (store/rows.ts).
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
