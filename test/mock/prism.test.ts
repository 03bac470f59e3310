// Prism's stateless mock of the bundled document, exercised from the document itself: every error of the
// catalog by `Prefer`, every edge status without a body, one success per operation validated with Ajv,
// and Prism's request validation on the documented bad (and good) inputs: all 10,000 two-decimal amounts
// 0.01…100.00 as JSON numbers are accepted (Prism runs with our multipleOf tolerance), and Prism's own
// rejections carry the derived document's generic example, never a catalog message about something else.
// Requests are built from the spec (parameter examples, request-body examples, the security scheme's
// header), never typed here.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createValidator,
  deref,
  edgeStatuses,
  errorCatalog,
  isObject,
  loadSpec,
  operations,
  type Json,
  type JsonObject,
  type OperationRef,
} from '@payments/spec';
import { apiKeyHeader, startPrism, type PrismServer } from '../../tools/lib/prism.ts';
import { prismValidationExample } from '../../tools/lib/prism-document.ts';
import { sendRepeatedHeader } from './repeated-header.ts';

const doc = loadSpec();
const validator = createValidator(doc);
const API_KEY = 'svc_live_test123';
const keyHeader = apiKeyHeader(doc);

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(async () => {
  await prism?.stop();
});

// ---- reading requests and responses from the document ------------------------------------------------

const byId = new Map(operations(doc).map((op) => [op.operationId, op]));
function operation(operationId: string): OperationRef {
  const op = byId.get(operationId);
  if (!op) throw new Error(`no operation ${operationId} in the spec`);
  return op;
}

const asObject = (value: Json | undefined): JsonObject => {
  const resolved = value === undefined ? undefined : deref(doc, value);
  return isObject(resolved) ? resolved : {};
};

/** Path-item and operation parameters, resolved; the operation's win on the same (in, name). */
function parameters(op: OperationRef): JsonObject[] {
  const item = asObject(doc.paths[op.path]);
  const all = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : [])];
  const merged = new Map<string, JsonObject>();
  for (const raw of all) {
    const p = asObject(raw);
    merged.set(`${String(p.in)}:${String(p.name).toLowerCase()}`, p);
  }
  return [...merged.values()];
}

/** Errors from Ajv as one readable line each. */
const ajvErrors = (errors: unknown): string => JSON.stringify(errors, null, 2);

/** A value for `schema` taken from the spec (example, examples, const, enum, default), checked against it. */
function sampleFor(schema: Json | undefined, explicit: Json | undefined, where: string): Json {
  const s = asObject(schema);
  const firstPart = Array.isArray(s.allOf) ? asObject(s.allOf[0]) : {};
  const candidates: (Json | undefined)[] = [
    explicit,
    s.example,
    Array.isArray(s.examples) ? s.examples[0] : undefined,
    s.const,
    Array.isArray(s.enum) ? s.enum[0] : undefined,
    s.default,
    firstPart.example,
    Array.isArray(firstPart.examples) ? firstPart.examples[0] : undefined,
  ];
  const value = candidates.find((c) => c !== undefined);
  if (value === undefined) throw new Error(`${where}: the spec gives no example to build a valid value from`);
  const validate = validator.compile(s);
  if (!validate(value)) throw new Error(`${where}: the spec's example ${JSON.stringify(value)} is invalid: ${ajvErrors(validate.errors)}`);
  return value;
}

function jsonMedia(container: JsonObject): JsonObject | undefined {
  const content = asObject(container.content);
  return isObject(content['application/json']) ? content['application/json'] : undefined;
}

/** The named request-body examples of an operation, resolved to their values. */
function requestExamples(op: OperationRef): JsonObject[] {
  const media = jsonMedia(asObject(op.operation.requestBody));
  if (!media) return [];
  const named = Object.values(asObject(media.examples)).map((e) => asObject(e).value);
  return [...named, media.example].filter((v): v is JsonObject => isObject(v));
}

