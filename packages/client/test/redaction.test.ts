// The API key never leaves the client except in the x-api-key header: not in an error's message, its
// enumerable fields, its JSON or its inspection, and not in a log or retry event.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createPaymentsClient } from '../src/index.ts';
import { errorBody, scriptedServer, type Reply } from './scripted-fetch.ts';

const API_KEY = 'svc_live_TOPSECRETredaction42';

const cases: [string, Reply[], Record<string, unknown>][] = [
  ['ApiError', [{ status: 409, json: errorBody('banking_transfer_idempotency_conflict') }], {}],
  ['EdgeError', [{ status: 502, text: 'bad gateway' }], { retry: { maxAttempts: 2 } }],
  ['NetworkError', ['network-error'], { retry: { maxAttempts: 2 } }],
  ['TimeoutError', ['hang'], { retry: { maxAttempts: 1 }, timeoutMs: 10 }],
  ['ApiError 503 after retries', [{ status: 503, json: errorBody('temporarily_unavailable') }], { retry: { operations: { createTransfer: { maxAttempts: 3 } } } }],
];

describe('the API key is never exposed', () => {
  it.each(cases)('%s', async (_name, script, extra) => {
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
      await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: '1.00' }, idempotencyKey: 'order-1:transfer' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    const err = caught as Error;
    const surfaces = [err.message, String(err.stack), JSON.stringify(err), inspect(err, { depth: 10, showHidden: true }), JSON.stringify(Object.entries(err)), JSON.stringify(events)];
    for (const text of surfaces) expect(text).not.toContain('svc_live_');
    expect(JSON.stringify(err)).toContain('order-1:transfer'); // the key to resume with IS there
    expect(server.sent[0]!.headers['x-api-key']).toBe(API_KEY); // and the header did carry the API key
  });
});
