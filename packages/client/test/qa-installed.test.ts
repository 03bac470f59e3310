// Found by a QA pass from the installed package (plain JS and ESM apps), each pinned by a test that failed
// before the fix: a string timeoutMs, a 2xx with no body, a baseUrl fetch cannot use, a negative
// Retry-After, an apiKey that is not a header value.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PaymentsError, ResponseError, classifyTransfer, createPaymentsClient, type PaymentsClientOptions } from '../src/index.ts';
import { errorBody, failure, scriptedClient, scriptedServer, type Reply } from './scripted-fetch.ts';

const API_KEY = 'svc_live_qainstalled01';
const body = { recipientId: 'rcp_1', amount: '150.00' };

const setup = (script: Reply[], extra: Partial<PaymentsClientOptions> = {}) => scriptedClient(script, { apiKey: API_KEY, ...extra });

/** The creation error, or a failure of the test when creation succeeds. */
function refusedAtCreation(options: Record<string, unknown>): PaymentsError {
  const server = scriptedServer([{ status: 200, json: {} }]);
  try {
    createPaymentsClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', fetch: server.fetch, ...options } as PaymentsClientOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(PaymentsError);
    expect(err).toMatchObject({ attempts: 0, mayRetrySameKey: false, newKeySafe: true });
    return err as PaymentsError;
  }
  throw new Error(`expected createPaymentsClient to refuse ${JSON.stringify(options)}`);
}

describe('timeoutMs must be a number', () => {
  // From an environment variable in plain JS: '5000' passed `>= 1 && < 2**31` (coerced) and then every attempt timed out at once.
  it.each(['5000', '1', '', ' 30000 ', true, [5000], { valueOf: () => 5000 }])('%j → refused at creation like any bad timeoutMs', (timeoutMs) => {
    expect(refusedAtCreation({ timeoutMs }).message).toMatch(/invalid timeoutMs/);
  });

  it('a number still works, and undefined means the default', async () => {
    for (const timeoutMs of [5000, undefined]) {
      const { server, client } = setup([{ status: 200, json: { balances: [] } }], timeoutMs === undefined ? {} : { timeoutMs });
      await expect(client.GET('/v1/banking/balance')).resolves.toMatchObject({ data: { balances: [] }, attempts: 1 });
      expect(server.sent).toHaveLength(1);
    }
  });
});

