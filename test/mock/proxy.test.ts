// `payments-mock proxy <server-url>`: Prism's validating proxy in front of a server, as a consumer runs it (the
// package's compiled bin, packages/mock/bin → dist). In front of the sandbox, a valid transfer (its amount 0.07
// as a JSON number, which plain Prism refused) reaches the server and comes back unflagged, and a malformed
// JSON body (which plain Prism never answered) reaches it too; in front of a
// server that breaks the contract, the answer is flagged (sl-violations), and with --errors a bad answer
// becomes a 500 and a bad request never reaches the server. A wrong command line is one line, exit code 2.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../tools/lib/paths.ts';
import { freePort } from '../../tools/lib/prism.ts';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { adminOf } from '../../packages/sandbox/test/support.ts';
import { run, start, type Running } from '../registry/support.ts';
import { sendRepeatedHeader } from './repeated-header.ts';

const BIN = join(root, 'packages', 'mock', 'bin', 'payments-mock.js');
const options = (timeoutMs: number) => ({ cwd: root, env: { ...process.env, NO_COLOR: '1' }, timeoutMs });

/** `payments-mock proxy <upstream>` on a free port, ready. */
async function proxy(upstream: string, ...extra: string[]): Promise<Running & { url: string }> {
  const port = await freePort();
  const running = await start(process.execPath, [BIN, 'proxy', upstream, '--port', String(port), ...extra], /Prism is listening on/, options(90_000));
  return { ...running, url: `http://127.0.0.1:${port}` };
}

