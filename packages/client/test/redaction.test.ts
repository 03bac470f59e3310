// The API key never leaves the client except in the x-api-key header: not in an error's message, its
// enumerable fields, its JSON or its inspection, and not in a log or retry event.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../src/index.ts';
import { errorBody, scriptedServer, type Reply } from './scripted-fetch.ts';

const API_KEY = 'svc_live_TOPSECRETredaction42';

const body = { recipientId: 'rcp_1', amount: '1.00' };
const cases: [string, Reply[], Record<string, unknown>, (() => Record<string, unknown>)?][] = [
  ['ApiError', [{ status: 409, json: errorBody('banking_transfer_idempotency_conflict') }], {}],
  ['ValidationError (bad amount, nothing sent)', [], {}, () => ({ body: { recipientId: 'rcp_1', amount: 1.001 } })],
  ['ValidationError (bad key, nothing sent)', [], {}, () => ({ idempotencyKey: '' })],
  ['AbortError (already aborted)', [], {}, () => ({ signal: AbortSignal.abort() })],
  ['AbortError (during the 60 s wait)', [{ status: 503, json: errorBody('temporarily_unavailable') }], { sleep: undefined }, () => ({ signal: AbortSignal.timeout(30) })],
  ['AbortError (while reading the answer)', [{ stall: 201 }], {}, () => ({ signal: AbortSignal.timeout(30) })],
  ['TimeoutError (while reading the answer)', [{ stall: 201 }], { timeoutMs: 20 }],
  ['ResponseError (a 2xx answer that is not JSON)', [{ status: 201, text: 'not json' }], {}],
  ['EdgeError', [{ status: 502, text: 'bad gateway' }], { retry: { maxAttempts: 2 } }],
  ['NetworkError', ['network-error'], { retry: { maxAttempts: 2 } }],
  ['TimeoutError', ['hang'], { retry: { maxAttempts: 1 }, timeoutMs: 10 }],
  ['ApiError 503 after retries', [{ status: 503, json: errorBody('temporarily_unavailable') }], { retry: { operations: { createTransfer: { maxAttempts: 3 } } } }],
];

describe('the API key is never exposed', () => {
  it.each(cases)('%s', async (name, script, extra, makeInit = () => ({})) => {
    const init = makeInit();
    const server = scriptedServer(script);
    const events: unknown[] = [];
    const client = createPaymentsClient({
      apiKey: API_KEY,
      baseUrl: 'http://127.0.0.1:1',
      fetch: server.fetch,
      sleep: server.sleep,
      now: server.now,
      logger: (e) => events.push(e),
      onRetry: (e) => events.push(e),
      ...extra,
    });
    let caught: unknown;
    try {
      await client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-1:transfer', ...init });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    const err = caught as Error;
    expect(err.name).toBe(name.split(' ')[0]);
    const surfaces = [err.message, String(err.stack), JSON.stringify(err), inspect(err, { depth: 10, showHidden: true }), JSON.stringify(Object.entries(err)), JSON.stringify(events)];
    for (const text of surfaces) expect(text).not.toContain('svc_live_');
    const cause = (err as { cause?: unknown }).cause;
    if (cause !== undefined) expect(inspect(cause, { depth: 10, showHidden: true })).not.toContain('svc_live_');
    if (init.idempotencyKey === undefined) expect(JSON.stringify(err)).toContain('order-1:transfer'); // the key to resume with IS there
    for (const sent of server.sent) expect(sent.headers['x-api-key']).toBe(API_KEY); // and the header did carry the API key
  });
});