interface SpecRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Json;
}

/** A valid request for the operation, from the spec's examples. */
function validRequest(op: OperationRef): SpecRequest {
  let path = op.path;
  const headers: Record<string, string> = {};
  const security = Array.isArray(op.operation.security) ? op.operation.security : doc.security;
  if (Array.isArray(security) && security.length > 0) headers[keyHeader] = API_KEY;
  for (const p of parameters(op)) {
    if (p.required !== true) continue;
    const where = `${op.operationId} ${String(p.in)} parameter ${String(p.name)}`;
    const value = String(sampleFor(p.schema, p.example, where));
    if (p.in === 'path') path = path.replace(`{${String(p.name)}}`, encodeURIComponent(value));
    else if (p.in === 'header') headers[String(p.name)] = value;
    else if (p.in === 'query') path += `${path.includes('?') ? '&' : '?'}${encodeURIComponent(String(p.name))}=${encodeURIComponent(value)}`;
  }
  const requestBody = asObject(op.operation.requestBody);
  const media = jsonMedia(requestBody);
  if (!media) return { method: op.method.toUpperCase(), path, headers };
  const body = requestExamples(op)[0];
  if (body === undefined) throw new Error(`${op.operationId}: the request body has no example to send`);
  const validate = validator.compile(asObject(media.schema));
  if (!validate(body)) throw new Error(`${op.operationId}: the request example is invalid: ${ajvErrors(validate.errors)}`);
  headers['content-type'] = 'application/json';
  return { method: op.method.toUpperCase(), path, headers, body };
}

interface MockResponse {
  status: number;
  contentType: string | null;
  violations: string | null;
  text: string;
  json: Json | undefined;
  /** One line for assertion messages: what was sent and what came back. */
  describe: string;
}

async function send(request: SpecRequest, extraHeaders: Record<string, string> = {}): Promise<MockResponse> {
  const headers = { ...request.headers, ...extraHeaders };
  const res = await fetch(`${prism.url}${request.path}`, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = text ? (JSON.parse(text) as Json) : undefined;
  } catch {
    json = undefined;
  }
  const violations = res.headers.get('sl-violations');
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    violations,
    text,
    json,
    describe: `${request.method} ${request.path} headers=${JSON.stringify(headers)} body=${JSON.stringify(request.body)} → ${res.status} ${text.slice(0, 500)}${violations ? ` sl-violations=${violations}` : ''}`,
  };
}

/** The name under which the operation's `status` response holds the example whose value is `value`. */
function exampleName(op: OperationRef, status: number, value: JsonObject): string {
  const response = asObject(asObject(op.operation.responses)[String(status)]);
  const examples = asObject(jsonMedia(response)?.examples);
  const name = Object.keys(examples).find((key) => isDeepStrictEqual(asObject(examples[key]).value, value));
  if (!name) throw new Error(`${op.operationId} ${status}: no named example with value ${JSON.stringify(value)}`);
  return name;
}

/** The operation's success response: the lowest 2xx it declares (what Prism answers without `Prefer`). */
function successStatus(op: OperationRef): number {
  const statuses = Object.keys(asObject(op.operation.responses)).filter((s) => /^2\d\d$/.test(s)).map(Number);
  if (statuses.length === 0) throw new Error(`${op.operationId} declares no 2xx response`);
  return Math.min(...statuses);
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType);

// ---- (a) every error of the catalog, by Prefer ------------------------------------------------------------

describe('every error of the catalog comes back as its example (Prefer: code, example)', () => {
  const catalog = errorCatalog(doc);
  it('the catalog is not empty', () => expect(catalog.length).toBeGreaterThan(0));

  it.each(catalog)('$method $path → $status $code', async (entry) => {
    const op = operation(entry.operationId);
    const name = exampleName(op, entry.status, entry.example);
    const res = await send(validRequest(op), { Prefer: `code=${entry.status}, example=${name}` });
    expect(res.status, res.describe).toBe(entry.status);
    expect(res.violations, `the request built from the spec should be valid: ${res.describe}`).toBeNull();
    expect(isJson(res.contentType), res.describe).toBe(true);
    expect(res.json, res.describe).toEqual(entry.example);
  });
});

