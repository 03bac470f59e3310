// What the sandbox records per API request for the client-rules audit (issue 13, deliver 1): what the
// request meant for idempotency, and what it was answered. Never the API key, nor any header but the
// Idempotency-Key.
import { InvalidAmount, normalizeAmount } from '../money.ts';

export interface JournalEntry {
  /** When the request arrived, ms since the epoch, on the organization's clock (a test clock when one is set). */
  at: number;
  /** The operation the request matched (`createTransfer`, …). */
  operationId: string;
  /** The Idempotency-Key header exactly as received; null when the request had none. */
  idempotencyKey: string | null;
  /** The payment's identity as a canonical value (`paymentIdentity`): two requests for one payment have equal identities. */
  identity: string;
  /** The request body as parsed JSON, for the schema check; undefined when there was none or it was not JSON. */
  body?: unknown;
  /** The status answered; null when no answer was sent. */
  status: number | null;
  /** The error code answered (the body's `code`); null on a success or an answer without the error body. */
  code: string | null;
  /** The status of the resource a 2xx answered with (a transfer's `pending`, `failed`, …); null otherwise. */
  resourceStatus: string | null;
  /** The Retry-After header answered, in seconds; null without one. */
  retryAfterSeconds: number | null;
  /** The fault the sandbox applied (`unavailable`, `edge_502`, `drop_after_commit`, …); null when none. */
  fault: string | null;
  /** Whether an answer was sent (false: the connection was dropped, or the client went away first). */
  answered: boolean;
}

/** An amount in its canonical form ("150.00"), or as it came when it is not an amount (the schema check reports it). */
function amount(value: unknown): unknown {
  try {
    return value === undefined ? null : normalizeAmount(value);
  } catch (err) {
    if (err instanceof InvalidAmount) return value;
    throw err;
  }
}

/** JSON with object keys sorted: one text per value, whatever order the client wrote the fields in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ) ?? 'null';
}

/** The operations whose request identity the document names: a transfer's recipient and amount (section 7, rule 4), a checkout session's amount, discount and method (section 4, rule 3). */
const NAMED_IDENTITIES: ReadonlySet<string> = new Set(['createTransfer', 'createCheckoutSession']);

/**
 * What makes two requests under one Idempotency-Key the same request (section 7, rules 3 and 4): the fields the
 * document names where it names them (paymentIdentity: `37.45` and `"37.45"` are one amount), else the whole
 * body, whatever the order of its fields. The docs' console tells a replay from another request by it.
 */
export function requestIdentity(operationId: string, body: unknown): string {
  return NAMED_IDENTITIES.has(operationId) ? paymentIdentity(operationId, body) : canonical(body ?? null);
}

/**
 * The payment a request stands for, as one canonical text (issue 13, deliver 1; provider sections 4 and
 * 7): a transfer is its recipient and normalized amount (a different amount or recipient is a different
 * payment, 7.4); a checkout session its normalized amount, discountPercent and payment method (section 4,
 * rule 3); a recipient its rail with its PIX key, or its nickname on the other rails; any other operation
 * its whole body.
 */
export function paymentIdentity(operationId: string, body: unknown): string {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!b) return canonical(body ?? null);
  switch (operationId) {
    case 'createTransfer':
      return canonical({ recipientId: b.recipientId ?? null, amount: amount(b.amount) });
    case 'createCheckoutSession':
      return canonical({ amount: amount(b.amount), discountPercent: b.discountPercent ?? null, paymentMethod: b.paymentMethod ?? null });
    case 'createRecipient':
      return canonical(b.pixKey !== undefined ? { rail: b.rail ?? null, pixKey: b.pixKey } : { rail: b.rail ?? null, nickname: b.nickname ?? null });
    default:
      return canonical(b);
  }
}
