// Every rule the provider's document states is in the bundled spec. The expectations come from
// provider-rules.ts (transcribed from the prose), never from the spec itself.
import { describe, expect, it } from 'vitest';
import { createValidator, deref, errorCatalog, isObject, loadSpec, operations, type JsonObject } from '@payments/spec';
import {
  AUTH,
  CHECKOUT_AMOUNT,
  CHECKOUT_KEY,
  ERROR_RULES,
  IDEMPOTENT_OPERATIONS,
  LIMITS,
  OPERATIONS,
  RETRY_AFTER,
  STATUS_RULES,
  TRANSFER_LOOKUP_NOT_FOUND,
  TRANSFER_STATUSES,
} from './provider-rules.ts';

const doc = loadSpec();
const validator = createValidator(doc);
const catalog = errorCatalog(doc);
const opKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const byKey = new Map(operations(doc).map((op) => [opKey(op.method, op.path), op]));

function operation(key: string) {
  const op = byKey.get(key);
  if (!op) throw new Error(`the spec has no operation ${key}`);
  return op;
}
function response(key: string, status: number): JsonObject {
  const responses = operation(key).operation.responses as JsonObject;
  const found = deref(doc, responses[String(status)] ?? null);
  if (!isObject(found)) throw new Error(`${key} has no ${status} response`);
  return found;
}
function idempotencyParameter(key: string): JsonObject {
  const params = (operation(key).operation.parameters ?? []) as JsonObject[];
  const found = params.map((p) => deref(doc, p)).find((p) => isObject(p) && p.name === 'Idempotency-Key' && p.in === 'header');
  if (!isObject(found)) throw new Error(`${key} has no Idempotency-Key header parameter`);
  return found;
}

