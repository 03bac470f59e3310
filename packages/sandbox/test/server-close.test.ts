// Stopping the sandbox while a browser holds connections to it (server-close.ts): a socket that has not sent
// a request (Chromium preconnects them; a docs tab left open) no longer holds close() until Node's
// headersTimeout (60 s), and a request already being received is still answered.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf } from './support.ts';

const sockets: Socket[] = [];
let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await sandbox?.close();
  sandbox = undefined;
});

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** close(), or 'hung' when it has not resolved in `ms` (far below the 60 s it waited before). */
const closeWithin = (s: RunningSandbox, ms: number) =>
  Promise.race([s.close().then(() => 'closed' as const), new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), ms).unref())]);

describe('stopping the sandbox', () => {
  it('does not wait for a connection that has sent no request', async () => {
    const s = await startSandbox();
    const idle = await open(s.port);
    const dropped = new Promise((resolve) => idle.once('close', resolve));
    expect(await closeWithin(s, 20_000)).toBe('closed');
    await dropped;
  });

  it('answers a request already being received, then closes', async () => {
    sandbox = await startSandbox();
    const s = sandbox;
    sandbox = undefined;
    const socket = await open(s.port);
    const body = '{"nickname":"x"}';
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.write(`POST /v1/banking/recipients HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the server has the headers: a request in progress
    const closing = closeWithin(s, 20_000);
    socket.write(body.slice(5));
    expect(await closing).toBe('closed');
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /); // no API key: the documented 401, answered before the socket was cut
  });
});

describe('stopping the sandbox under keep-alive traffic (QA F4)', () => {
  it('answers requests already sent on idle kept-alive connections, with Connection: close, instead of a reset', async () => {
    const s = await startSandbox();
    const { key } = await adminOf(s).org();
    const request = `GET /v1/banking/balance HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`;
    const clients = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const socket = await open(s.port);
        const client = { socket, answers: '', closed: new Promise((resolve) => socket.once('close', resolve)) };
        socket.on('data', (chunk: Buffer) => (client.answers += chunk.toString()));
        socket.write(request);
        for (let i = 0; i < 100 && !client.answers.includes('"available"'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        return client;
      }),
    );
    expect(clients.map((c) => c.answers.match(/HTTP\/1\.1 200 /g)?.length)).toEqual(clients.map(() => 1)); // kept alive, idle
    // Each client sends its next request, and the sandbox begins to close in the same turn: none was read yet.
    for (const c of clients) c.socket.write(request);
    expect(await closeWithin(s, 20_000)).toBe('closed');
    await Promise.all(clients.map((c) => c.closed));
    for (const c of clients) {
      expect(c.answers.match(/HTTP\/1\.1 200 /g)?.length, c.answers).toBe(2);
      expect(c.answers.slice(c.answers.lastIndexOf('HTTP/1.1 200'))).toMatch(/\r\nconnection: close\r\n/i);
    }
  });
});
