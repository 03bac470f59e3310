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

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  sandbox = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_database_down_token_for_tests' });
});
afterAll(async () => {
  await sandbox?.close().catch(() => undefined); // its pool's connections are gone with the server
  await pg?.stop();
});

it('PostgreSQL stopped: the API and the admin API answer 503 temporarily_unavailable with the shared error body, never a 500', async () => {
  const { key } = await adminOf(sandbox).org();
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-down', body: { rail: 'brl_pix', nickname: 'Down', pixKey: 'down@example.com' } });
  expect(recipient.status).toBe(201);

  await pg.stop();

  const answers = [
    await call(sandbox.url, 'GET', '/v1/banking/balance', { key }),
    await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-down', body: { recipientId: recipient.body.id, amount: '1.00' } }),
    await adminOf(sandbox).send('POST', '/organizations', { body: { banking: true } }),
  ];
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'temporarily_unavailable', error: expect.stringContaining('database'), requestId: expect.stringMatching(UUID) });
  }
});
