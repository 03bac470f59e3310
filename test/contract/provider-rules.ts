// The provider's rules, transcribed by hand from ../shared/seed/payments-api.md, independently of the spec.
// This is the one deliberate second copy in the repository: it is the oracle the spec is checked against,
// so a rule dropped or changed in openapi/ fails a test instead of silently drifting from the provider.
// Keys are the operations as the provider names them (method + path).

export const OPERATIONS = {
  balance: 'GET /v1/banking/balance',
  recipients: 'POST /v1/banking/recipients',
  transfers: 'POST /v1/banking/transfers',
  cards: 'POST /v1/cards',
  checkoutProducts: 'POST /v1/checkout/products',
  checkoutSessions: 'POST /v1/checkout/sessions',
} as const;

type Op = (typeof OPERATIONS)[keyof typeof OPERATIONS];
const banking: Op[] = [OPERATIONS.balance, OPERATIONS.recipients, OPERATIONS.transfers];
const checkout: Op[] = [OPERATIONS.checkoutProducts, OPERATIONS.checkoutSessions];

/** Section 7 tables, with the operations that section 4 and 5 attach each code to. */
export const ERROR_RULES: { code: string; status: number; operations: Op[] }[] = [
  // Access-control errors (section 7; section 4 rule 1 and section 5 rule 6 say which products they guard)
  { code: 'banking_api_access_not_enabled', status: 403, operations: banking },
  { code: 'wallet_transfers_not_enabled', status: 403, operations: [OPERATIONS.transfers] },
  { code: 'cards_api_access_not_enabled', status: 403, operations: [OPERATIONS.cards] },
  { code: 'api_access_disabled', status: 403, operations: checkout },
  // Resource and request errors (section 7), on the operations section 4 lists them for
  { code: 'recipient_rail_unsupported', status: 400, operations: [OPERATIONS.recipients] },
  { code: 'invalid_destination_address', status: 400, operations: [OPERATIONS.recipients] },
  { code: 'invalid_checkout_session_amount', status: 400, operations: [OPERATIONS.checkoutSessions] },
  { code: 'checkout_session_pricing_conflict', status: 400, operations: [OPERATIONS.checkoutSessions] },
  { code: 'recipient_not_found', status: 404, operations: [OPERATIONS.transfers] },
  { code: 'recipient_nickname_already_exists', status: 409, operations: [OPERATIONS.recipients] },
  { code: 'recipient_already_exists', status: 409, operations: [OPERATIONS.recipients] },
  { code: 'recipient_partner_sync_failed', status: 409, operations: [OPERATIONS.recipients] },
  { code: 'wallet_recipient_required', status: 409, operations: [OPERATIONS.transfers] },
  { code: 'authorized_user_terms_required', status: 409, operations: [OPERATIONS.cards] },
  { code: 'banking_transfer_attempt_pending_review', status: 409, operations: [OPERATIONS.transfers] },
  { code: 'banking_transfer_idempotency_conflict', status: 409, operations: [OPERATIONS.transfers] },
  { code: 'pix_recipient_bank_not_supported', status: 422, operations: [OPERATIONS.transfers] },
  { code: 'pix_payout_rejected', status: 422, operations: [OPERATIONS.transfers] },
  { code: 'pix_quote_rejected', status: 422, operations: [OPERATIONS.transfers] },
  { code: 'checkout_pix_not_available', status: 503, operations: [OPERATIONS.checkoutSessions] },
  { code: 'provider_rate_limited', status: 503, operations: [OPERATIONS.cards] },
];

/**
 * Section 7, "Error body (JSON)": every 4xx and 5xx response carries these three fields (the edge's 502/504,
 * STATUS_RULES.edgeWithoutJsonBody, come without the JSON body). All three are always present.
 */
export const ERROR_BODY = {
  fields: [
    { name: 'error', type: 'string' },
    { name: 'code', type: 'string' },
    { name: 'requestId', type: 'string', format: 'uuid' },
  ] as { name: string; type: string; format?: string }[],
  valid: { error: 'Human-readable message', code: 'some_code', requestId: '181a0fe4-1b31-4f63-b99d-076c438eafe8' },
  /** Values that break a field's type or format. */
  wrongValues: { string: 42, uuid: 'not-a-uuid' } as Record<string, unknown>,
};

/** `banking_transfer_not_found` (404) belongs to the transfer lookup whose path is not shown (section 4 rules 2, 5). */
export const TRANSFER_LOOKUP_NOT_FOUND = { code: 'banking_transfer_not_found', status: 404 };

/** Statuses the document states without a code. */
export const STATUS_RULES = {
  transferCreated: { operation: OPERATIONS.transfers, status: 201 },
  temporaryUnavailable: { operation: OPERATIONS.transfers, status: 503 },
  edgeWithoutJsonBody: [502, 504],
};

/** Section 4: the five POSTs take a required Idempotency-Key; the checkout ones 8–200 characters. */
export const IDEMPOTENT_OPERATIONS: Op[] = [
  OPERATIONS.recipients,
  OPERATIONS.transfers,
  OPERATIONS.cards,
  OPERATIONS.checkoutProducts,
  OPERATIONS.checkoutSessions,
];
export const CHECKOUT_KEY = {
  operations: checkout,
  minLength: 8,
  maxLength: 200,
  /** "letters, digits, dot, underscore, colon and hyphen" */
  valid: ['abcdEFGH', 'a.b_c:d-e1', 'x'.repeat(200)],
  invalid: ['short7c', 'x'.repeat(201), 'has space1', 'slash/key1', 'plus+key12', 'émoji-key1'],
};

/** Section 5: auth header and key format. */
export const AUTH = { header: 'x-api-key', keyPrefix: 'svc_live_' };

/** Section 2, 3: transfer statuses. */
export const TRANSFER_STATUSES = ['pending', 'completed', 'failed', 'cancelled'];

/** Section 2 and 8: checkout session amount. */
export const CHECKOUT_AMOUNT = {
  valid: [37.45, '37.45', 1, '1', 0.07, '0.07', 0.1, '0.10', 1234567.89, '1234567.89'],
  invalid: [0, '0', '0.00', -1, '-1', 37.456, '37.456', '1e3', 'abc', '', ' 1', '1.', null, true],
};

/** Section 8. */
export const LIMITS = {
  defaultRequests: 600,
  defaultWindowSeconds: 15 * 60,
  transferRetryMinDelaySeconds: 60,
};

/** Section 7: provider_rate_limited carries Retry-After. */
export const RETRY_AFTER = { header: 'Retry-After', code: 'provider_rate_limited', operation: OPERATIONS.cards };