// ---- (b) edge statuses, without a JSON body --------------------------------------------------------------

describe('edge statuses come back without a JSON body', () => {
  const edges = edgeStatuses(doc);
  it('the document declares edge statuses', () => expect(edges.length).toBeGreaterThan(0));

  it.each(edges)('$operationId → $status', async ({ operationId, status }) => {
    const res = await send(validRequest(operation(operationId)), { Prefer: `code=${status}` });
    expect(res.status, res.describe).toBe(status);
    expect(isJson(res.contentType), `content-type ${res.contentType}: ${res.describe}`).toBe(false);
    expect(res.text, res.describe).toBe('');
  });
});

// ---- browser CORS is off (sections 1 and 5), in the mock too ----------------------------------------------

describe('no CORS: a browser app cannot work against the mock and then fail against the API', () => {
  it('an answer carries no Access-Control-Allow-Origin, and a preflight is not granted', async () => {
    const op = operation('createTransfer');
    const res = await fetch(`${prism.url}${validRequest(op).path}`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': `${keyHeader}, idempotency-key, content-type` } });
    expect(res.headers.get('access-control-allow-origin'), `preflight → ${res.status}`).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
    const answer = await send(validRequest(op), { origin: 'https://app.example' });
    expect(answer.status, answer.describe).toBe(successStatus(op));
    const again = await fetch(`${prism.url}${validRequest(operation('getBankingBalance')).path}`, { headers: { [keyHeader]: API_KEY, origin: 'https://app.example' } });
    expect(again.headers.get('access-control-allow-origin')).toBeNull();
  });
});

// ---- (c) one success per operation, valid against its schema ----------------------------------------------

describe('each operation answers a valid request with a success body that matches its schema', () => {
  it.each(operations(doc).map((op) => ({ ...op, label: `${op.method.toUpperCase()} ${op.path}` })))('$label', async (op) => {
    const status = successStatus(op);
    const res = await send(validRequest(op));
    expect(res.status, res.describe).toBe(status);
    expect(res.violations, res.describe).toBeNull();
    const media = jsonMedia(asObject(asObject(op.operation.responses)[String(status)]));
    if (!media) {
      expect(res.text, res.describe).toBe('');
      return;
    }
    expect(isJson(res.contentType), res.describe).toBe(true);
    const validate = validator.compile(asObject(media.schema));
    const valid = validate(res.json);
    expect(valid, `${res.describe}\nAjv errors: ${ajvErrors(validate.errors)}`).toBe(true);
  });
});

// ---- (d) Prism's request validation on the documented bad and good inputs ----------------------------------

describe("Prism's request validation", () => {
  const session = operation('createCheckoutSession');
  const transfer = operation('createTransfer');
  const balance = operation('getBankingBalance');

  /**
   * Prism answers a request that fails validation with 422 when the operation declares a 422, else 400
   * (Prism's documented rule). The contract's own answer is 400 `invalid_request`: on createTransfer, which
   * declares 422 for PIX payout errors, the mock therefore differs from the contract.
   */
  const prismValidationStatus = (op: OperationRef) => ('422' in asObject(op.operation.responses) ? 422 : 400);

  const withBody = (op: OperationRef, patch: JsonObject): SpecRequest => {
    const request = validRequest(op);
    return { ...request, body: { ...asObject(request.body), ...patch } };
  };
  const withoutHeader = (request: SpecRequest, name: string): SpecRequest => ({
    ...request,
    headers: Object.fromEntries(Object.entries(request.headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase())),
  });
  const idempotencyHeader = (op: OperationRef) => {
    const p = parameters(op).find((q) => q.in === 'header' && String(q.name).toLowerCase() === 'idempotency-key');
    if (!p) throw new Error(`${op.operationId} has no Idempotency-Key parameter`);
    return String(p.name);
  };

  const rejected: { name: string; op: OperationRef; request: () => SpecRequest; status: () => number; violation: RegExp }[] = [
    {
      name: 'a checkout session with both amount and discountPercent (all request examples merged)',
      op: session,
      request: () => withBody(session, Object.assign({}, ...requestExamples(session)) as JsonObject),
      status: () => prismValidationStatus(session),
      violation: /"code":"not"/,
    },
    ...[37.455, '37.456', 0, -1, 'abc'].map((amount) => ({
      name: `a checkout session with amount ${JSON.stringify(amount)}`,
      op: session,
      request: () => withBody(session, { amount }),
      status: () => prismValidationStatus(session),
      violation: /"location":\["request","body","amount"\]/,
    })),
    {
      name: 'a checkout session with Idempotency-Key "short" (fewer than 8 characters)',
      op: session,
      request: () => {
        const request = validRequest(session);
        return { ...request, headers: { ...withoutHeader(request, idempotencyHeader(session)).headers, [idempotencyHeader(session)]: 'short' } };
      },
      status: () => prismValidationStatus(session),
      violation: /"location":\["request","header","idempotency-key"\],"severity":"Error","code":"minLength"/,
    },
    {
      name: 'a transfer without an Idempotency-Key',
      op: transfer,
      request: () => withoutHeader(validRequest(transfer), idempotencyHeader(transfer)),
      status: () => prismValidationStatus(transfer),
      violation: /"code":"required".*idempotency-key/,
    },
    {
      name: 'a transfer whose amount is not an amount',
      op: transfer,
      request: () => withBody(transfer, { amount: 'abc' }),
      status: () => prismValidationStatus(transfer),
      violation: /"location":\["request","body","amount"\]/,
    },
    {
      // Prism answers a failed security check with 401 (the contract's assumed status for a bad key).
      name: `a request without ${keyHeader}`,
      op: balance,
      request: () => withoutHeader(validRequest(balance), keyHeader),
      status: () => 401,
      violation: /"code":401/,
    },
  ];

  it.each(rejected)('rejects $name', async ({ op, request, status, violation }) => {
    const res = await send(request());
    expect(res.status, res.describe).toBeGreaterThanOrEqual(400);
    expect(res.status, res.describe).toBeLessThan(500);
    expect(res.status, res.describe).toBe(status());
    expect(Object.keys(asObject(op.operation.responses)), `Prism answered ${res.status}, which the operation does not declare`).toContain(String(res.status));
    expect(res.violations ?? '', res.describe).toMatch(violation);
    // Whatever example Prism picks for the body, it has the shared error shape.
    const validate = validator.schemaAt('#/components/schemas/Error');
    expect(validate(res.json), `${res.describe}\nAjv errors: ${ajvErrors(validate.errors)}`).toBe(true);
    // Its own validation failures get the derived document's generic example, never a catalog entry that
    // names another problem (before: "Idempotency-Key header is required." for a bad amount, key sent).
    if (res.status !== 401) expect(res.json, res.describe).toEqual(prismValidationExample.value);
  });

  // Prism left a JSON parse error unhandled and never answered (the hook keeps the body as its text).
  it('answers a request with two Idempotency-Key headers 400 with the error body, as the parameters say the API does (Node would join them into one key)', async () => {
    const keyed = operations(doc).filter((op) => parameters(op).some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key'));
    expect(keyed.length).toBeGreaterThan(0);
    for (const op of keyed) {
      const request = validRequest(op);
      const name = idempotencyHeader(op);
      const key = request.headers[name]!;
      const answer = await sendRepeatedHeader(`${prism.url}${request.path}`, { ...request, body: request.body === undefined ? undefined : JSON.stringify(request.body) }, name, [key, `${key}-2`]);
      expect(answer.status, `${op.operationId}: ${answer.text}`).toBe(400);
      const body = JSON.parse(answer.text) as JsonObject;
      const schema = asObject(jsonMedia(asObject(asObject(op.operation.responses)['400']))?.schema);
      const validate = validator.compile(schema);
      expect(validate(body), `${op.operationId}: ${ajvErrors(validate.errors)}`).toBe(true);
      expect(errorCatalog(doc).filter((e) => e.operationId === op.operationId && e.status === 400).map((e) => e.code)).toContain(body.code);
      // Once, the same request is what the mock answers as usual.
      expect((await send(request)).status, op.operationId).toBe(successStatus(op));
    }
  });

  it('answers a malformed JSON body as a request that does not match the contract', async () => {
    const { path, headers } = validRequest(transfer);
    const res = await fetch(`${prism.url}${path}`, { method: 'POST', headers, body: '{"recipientId":', signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(prismValidationStatus(transfer));
    expect(res.headers.get('sl-violations')).toMatch(/"location":\["request","body"\]/);
    expect(await res.json()).toEqual(prismValidationExample.value);
  });

  it('outlives a path that does not decode and a body nested 5,000 levels deep (edge QA: each ended the process)', async () => {
    const { headers } = validRequest(transfer);
    for (const path of ['/v1/banking/transfers/%ZZ', '/v1/banking/transfers/%FF']) {
      const res = await fetch(`${prism.url}${path}`, { headers: { 'x-api-key': headers['x-api-key']! }, signal: AbortSignal.timeout(10_000) });
      expect(res.status, path).toBeLessThan(500);
    }
    const deep = `{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const res = await fetch(`${prism.url}${validRequest(transfer).path}`, { method: 'POST', headers, body: deep, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(prismValidationStatus(transfer));
    expect(res.headers.get('sl-violations')).toMatch(/"location":\["request","body"\]/);
    // Still serving.
    expect((await send(validRequest(transfer))).status).toBe(successStatus(transfer));
  });

  // Documented: a positive decimal with at most two decimal places, as a number or a string.
  it.each([
    { label: '37.45 as a number', amount: 37.45 },
    { label: '"37.45" as a string', amount: '37.45' },
    { label: '0.07 as a number (0.07 / 0.01 is not an integer in doubles)', amount: 0.07 },
    // A fixed tolerance (multipleOfPrecision 6, the hook's before) refused these: the quotient is off by ~2e-6.
    { label: '114533670.82 as a number', amount: 114533670.82 },
    { label: '287352512.72 as a number', amount: 287352512.72 },
    { label: '999999999999.99 as a number', amount: 999999999999.99 },
  ])('accepts a checkout session with amount $label', async ({ amount }) => {
    const res = await send(withBody(session, { amount }));
    expect(res.violations, res.describe).toBeNull();
    expect(res.status, res.describe).toBe(successStatus(session));
  });

  // Issue 14: before, Prism's exact float division refused 1,363 of these (0.07, 0.29, 1.15, 19.99…).
  it('accepts all 10,000 two-decimal amounts 0.01 … 100.00 sent as JSON numbers', async () => {
    const amounts = Array.from({ length: 10_000 }, (_, i) => (i + 1) / 100);
    const schema = validator.schemaAt('#/components/schemas/CheckoutSessionCreate');
    expect(amounts.every((amount) => schema({ amount })), 'our validator accepts them all').toBe(true);
    const base = validRequest(session);
    const refused: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < amounts.length) {
        const amount = amounts[next++]!;
        // The text on the wire is the two-decimal literal a client writes (JSON.stringify(0.07) is "0.07").
        const res = await send({ ...base, body: { ...asObject(base.body), amount } });
        if (res.status !== successStatus(session)) refused.push(res.describe);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(refused.length, refused.slice(0, 5).join('\n')).toBe(0);
  }, 600_000);
});
