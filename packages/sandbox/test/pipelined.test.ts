// Answers on one connection leave in the order of its requests (RFC 9112, 9.3.2), also when bytes that are not
// HTTP follow a request still being served (edge QA: a transfer was made, and the only answer on the connection
// was `400 … not valid HTTP`, which tells a client nothing was done: sent again under a new key, it paid twice).
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call } from './support.ts';

let sandbox: RunningSandbox;
let key = '';
let recipientId = '';

beforeAll(async () => {
  sandbox = await startSandbox({});
  const org = await adminOf(sandbox).org();
  key = org.key;
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'pipelined-recipient', body: { rail: 'usd_ach', nickname: 'Pipelined' } });
  recipientId = recipient.body.id;
});
afterAll(() => sandbox?.close());

/** Writes `bytes` on a new connection and reads everything the server sends until it closes (at most 10 s). */
function exchange(bytes: string): Promise<string> {
  const { port } = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const timer = setTimeout(() => socket.destroy(new Error(`no close within 10 s; read so far: ${text}`)), 10_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (err) => (clearTimeout(timer), reject(err)));
    socket.on('close', () => (clearTimeout(timer), resolve(text)));
  });
}

const statuses = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

it('a transfer followed by bytes that are not HTTP: its 201 first, then the 400, and one transfer', async () => {
  const balance = async () => (await call(sandbox.url, 'GET', '/v1/banking/balance', { key })).text;
  const before = await balance();
  const body = JSON.stringify({ recipientId, amount: '8.88' });
  const post = `POST /v1/banking/transfers HTTP/1.1\r\nhost: sandbox\r\nx-api-key: ${key}\r\nidempotency-key: pipelined-transfer\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const text = await exchange(`${post}GARBAGE\r\n\r\n`);
  expect(statuses(text), text).toEqual([201, 400]);
  expect(text.indexOf('"status":"pending"'), text).toBeLessThan(text.indexOf('not valid HTTP'));
  const replay = await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'pipelined-transfer', body: { recipientId, amount: '8.88' } });
  expect(text).toContain(replay.body.id);
  expect(await balance()).not.toBe(before);
});

it('a GET with a body and no Content-Length (the body read as the next request): its 200 first, then the 400', async () => {
  const text = await exchange(`GET /v1/banking/balance HTTP/1.1\r\nhost: sandbox\r\nx-api-key: ${key}\r\n\r\n{"x":1}\r\n\r\n`);
  expect(statuses(text), text).toEqual([200, 400]);
});
