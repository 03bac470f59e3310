// A database the sandbox cannot reach (PostgreSQL stopped, restarting, failing over) is a temporary server
// failure: the provider's document answers those `503`, which a client retries with the same
// Idempotency-Key. The sandbox used to answer its "a bug, please report it" 500 there, which tells a client
// to give up and a contract test that the server is broken.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call, UUID } from './support.ts';

let pg: ThrowawayPostgres;
let sandbox: RunningSandbox;
/** The same database over the cluster's Unix socket: once the server stops, its socket file is gone (ENOENT). */
let overSocket: RunningSandbox;

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  sandbox = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_database_down_token_for_tests' });
  overSocket = await startSandbox({ databaseUrl: `postgres:///postgres?host=${encodeURIComponent(pg.dir)}&port=${new URL(pg.url).port}&user=postgres` });
});
afterAll(async () => {
  await sandbox?.close().catch(() => undefined); // its pool's connections are gone with the server
  await overSocket?.close().catch(() => undefined);
  await pg?.stop();
});

it('PostgreSQL stopped: the API and the admin API answer 503 temporarily_unavailable with the shared error body, never a 500', async () => {
  const { key } = await adminOf(sandbox).org();
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-down', body: { rail: 'brl_pix', nickname: 'Down', pixKey: 'down@example.com' } });
  expect(recipient.status).toBe(201);

  // What the sandbox says meanwhile on stderr (its request log's stream): JSON lines, every one.
  const logged: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => (logged.push(String(chunk)), true)) as typeof process.stderr.write;
  let answers;
  try {
    await pg.stop();
    answers = [
      await call(sandbox.url, 'GET', '/v1/banking/balance', { key }),
      await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-down', body: { recipientId: recipient.body.id, amount: '1.00' } }),
      await adminOf(sandbox).send('POST', '/organizations', { body: { banking: true } }),
      await call(overSocket.url, 'GET', '/v1/banking/balance', { key }),
    ];
  } finally {
    process.stderr.write = write;
  }
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'temporarily_unavailable', error: expect.stringContaining('database'), requestId: expect.stringMatching(UUID) });
  }
  const lines = logged.join('').trimEnd().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
  for (const answer of answers.slice(0, 2)) {
    expect(lines).toContainEqual({ time: expect.any(String), level: 'error', message: 'answered 503: the database cannot be reached', requestId: answer.body.requestId, error: expect.any(String) });
  }
});
