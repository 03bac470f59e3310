// The client against the Prism mock of the bundled spec: every documented error example comes back as the
// right error (status, code, and the next steps as the catalog says), retryable ones are retried with one key, the
// edge's 502/504 become EdgeError, and every operation's success is returned as data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deref, edgeStatuses, errorCatalog, isObject, loadSpec, operations, type JsonObject } from '@payments/spec';
import { startPrism, type PrismServer } from '../../../tools/lib/prism.ts';
import { ApiError, EdgeError, createPaymentsClient } from '../src/index.ts';

const doc = loadSpec();
const ops = operations(doc);
let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism();
});
afterAll(() => prism?.stop());

/** The first request example of an operation, and path parameters from their schema examples. */
function requestFor(operationId: string) {
  const op = ops.find((o) => o.operationId === operationId)!;
  const body = deref(doc, op.operation.requestBody ?? null);
  const media = isObject(body) && isObject(body.content) ? deref(doc, body.content['application/json'] ?? null) : undefined;
  const examples = isObject(media) && isObject(media.examples) ? Object.values(media.examples) : [];
  const first = examples.length ? deref(doc, examples[0]!) : undefined;
  const path: Record<string, string> = {};
  for (const raw of (op.operation.parameters ?? []) as JsonObject[]) {
    const p = deref(doc, raw) as JsonObject;
    if (p.in === 'path') path[String(p.name)] = String(((deref(doc, p.schema!) as JsonObject).examples as string[])[0]);
  }
  return { op, body: isObject(first) ? first.value : undefined, path };
}

function client(keys: (string | null)[]) {
  return createPaymentsClient({
    apiKey: 'svc_live_prismclient01',
    baseUrl: prism.url,
    retry: { maxAttempts: 3 },
    sleep: async () => {}, // virtual time: Prism answers the same way every time
    fetch: (request, init) => {
      keys.push(request.headers.get('idempotency-key'));
      return fetch(request, init);
    },
  });
}

async function call(operationId: string, prefer?: string) {
  const keys: (string | null)[] = [];
  const { op, body, path } = requestFor(operationId);
  const init = {
    ...(body === undefined ? {} : { body }),
    ...(Object.keys(path).length ? { params: { path } } : {}),
    ...(prefer ? { headers: { Prefer: prefer } } : {}),
  };
  const send = op.method === 'get' ? client(keys).GET(op.path as never, init as never) : client(keys).POST(op.path as never, init as never);
  try {
    return { result: await send, keys };
  } catch (error) {
    return { error, keys };
  }
}

describe('the client against Prism', () => {
  const catalog = errorCatalog(doc);

  it.each(catalog.map((e) => [e.operationId, e.status, e.code, e] as const))('%s %i %s', async (operationId, status, code, entry) => {
    const { error, keys } = await call(operationId, `code=${status}, example=${code}`);
    expect(error).toBeInstanceOf(ApiError);
    // The key already started something (sections 3 and 7): never a new key; pending review is asked again with the same one.
    const keyInUse = code === 'banking_transfer_attempt_pending_review' || code === 'banking_transfer_idempotency_conflict';
    expect(error).toMatchObject({
      status,
      code,
      operationId,
      mayRetrySameKey: entry.retryable || code === 'banking_transfer_attempt_pending_review',
      // Nothing happened: a 4xx refusal, or a 5xx the catalog calls definite (not x-retryable).
      newKeySafe: !keyInUse && (status < 500 || !entry.retryable),
    });
    expect((error as ApiError).requestId).toBe(entry.example.requestId);
    const expectedAttempts = entry.retryable ? 3 : 1;
    expect((error as ApiError).attempts).toBe(expectedAttempts);
    expect(keys).toHaveLength(expectedAttempts);
    expect(new Set(keys).size).toBe(1);
    if (entry.method === 'post') expect(keys[0]).toBe((error as ApiError).idempotencyKey);
  });

  it.each(edgeStatuses(doc).map((e) => [e.operationId, e.status] as const))('%s %i from the edge → EdgeError after retries, one key', async (operationId, status) => {
    const { error, keys } = await call(operationId, `code=${status}`);
    expect(error).toBeInstanceOf(EdgeError);
    expect(error).toMatchObject({ status, mayRetrySameKey: true, newKeySafe: false, attempts: 3 });
    expect(new Set(keys).size).toBe(1);
  });

  it.each(ops.map((o) => [o.operationId] as const))('%s succeeds with typed data', async (operationId) => {
    const { result, error } = await call(operationId);
    expect(error).toBeUndefined();
    expect(result!.response.ok).toBe(true);
    expect(result!.attempts).toBe(1);
    expect(typeof result!.data).toBe('object');
  });
});