describe('the spec carries every provider rule', () => {
  it('has the six documented operations, tagged by product', () => {
    for (const key of Object.values(OPERATIONS)) {
      const { operation: op } = operation(key);
      const product = key.includes('/banking/') ? 'Banking' : key.includes('/cards') ? 'Cards' : 'Checkout';
      expect(op.tags, key).toEqual([product]);
    }
  });

  it.each(ERROR_RULES.flatMap((r) => r.operations.map((op) => [r.code, r.status, op] as const)))(
    '%s is a %i on %s',
    (code, status, op) => {
      const entries = catalog.filter((e) => e.code === code && opKey(e.method, e.path) === op);
      expect(entries.map((e) => e.status), `${code} on ${op}`).toEqual([status]);
    },
  );

  it('gives banking_transfer_not_found (404) to a transfer lookup by id, marked assumed', () => {
    const entry = catalog.find((e) => e.code === TRANSFER_LOOKUP_NOT_FOUND.code);
    expect(entry?.status).toBe(TRANSFER_LOOKUP_NOT_FOUND.status);
    expect(entry?.method).toBe('get');
    expect(operation(opKey(entry!.method, entry!.path)).operation['x-assumed']).toBe(true);
  });

  it('gives no documented code a second status', () => {
    const documented = new Set(ERROR_RULES.map((r) => r.code));
    for (const entry of catalog.filter((e) => documented.has(e.code))) {
      expect(entry.status, entry.code).toBe(ERROR_RULES.find((r) => r.code === entry.code)!.status);
    }
  });

  it('marks every code the provider does not name as assumed', () => {
    const named = new Set([...ERROR_RULES.map((r) => r.code), TRANSFER_LOOKUP_NOT_FOUND.code]);
    const unnamed = catalog.filter((e) => !named.has(e.code));
    expect(unnamed.length).toBeGreaterThan(0);
    for (const entry of unnamed) expect(entry.assumed, `${entry.code} must be x-assumed`).toBe(true);
  });

  it('answers transfer creation with 201 Transfer and a temporary 503, with the four statuses', () => {
    const created = response(STATUS_RULES.transferCreated.operation, STATUS_RULES.transferCreated.status);
    expect(JSON.stringify(created)).toContain('#/components/schemas/Transfer');
    response(STATUS_RULES.temporaryUnavailable.operation, STATUS_RULES.temporaryUnavailable.status);
    const status = deref(doc, (doc.components.schemas as JsonObject).TransferStatus!) as JsonObject;
    expect(status.enum).toEqual(TRANSFER_STATUSES);
  });

  it('declares the edge 502/504 without a JSON body on every operation', () => {
    for (const { method, path } of operations(doc)) {
      for (const status of STATUS_RULES.edgeWithoutJsonBody) {
        const r = response(opKey(method, path), status);
        expect(r.content, `${method} ${path} ${status}`).toBeUndefined();
        expect(String(r.description)).toMatch(/same `?Idempotency-Key/);
      }
    }
  });

  it('authenticates every operation with x-api-key and nothing else', () => {
    const schemes = (doc.components.securitySchemes ?? {}) as JsonObject;
    expect(Object.values(schemes)).toEqual([expect.objectContaining({ type: 'apiKey', in: 'header', name: AUTH.header })]);
    const [schemeName] = Object.keys(schemes);
    expect(doc.security).toEqual([{ [schemeName!]: [] }]);
    for (const { operation: op } of operations(doc)) expect(op.security).toBeUndefined();
    expect(JSON.stringify(schemes)).toContain(AUTH.keyPrefix);
  });

  it('requires Idempotency-Key on exactly the five POSTs', () => {
    for (const key of IDEMPOTENT_OPERATIONS) expect(idempotencyParameter(key).required, key).toBe(true);
    const posts = operations(doc).filter((o) => o.method === 'post').map((o) => opKey(o.method, o.path));
    expect(posts.sort()).toEqual([...IDEMPOTENT_OPERATIONS].sort());
  });

  it('constrains the checkout Idempotency-Key to 8–200 of letters, digits, . _ : -', () => {
    for (const key of CHECKOUT_KEY.operations) {
      const schema = deref(doc, idempotencyParameter(key).schema!) as JsonObject;
      expect(schema.minLength).toBe(CHECKOUT_KEY.minLength);
      expect(schema.maxLength).toBe(CHECKOUT_KEY.maxLength);
      const validate = validator.compile(schema);
      for (const value of CHECKOUT_KEY.valid) expect(validate(value), `${key} accepts ${value}`).toBe(true);
      for (const value of CHECKOUT_KEY.invalid) expect(validate(value), `${key} rejects ${value}`).toBe(false);
    }
  });

  it('expresses the checkout amount rules in the schema', () => {
    const validate = validator.schemaAt('#/components/schemas/CheckoutSessionCreate');
    for (const amount of CHECKOUT_AMOUNT.valid) expect(validate({ amount }), `accepts ${JSON.stringify(amount)}`).toBe(true);
    for (const amount of CHECKOUT_AMOUNT.invalid) expect(validate({ amount }), `rejects ${JSON.stringify(amount)}`).toBe(false);
  });

  it('makes amount and discountPercent mutually exclusive, and takes a payment method', () => {
    const validate = validator.schemaAt('#/components/schemas/CheckoutSessionCreate');
    expect(validate({ amount: '10.00', discountPercent: 10 })).toBe(false);
    expect(validate({ discountPercent: 10, paymentMethod: 'pix' })).toBe(true);
    expect(validate({ amount: 37.45, paymentMethod: 'pix' })).toBe(true);
  });

  it('puts Retry-After on provider_rate_limited', () => {
    const entry = catalog.find((e) => e.code === RETRY_AFTER.code)!;
    const r = response(RETRY_AFTER.operation, entry.status);
    expect(Object.keys((r.headers ?? {}) as JsonObject)).toContain(RETRY_AFTER.header);
    expect(entry.retryable).toBe(true);
  });

  it('states the limits machine-readably: 600 per 15 minutes per key, a stricter card limit, 60 s after a transfer 503', () => {
    expect(doc['x-rate-limit']).toMatchObject({ limit: LIMITS.defaultRequests, windowSeconds: LIMITS.defaultWindowSeconds, scope: 'api-key' });
    const cardLimit = operation(OPERATIONS.cards).operation['x-rate-limit'] as JsonObject;
    expect(Number(cardLimit.limit)).toBeLessThan(LIMITS.defaultRequests);
    expect(cardLimit['x-assumed']).toBe(true);
    const retry = operation(OPERATIONS.transfers).operation['x-retry'] as JsonObject;
    expect(retry.temporaryUnavailable).toMatchObject({ minDelaySeconds: LIMITS.transferRetryMinDelaySeconds, sameIdempotencyKey: true });
  });

  it('describes the transfer retry-outcome table and the pending-review condition', () => {
    const description = String(operation(OPERATIONS.transfers).operation.description);
    for (const text of ['`pending` or `completed`', '`failed` or `cancelled`', 'banking_transfer_attempt_pending_review', 'at least 60 seconds', 'jitter']) {
      expect(description).toContain(text);
    }
  });
});