/** A server of the API that breaks the contract: a balance whose `balances` is a string (or a 418, asked for), and a count of what reached it. */
function brokenServer(): Promise<{ server: Server; url: string; reached: string[] }> {
  const reached: string[] = [];
  const server = createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    if (req.headers['x-status'] === '418') res.writeHead(418, { 'content-type': 'application/json' }).end('{"error":"I am a teapot.","code":"teapot","requestId":"00000000-0000-4000-8000-000000000000"}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"balances":"10.00"}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reached })));
}

describe('in front of the sandbox', () => {
  let sandbox: RunningSandbox;
  let mock: Running & { url: string };
  beforeAll(async () => {
    sandbox = await startSandbox({});
    mock = await proxy(sandbox.url);
  }, 120_000);
  afterAll(async () => {
    await mock?.stop();
    await sandbox?.close();
  });

  it('forwards a valid transfer (amount 0.07 as a JSON number) and its answer, with no violation and no CORS headers', async () => {
    const { key } = await adminOf(sandbox).org();
    const headers = { 'x-api-key': key, 'content-type': 'application/json', origin: 'https://shop.example' };
    const recipient = await fetch(`${mock.url}/v1/banking/recipients`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'proxy-rcp-1' }, body: '{"rail":"usd_ach","nickname":"Proxy"}' });
    expect(recipient.status).toBe(201);
    const { id } = (await recipient.json()) as { id: string };
    const transfer = await fetch(`${mock.url}/v1/banking/transfers`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'proxy-trf-1' }, body: `{"recipientId":"${id}","amount":0.07}` });
    expect(transfer.status, String(transfer.headers.get('sl-violations'))).toBe(201);
    expect(transfer.headers.get('sl-violations')).toBeNull();
    expect((await transfer.json()) as object).toMatchObject({ recipientId: id, amount: '0.07' });
    expect([...transfer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    // A malformed JSON body is forwarded as sent (Prism alone never answered it), and the sandbox answers it.
    const malformed = await fetch(`${mock.url}/v1/banking/transfers`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'proxy-trf-2' }, body: '{"recipientId":', signal: AbortSignal.timeout(10_000) });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()) as object).toMatchObject({ code: 'invalid_request' });
    // It reached the sandbox: the balance there went down.
    const balance = await fetch(`${sandbox.url}/v1/banking/balance`, { headers: { 'x-api-key': key } });
    expect(JSON.stringify(await balance.json())).toContain('"4999.93"');
  });

  it('answers two Idempotency-Key headers 400 itself: Node would join them into one key ("a, b") and the sandbox would pay under it', async () => {
    const { org, key } = await adminOf(sandbox).org();
    const recipient = await fetch(`${sandbox.url}/v1/banking/recipients`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'proxy-rcp-two' }, body: '{"rail":"usd_ach","nickname":"Two keys"}' });
    const { id } = (await recipient.json()) as { id: string };
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const answer = await sendRepeatedHeader(`${mock.url}/v1/banking/transfers`, { method: 'POST', headers, body: `{"recipientId":"${id}","amount":"1.00"}` }, 'idempotency-key', ['proxy-two-a', 'proxy-two-b']);
    expect(answer.status, answer.text).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'invalid_request' });
    expect(await sandbox.store.transaction((tx) => tx.countTransfers(org.id))).toBe(0); // nothing reached the sandbox
  });

  it('outlives a path that does not decode and a body nested 5,000 levels deep, each answered by the sandbox (edge QA: each ended the process)', async () => {
    const { key } = await adminOf(sandbox).org();
    for (const path of ['/v1/banking/transfers/%ZZ', '/v1/banking/transfers/%FF']) {
      const res = await fetch(`${mock.url}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });
      expect(res.status, path).toBe(404);
      expect((await res.json()) as object, path).toMatchObject({ code: 'banking_transfer_not_found' });
    }
    const deep = await fetch(`${mock.url}/v1/checkout/products`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'proxy-deep-body' },
      body: `{"x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
      signal: AbortSignal.timeout(10_000),
    });
    expect(deep.status).toBe(400);
    expect((await deep.json()) as object).toMatchObject({ code: 'invalid_request', error: 'Request body is nested deeper than 100 levels.' });
    expect((await fetch(`${mock.url}/v1/banking/balance`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('forwards a chunked request as one the server can read (edge QA: Transfer-Encoding and Content-Length both, a 400)', async () => {
    const { key } = await adminOf(sandbox).org();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${mock.url}/v1/checkout/products`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'proxy-chunked' } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write('{"nam'); // no Content-Length: Node sends the body chunked
      req.end('e":"Chunked"}');
    });
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse(answer.text)).toMatchObject({ name: 'Chunked' });
  });

  it('passes a body on as it came: a number is never re-serialized (QA: 99999999999999.99 was created as …98, and 37.45000000000000001, refused by the sandbox, was forwarded as 37.45)', async () => {
    const { key } = await adminOf(sandbox).org();
    const session = (idem: string, amount: string) =>
      fetch(`${mock.url}/v1/checkout/sessions`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idem }, body: `{"amount":${amount}}` });
    const large = await session('proxy-session-large', '99999999999999.99');
    expect(large.status, await large.clone().text()).toBe(201);
    expect(((await large.json()) as { amount: unknown }).amount).toBe('99999999999999.99');
    const inexact = await session('proxy-session-inexact', '37.45000000000000001');
    expect(inexact.status).toBe(400);
    expect(((await inexact.json()) as { code: string }).code).toBe('invalid_checkout_session_amount');
  });
});

describe('in front of a server whose bodies a parse would change', () => {
  const started: Running[] = [];
  let upstream: { server: Server; url: string; received: string[] };
  beforeAll(async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += String(chunk)));
      req.on('end', () => {
        received.push(body);
        if (req.url === '/v1/banking/balance' && req.headers['x-not-json']) res.writeHead(200, { 'content-type': 'application/json' }).end('{"balances": [');
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"balances":[{"currency":"USD","available":1.10}],  "note":1e2}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
    await new Promise((resolve) => upstream?.server.close(resolve));
  });

  it("sends the request's and the answer's text unchanged, and passes on (flagged) an answer that is not JSON", async () => {
    const forwarding = await proxy(upstream.url);
    started.push(forwarding);
    const key = { 'x-api-key': 'svc_live_proxytest0000000000' };
    const answer = await fetch(`${forwarding.url}/v1/banking/balance`, { headers: key });
    expect(await answer.text()).toBe('{"balances":[{"currency":"USD","available":1.10}],  "note":1e2}');
    const body = '{ "recipientId": "rcp_1", "amount": 1.10 }';
    await fetch(`${forwarding.url}/v1/banking/transfers`, { method: 'POST', headers: { ...key, 'content-type': 'application/json', 'idempotency-key': 'proxy-raw-1' }, body });
    expect(upstream.received.at(-1)).toBe(body);
    // A body that is a JSON string (not the API's shape, flagged) keeps its quotes.
    await fetch(`${forwarding.url}/v1/banking/transfers`, { method: 'POST', headers: { ...key, 'content-type': 'application/json', 'idempotency-key': 'proxy-raw-2' }, body: '"rcp_1"' });
    expect(upstream.received.at(-1)).toBe('"rcp_1"');
    const notJson = await fetch(`${forwarding.url}/v1/banking/balance`, { headers: { ...key, 'x-not-json': '1' } });
    expect(notJson.status).toBe(200);
    expect(await notJson.text()).toBe('{"balances": [');
    expect(JSON.parse(notJson.headers.get('sl-violations') ?? '[]')).toEqual(expect.arrayContaining([expect.objectContaining({ location: expect.arrayContaining(['response', 'body']) })]));
  }, 120_000);
});

describe('in front of a server that breaks the contract', () => {
  let broken: Awaited<ReturnType<typeof brokenServer>>;
  const started: Running[] = [];
  beforeAll(async () => {
    broken = await brokenServer();
  });
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
    await new Promise((resolve) => broken?.server.close(resolve));
  });

  it('flags the answer in sl-violations; with --errors the answer (an undocumented status too) is a 500 and a bad request never reaches the server', async () => {
    const key = { 'x-api-key': 'svc_live_proxytest0000000000' };
    const flagging = await proxy(broken.url);
    started.push(flagging);
    const flagged = await fetch(`${flagging.url}/v1/banking/balance`, { headers: key });
    expect(flagged.status).toBe(200);
    expect(JSON.parse(flagged.headers.get('sl-violations') ?? '[]')).toEqual(expect.arrayContaining([expect.objectContaining({ location: expect.arrayContaining(['response', 'body']) })]));

    const strict = await proxy(broken.url, '--errors');
    started.push(strict);
    expect((await fetch(`${strict.url}/v1/banking/balance`, { headers: key })).status).toBe(500);
    // A status the operation does not document fails as well (Prism alone let a 4xx or 5xx through as a warning).
    const teapot = await fetch(`${strict.url}/v1/banking/balance`, { headers: { ...key, 'x-status': '418' } });
    expect(teapot.status).toBe(500);
    expect(JSON.stringify(await teapot.json())).toContain('Unable to match the returned status code');
    const before = broken.reached.length;
    const refused = await fetch(`${strict.url}/v1/banking/transfers`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json', 'idempotency-key': 'proxy-bad-1' },
      body: '{"recipientId":"rcp_1","amount":37.455}',
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(await refused.json())).toContain('multipleOf');
    expect(broken.reached.slice(before)).toEqual([]);
  }, 200_000);
});

it('a port already taken: one line naming it, exit 1 (Prism printed its whole option list)', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as AddressInfo).port;
    const outcome = await run(process.execPath, [BIN, '--port', String(port)], options(30_000));
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe(`payments-mock: 127.0.0.1:${port} is not free (EADDRINUSE): pick another with --port N or PORT=N (0 = any free port)\n`);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

describe('a wrong command line', () => {
  it.each([
    [['proxy'], /proxy needs the server to forward to/],
    [['proxy', 'localhost:8080'], /must be http or https; got "localhost:8080"/],
    [['proxy', '127.0.0.1:8080'], /must be absolute/],
    [['proxy', 'http://127.0.0.1:8080', 'extra'], /unexpected argument "extra"/],
    [['serve'], /unknown command "serve"/],
    [['--port', 'abc'], /--port must be a port number/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--host='], /--host needs an interface/],
    [['--port', '-1'], /argument is ambiguous/],
  ])('payments-mock %j: one line naming the mistake, exit code 2', async (args, message) => {
    const outcome = await run(process.execPath, [BIN, ...args], options(30_000));
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    expect(outcome.stderr).toContain('see payments-mock --help');
  });
});