describe('a 2xx without its JSON body: the outcome is unknown (every 2xx of this API has a JSON body)', () => {
  it.each([
    ['empty, Content-Length: 0 (what Node sends for writeHead(201); end())', { status: 201, headers: { 'content-length': '0' } }],
    ['empty, no Content-Length (chunked)', { status: 201 }],
    ['JSON null', { status: 201, json: null }],
  ] as const)('a transfer answered 201 %s → ResponseError with key and attempts; unresolved', async (_why, reply) => {
    const { server, client } = setup([reply as Reply]);
    const err = await failure(client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-1:transfer' }));
    expect(err).toBeInstanceOf(ResponseError);
    expect(err).toMatchObject({ status: 201, idempotencyKey: 'order-1:transfer', attempts: 1, mayRetrySameKey: true, newKeySafe: false, operationId: 'createTransfer' });
    expect(err.message).toMatch(/outcome unknown/);
    expect(classifyTransfer(err)).toMatchObject({ kind: 'unresolved', idempotencyKey: 'order-1:transfer' });
    expect(server.sent).toHaveLength(1);
  });

  it('a GET answered 200 with an empty body → ResponseError too', async () => {
    const { client } = setup([{ status: 200, headers: { 'content-length': '0' } }]);
    const err = await failure(client.GET('/v1/banking/balance'));
    expect(err).toBeInstanceOf(ResponseError);
    expect(err).toMatchObject({ status: 200, attempts: 1, operationId: 'getBankingBalance' });
  });

  it('from a real HTTP server (res.writeHead(201); res.end()) through the default fetch', async () => {
    const http = createServer((req, res) => {
      req.resume();
      res.writeHead(201);
      res.end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const client = createPaymentsClient({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}` });
      const err = await failure(client.POST('/v1/banking/transfers', { body, idempotencyKey: 'order-2:transfer' }));
      expect(err).toBeInstanceOf(ResponseError);
      expect(err).toMatchObject({ status: 201, idempotencyKey: 'order-2:transfer', attempts: 1 });
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('baseUrl must be an absolute http: or https: URL', () => {
  // 'localhost:1' (no scheme: read as the scheme "localhost:") was a NetworkError retried for minutes, 10 attempts over 204 s on a transfer.
  it.each(['localhost:1', 'ftp://x', 'file:///tmp/x', 'ws://127.0.0.1:1', '127.0.0.1:8080', '/v1', 'api.example.com', '', 'http://', undefined, 42])(
    '%j → refused at creation, with a typed error that says so',
    (baseUrl) => {
      expect(refusedAtCreation({ baseUrl }).message).toMatch(/baseUrl/);
    },
  );

  it.each(['http://127.0.0.1:1', 'https://api.example.com', 'https://api.example.com/', 'HTTPS://API.EXAMPLE.COM/base', 'http://[::1]:8080'])('%j is accepted', async (baseUrl) => {
    const { server, client } = setup([{ status: 200, json: { balances: [] } }], { baseUrl });
    await client.GET('/v1/banking/balance');
    expect(server.sent.map((s) => s.path)).toEqual([`${new URL(baseUrl).pathname.replace(/\/$/, '')}/v1/banking/balance`]);
  });
});

describe('an invalid Retry-After is ignored: the normal backoff, as without one', () => {
  const limited = (retryAfter: string): Reply => ({ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': retryAfter } });

  // '-5' was read by Date.parse as a date in 2001, a wait of 0; so were other strings with a number in them.
  it.each(['-5', '-1', '-0.5', 'in 5', 'soon', 'Infinity', '1e999'])('Retry-After: %j → the backoff (375 ms here), and retryAfterMs undefined', async (retryAfter) => {
    const { server, client } = setup([limited(retryAfter), { status: 200, json: {} }]);
    await client.GET('/v1/banking/balance');
    expect(server.sleeps).toEqual([375]);
    const last = setup([limited(retryAfter)], { retry: { maxAttempts: 1 } });
    expect(await failure(last.client.GET('/v1/banking/balance'))).toMatchObject({ status: 429, retryAfterMs: undefined });
  });

  it('valid ones are still read: seconds, and the three HTTP-date forms against the injected clock', async () => {
    for (const [retryAfter, ms] of [
      ['0', 0],
      ['2', 2_000],
      ['Thu, 01 Jan 1970 00:00:04 GMT', 4_000],
      ['Thursday, 01-Jan-70 00:00:05 GMT', 5_000],
      ['Thu Jan  1 00:00:06 1970', 6_000],
      ['Wed, 31 Dec 1969 23:59:00 GMT', 0], // a date already past: at once
    ] as const) {
      const { server, client } = setup([limited(retryAfter), { status: 200, json: {} }]);
      await client.GET('/v1/banking/balance');
      expect(server.sleeps, retryAfter).toEqual([ms]);
    }
  });
});

describe('apiKey must be a header value HTTP carries as given', () => {
  // A newline gave a raw TypeError from Headers.set at call time, not a PaymentsError.
  it.each([
    ['a newline', 'svc_live_abc\nX-Injected: 1'],
    ['a carriage return and newline', 'svc_live_abc\r\n'],
    ['a trailing newline (a key file read as is)', 'svc_live_abc\n'],
    ['a NUL', 'svc_live_\0abc'],
    ['a character beyond Latin-1', 'svc_live_€'],
    ['a non-ASCII letter', 'svc_live_ação'],
    ['outer spaces', ' svc_live_abc '],
    ['empty', ''],
    ['not a string', 12345],
    ['missing', undefined],
  ])('%s → refused at creation, the key never in the message', (_why, apiKey) => {
    const err = refusedAtCreation({ apiKey });
    expect(err.message).toMatch(/apiKey/);
    if (typeof apiKey === 'string' && apiKey.trim()) expect(JSON.stringify(err) + err.message + err.stack).not.toContain(apiKey.trim());
  });

  it('any visible ASCII is taken, the svc_live_ prefix is the server\'s business', async () => {
    for (const apiKey of ['svc_live_abc', 'some-other key~!', 'x']) {
      const { server, client } = setup([{ status: 200, json: {} }], { apiKey });
      await client.GET('/v1/banking/balance');
      expect(server.sent[0]!.headers['x-api-key']).toBe(apiKey);
    }
  });
});
