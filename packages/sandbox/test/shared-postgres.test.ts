// Several sandbox instances on one PostgreSQL database share state safely: one key gives one resource
// across instances, and the per-key rate limit is counted once for all of them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSpec } from '@payments/spec';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call } from './support.ts';

let pg: ThrowawayPostgres;
let a: RunningSandbox;
let b: RunningSandbox;

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  a = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_shared_token_for_tests' });
  b = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_shared_token_for_tests' });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await pg?.stop();
});

it('100 concurrent requests with one key, spread over two instances: one transfer, identical responses', async () => {
  const { org, key } = await adminOf(a).org();
  const recipient = await call(a.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-1', body: { rail: 'brl_pix', nickname: 'Shared', pixKey: 'shared@example.com' } });
  const replies = await Promise.all(
    Array.from({ length: 100 }, (_, i) => call(i % 2 ? a.url : b.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-shared', body: { recipientId: recipient.body.id, amount: '1.00' } })),
  );
  expect(new Set(replies.map((r) => r.status))).toEqual(new Set([201]));
  expect(new Set(replies.map((r) => r.text)).size).toBe(1);
  expect(await a.store.transaction((tx) => tx.countTransfers(org.id))).toBe(1);
});

it('the rate limit is shared: 600 requests over two instances, the 601st refused by either', async () => {
  const limit = (loadSpec() as any)['x-rate-limit'].limit as number;
  const { key } = await adminOf(b).org();
  for (let batch = 0; batch < limit / 50; batch++) {
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? a.url : b.url, 'GET', '/v1/banking/balance', { key })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
  }
  for (const sandbox of [a, b]) expect((await call(sandbox.url, 'GET', '/v1/banking/balance', { key })).status).toBe(429);
});

it('recipient uniqueness holds across instances: 20 concurrent creations of one nickname make one recipient', async () => {
  const { org, key } = await adminOf(a).org();
  const replies = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call(i % 2 ? a.url : b.url, 'POST', '/v1/banking/recipients', { key, idem: `rcp-race-${i}`, body: { rail: 'brl_pix', nickname: 'Race', pixKey: `race-${i}@example.com` } })),
  );
  expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
  expect(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'recipient_nickname_already_exists')).toBe(true);
  const created = replies.find((r) => r.status === 201)!.body;
  expect(await a.store.transaction((tx) => tx.findActiveRecipientByNickname(org.id, 'Race'))).toMatchObject({ id: created.id });
});

it('instances starting together on one database make one demo organization (its id decides, not a lookup by name)', async () => {
  const { demoOrganization, DEMO_NAME } = await import('../src/demo-organization.ts');
  const { generateApiKey } = await import('../src/keys.ts');
  const keys = await Promise.all([a, b, a, b].map((s) => demoOrganization(s, generateApiKey())));
  const demos = (await a.store.transaction((tx) => tx.listOrganizations())).filter((o) => o.name === DEMO_NAME);
  expect(demos).toHaveLength(1);
  // Every key printed is one of that organization.
  for (const key of keys) expect((await call(b.url, 'GET', '/v1/banking/balance', { key })).status).toBe(200);
});
