// The sandbox's HTTP edge, as a new user meets it: headers over Node's limit, requests that are not HTTP,
// too slow or without Host, bodies that are not UTF-8 or never complete, HEAD on the reads, and methods a
// path does not have. Each refusal is the shared JSON error body; HEAD answers as GET, without a body.
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { createServer, request } from 'node:http';
import { loadSpec, operations, type OpenApiDocument } from '@payments/spec';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { answerClientError, type LogLine } from '../src/http.ts';
import { adminSpecPath, startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { UUID, adminOf, call } from './support.ts';

let sandbox: RunningSandbox;
let key = '';
let orgId = '';
const logged: LogLine[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ logger: (line) => logged.push(line) });
  ({ key, org: { id: orgId } } = await adminOf(sandbox).org());
});
afterAll(() => sandbox?.close());

/** Raw bytes out, the raw answer back (the connection closes after it); `finished: false` leaves the request open. */
function rawExchange(bytes: Buffer | string, { port = sandbox.port, finished = true } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    if (finished) socket.end(bytes);
    else socket.write(bytes); // the request never ends: the server answers or closes on its own
  });
}

it('headers over the server limit: 431 with the shared error body', async () => {
  const answer = await rawExchange(`GET /v1/banking/balance HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 431 /);
  expect(head).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(body!)).toEqual({ error: expect.any(String), code: 'request_headers_too_large', requestId: expect.stringMatching(UUID) });
});

it('a request that is not HTTP: 400 with the shared error body', async () => {
  const answer = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toMatchObject({ code: 'invalid_request' });
});

it('an HTTP/1.1 request without Host: 400 with the shared error body (Node alone answers a bare 400)', async () => {
  const answer = await rawExchange(`GET /v1/banking/balance HTTP/1.1\r\nx-api-key: ${key}\r\n\r\n`);
  const [head, body] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 400 /);
  expect(head).toMatch(/connection: close/i);
  expect(JSON.parse(body!)).toEqual({ error: expect.stringMatching(/Host/), code: 'invalid_request', requestId: expect.stringMatching(UUID) });
  // HTTP/1.0 has no Host requirement.
  expect(await rawExchange(`GET /v1/banking/balance HTTP/1.0\r\nx-api-key: ${key}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
});

it('a request too slow to arrive: 408 with the shared error body', async () => {
  // The sandbox keeps Node's time limits (headers 60 s, request 300 s); a server with short ones and the
  // sandbox's clientError answer shows what a client that never finishes its headers gets.
  const server = createServer({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 }, (_req, res) => res.end());
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const answer = await rawExchange('GET / HTTP/1.1\r\nhost: x\r\n', { port: (server.address() as AddressInfo).port, finished: false });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual({ error: expect.any(String), code: 'request_timeout', requestId: expect.stringMatching(UUID) });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('an admin body that is not valid UTF-8 is refused (400), never stored with replacement characters', async () => {
  const body = Buffer.concat([Buffer.from('{"name":"Jo'), Buffer.from([0xc3, 0x28]), Buffer.from('o","banking":true}')]);
  const answer = await fetch(`${sandbox.url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminToken}`, 'content-type': 'application/json' }, body });
  expect(answer.status).toBe(400);
  expect(await answer.json()).toEqual({ error: expect.stringMatching(/UTF-8/), code: 'invalid_request', requestId: expect.stringMatching(UUID) });
});

it('a JSON body that is not valid UTF-8 is refused (400), never stored with replacement characters', async () => {
  const nickname = Buffer.concat([Buffer.from('{"rail":"usd_ach","nickname":"Jo'), Buffer.from([0xc3, 0x28]), Buffer.from('o"}')]);
  const status = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${sandbox.url}/v1/banking/recipients`, { method: 'POST', headers: { 'x-api-key': key, 'idempotency-key': 'utf8-test-1', 'content-type': 'application/json', 'content-length': nickname.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(nickname);
  });
  expect(status.status, status.text).toBe(400);
  expect(JSON.parse(status.text)).toMatchObject({ code: 'invalid_request', error: expect.stringMatching(/UTF-8/) });
  // The key was not used: the same key with a valid body creates the recipient.
  const valid = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'utf8-test-1', body: { rail: 'usd_ach', nickname: 'João' } });
  expect(valid.status, valid.text).toBe(201);
  expect(valid.body.nickname).toBe('João');
});

it('HEAD on a read answers as GET, without a body; HEAD elsewhere gets what GET would', async () => {
  const get = await call(sandbox.url, 'GET', '/v1/banking/balance', { key });
  const head = await fetch(`${sandbox.url}/v1/banking/balance`, { method: 'HEAD', headers: { 'x-api-key': key } });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  expect(await head.text()).toBe('');
  expect((await fetch(`${sandbox.url}/v1/banking/balance`, { method: 'HEAD' })).status).toBe(401);
  expect((await fetch(`${sandbox.url}/v1/banking/transfers/trf_missing`, { method: 'HEAD', headers: { 'x-api-key': key } })).status).toBe(404);
  expect((await fetch(`${sandbox.url}/v1/banking/recipients`, { method: 'HEAD', headers: { 'x-api-key': key } })).status).toBe(405);
  expect(orgId).toMatch(/^org_/);
});

/** Each path of a spec → the methods it has, uppercased. */
function methodsByPath(doc: OpenApiDocument): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const { path, method } of operations(doc)) byPath.set(path, [...(byPath.get(path) ?? []), method.toUpperCase()]);
  expect(byPath.size).toBeGreaterThan(3);
  return byPath;
}

/** A method a path does not have gets 405 with the shared body; returns the methods its Allow header lists. */
async function allowedAfter405(url: string, methods: string[], headers: Record<string, string>): Promise<string[] | undefined> {
  const answer = await fetch(url, { method: methods.includes('PUT') ? 'PATCH' : 'PUT', headers });
  expect(answer.status, url).toBe(405);
  expect(await answer.json()).toEqual({ error: expect.any(String), code: 'method_not_allowed', requestId: expect.stringMatching(UUID) });
  return answer.headers.get('allow')?.split(', ').toSorted();
}

it('a method a path of the spec does not have: 405, the shared body, and Allow listing the methods it has', async () => {
  for (const [template, methods] of methodsByPath(loadSpec())) {
    const url = `${sandbox.url}${template.replace(/\{[^}]+\}/g, 'x_1')}`;
    expect(await allowedAfter405(url, methods, { 'x-api-key': key }), url).toEqual([...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].toSorted());
  }
});

it('the same on the admin API, by its own spec', async () => {
  const adminSpec = JSON.parse(readFileSync(adminSpecPath, 'utf8')) as OpenApiDocument;
  for (const [template, methods] of methodsByPath(adminSpec)) {
    const url = `${sandbox.url}${template.replace(/\{[^}]+\}/g, 'x_1')}`;
    expect(await allowedAfter405(url, methods, { authorization: `Bearer ${sandbox.adminToken}` }), url).toEqual(methods.toSorted());
  }
});

it('a client that goes away before its body is complete: logged as such, not as a sandbox failure', async () => {
  const stderr = vi.spyOn(process.stderr, 'write');
  try {
    const socket = connect(sandbox.port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/banking/recipients HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"rail":`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    let line: LogLine | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      line = logged.find((l) => l.method === 'POST' && l.code === 'request_aborted');
    }
    expect(line).toMatchObject({ path: '/v1/banking/recipients', status: 0, code: 'request_aborted' });
    expect(stderr.mock.calls.map(([text]) => String(text)).join('')).not.toMatch(/unexpected error/);
  } finally {
    stderr.mockRestore();
  }
});
