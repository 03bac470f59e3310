// Every rule the provider's document states is in the bundled spec. The expectations come from
// provider-rules.ts (transcribed from the prose), never from the spec itself.
import { describe, expect, it } from 'vitest';
import { createValidator, deref, errorCatalog, isObject, loadSpec, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import {
  AUTH,
  CHECKOUT_AMOUNT,
  CHECKOUT_KEY,
  ERROR_BODY,
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

/** A schema and its allOf members, through $refs: every part a value must satisfy. */
function conjuncts(spec: OpenApiDocument, schema: Json, depth = 0): JsonObject[] {
  const s = deref(spec, schema);
  if (!isObject(s) || depth > 20) return [];
  const members = Array.isArray(s.allOf) ? s.allOf.flatMap((m) => conjuncts(spec, m, depth + 1)) : [];
  return [s, ...members];
}

/** Why a body schema is not the section 7 error body (empty when it is), read from the schema's keywords. */
function errorSchemaProblems(spec: OpenApiDocument, schema: Json): string[] {
  const parts = conjuncts(spec, schema);
  const problems: string[] = [];
  if (!parts.some((p) => p.type === 'object')) problems.push('is not `type: object`');
  const required = new Set(parts.flatMap((p) => (Array.isArray(p.required) ? p.required.map(String) : [])));
  for (const field of ERROR_BODY.fields) {
    if (!required.has(field.name)) problems.push(`\`${field.name}\` is not required`);
    const prop = parts.flatMap((p) => (isObject(p.properties) && p.properties[field.name] !== undefined ? conjuncts(spec, p.properties[field.name]!) : []));
    if (prop.length === 0) {
      problems.push(`has no property \`${field.name}\``);
      continue;
    }
    const types = [...new Set(prop.filter((p) => p.type !== undefined).map((p) => JSON.stringify(p.type)))];
    if (types.length !== 1 || types[0] !== JSON.stringify(field.type)) problems.push(`\`${field.name}\` is not of type ${field.type} (${types.join(', ') || 'no type'})`);
    if (field.format && !prop.some((p) => p.format === field.format)) problems.push(`\`${field.name}\` has no \`format: ${field.format}\``);
  }
  return problems;
}

/** Why a body schema does not accept exactly the section 7 error bodies, checked by validating samples. */
function errorSchemaRejections(validate: (value: unknown) => boolean): string[] {
  const problems: string[] = [];
  if (!validate(ERROR_BODY.valid)) problems.push(`rejects a valid error body ${JSON.stringify(ERROR_BODY.valid)}`);
  for (const field of ERROR_BODY.fields) {
    const { [field.name]: _omitted, ...without } = ERROR_BODY.valid as Record<string, unknown>;
    if (validate(without)) problems.push(`accepts a body without \`${field.name}\``);
    for (const kind of [field.type, field.format]) {
      if (kind === undefined || !(kind in ERROR_BODY.wrongValues)) continue;
      const value = ERROR_BODY.wrongValues[kind];
      if (validate({ ...ERROR_BODY.valid, [field.name]: value })) problems.push(`accepts \`${field.name}\`: ${JSON.stringify(value)} (not ${kind})`);
    }
  }
  return problems;
}

/**
 * Every 4xx/5xx response of every operation: with a body, its schema is the section 7 error body (by its
 * keywords, and by validating samples); without one, it is one of the edge's statuses.
 */
function errorBodyProblems(spec: OpenApiDocument): string[] {
  const problems: string[] = [];
  const specValidator = createValidator(spec);
  let withBody = 0;
  for (const { method, path, operation: op } of operations(spec)) {
    for (const [status, raw] of Object.entries(isObject(op.responses) ? op.responses : {})) {
      if (!/^[45]/.test(status)) continue;
      const at = `${opKey(method, path)} ${status}`;
      const r = deref(spec, raw);
      if (!isObject(r)) {
        problems.push(`${at}: not a response object`);
        continue;
      }
      if (r.content === undefined) {
        if (!STATUS_RULES.edgeWithoutJsonBody.includes(Number(status))) problems.push(`${at}: has no body, which only the edge's ${STATUS_RULES.edgeWithoutJsonBody.join('/')} may lack`);
        continue;
      }
      for (const [media, m] of Object.entries(isObject(r.content) ? r.content : {})) {
        if (!isObject(m) || m.schema === undefined) {
          problems.push(`${at} ${media}: has no schema`);
          continue;
        }
        withBody++;
        const validate = specValidator.compile(isObject(m.schema) ? m.schema : {});
        for (const problem of [...errorSchemaProblems(spec, m.schema), ...errorSchemaRejections((v) => validate(v) === true)]) problems.push(`${at} ${media}: ${problem}`);
      }
    }
  }
  if (withBody === 0) problems.push('no 4xx/5xx response has a body');
  return problems;
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

  it('gives every 4xx/5xx response with a body the error body: error, code, requestId (uuid), all required', () => {
    expect(errorBodyProblems(doc)).toEqual([]);
  });

  it.each<[string, string, { property?: (schema: JsonObject) => void; unrequire?: true }, string]>([
    ['requestId loses format: uuid', 'requestId', { property: (s) => void delete s.format }, '`requestId` has no `format: uuid`'],
    ['requestId is no longer required', 'requestId', { unrequire: true }, '`requestId` is not required'],
    ['code becomes an integer', 'code', { property: (s) => void (s.type = 'integer') }, '`code` is not of type string'],
  ])('would catch an error body whose %s (checked on a copy in memory)', (_what, field, change, expected) => {
    // The first 4xx response's schema, changed in a copy of the bundled document: the check must report it.
    const copy = structuredClone(doc);
    const first = operations(copy)
      .flatMap(({ operation: op }) => Object.entries(op.responses as JsonObject))
      .map(([status, r]) => [status, deref(copy, r)] as const)
      .find(([status, r]) => status.startsWith('4') && isObject(r) && isObject(r.content));
    const media = Object.values((first![1] as JsonObject).content as JsonObject)[0] as JsonObject;
    for (const part of conjuncts(copy, media.schema!)) {
      if (change.unrequire && Array.isArray(part.required)) part.required = part.required.filter((name) => name !== field);
      if (change.property && isObject(part.properties) && part.properties[field] !== undefined) conjuncts(copy, part.properties[field]!).forEach(change.property);
    }
    expect(errorBodyProblems(copy).join('\n')).toContain(expected);
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
