// The sandbox's HTTP edge, as a new user meets it: headers over Node's limit, a body that is not UTF-8, and
// HEAD on the reads. Each refusal is the shared JSON error body; HEAD answers as GET, without a body.
import { connect } from 'node:net';
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { UUID, adminOf, call } from './support.ts';

let sandbox: RunningSandbox;
let key = '';
let orgId = '';

beforeAll(async () => {
  sandbox = await startSandbox({});
  ({ key, org: { id: orgId } } = await adminOf(sandbox).org());
});
afterAll(() => sandbox?.close());

/** Raw bytes out, the raw answer back (the connection closes after it). */
function rawExchange(bytes: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(sandbox.port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(bytes);
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
