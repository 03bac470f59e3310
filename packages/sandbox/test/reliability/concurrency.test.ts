// One Idempotency-Key, 100 requests at once, spread over FOUR sandbox PROCESSES sharing one store: one
// resource, and every request gets the same answer, byte for byte. On node:sqlite (four processes on one
// database file: each holds its own connection, the write lock serializes them) and on PostgreSQL (four
// processes on one database: the idempotency row's primary key does). The instances are started together,
// so their migrations race too. The store is read back from this process through a third connection.
// (shared-postgres.test.ts does the PostgreSQL half in one process; this goes through separate processes.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
import { loadSpec } from '@payments/spec';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../../tools/lib/postgres.ts';
import { transferView } from '../../src/operations/banking.ts';
import { createStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { adminOf } from '../support.ts';
import { startChildSandboxes, type ChildSandbox } from './child-sandbox.ts';
import { must, send, type Answer } from './wire.ts';

const N = 100;
const ADMIN_TOKEN = 'adm_reliability_concurrency_token';

interface Backend {
  name: string;
  /** Where both instances and the verifying connection point. */
  open(): Promise<{ where: { file?: string; databaseUrl?: string }; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'node:sqlite, four sandbox processes on one database file',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'payments-concurrency-'));
      return { where: { file: join(dir, 'shared.db') }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL, four sandbox processes on one database',
    async open() {
      const pg: ThrowawayPostgres = await startThrowawayPostgres();
      return { where: { databaseUrl: pg.url }, cleanup: () => pg.stop() };
    },
  },
];

/** All 2xx with one status, and every body byte-identical to the first. */
function expectIdentical(replies: (Answer | { status: undefined; error: string })[], status = 201): Answer {
  const answered = replies.filter((r): r is Answer => r.status !== undefined);
  expect(answered.length, 'every request answered').toBe(replies.length);
  expect(new Set(answered.map((r) => r.status)), answered.find((r) => r.status !== status)?.text).toEqual(new Set([status]));
  expect(new Set(answered.map((r) => r.text)).size).toBe(1);
  return answered[0]!;
}

for (const backend of backends) {
  describe(backend.name, () => {
    let sandboxes: ChildSandbox[] = [];
    let a: ChildSandbox;
    let b: ChildSandbox;
    let store: Store;
    let cleanup: () => Promise<void>;
    const instance = (i: number) => sandboxes[i % sandboxes.length]!;

    beforeAll(async () => {
      const opened = await backend.open();
      cleanup = opened.cleanup;
      sandboxes = await startChildSandboxes(4, { ...opened.where, adminToken: ADMIN_TOKEN });
      [a, b] = sandboxes as [ChildSandbox, ChildSandbox];
      store = createStore(opened.where);
    });
    afterAll(async () => {
      await store?.close();
      await Promise.all(sandboxes.map((s) => s.stop()));
      await cleanup?.();
    });

    /** A fresh organization (its own key, so the per-key rate limit is not shared between cases) and a PIX recipient. */
    async function setup(flags: Record<string, unknown> = {}) {
      const { org, key } = await adminOf(a).org(flags);
      const recipient = await must(a.url, 'POST', '/v1/banking/recipients', { key, idem: `rcp-${org.id}`, body: { rail: 'brl_pix', nickname: 'Concurrency', pixKey: `${org.id}@example.com` } });
      expect(recipient.status, recipient.text).toBe(201);
      return { orgId: org.id as string, key, recipientId: recipient.body.id as string };
    }

    it(`createTransfer: ${N} concurrent requests, one key, four processes → one transfer, identical answers`, async () => {
      const { orgId, key, recipientId } = await setup();
      const body = { recipientId, amount: '25.00' };
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(instance(i).url, 'POST', '/v1/banking/transfers', { key, idem: 'order-7731', body })));
      const first = expectIdentical(replies);
      expect(first.body).toMatchObject({ recipientId, amount: '25.00', status: 'pending', idempotencyKey: 'order-7731' });
      expect(await store.transaction((tx) => tx.countTransfers(orgId))).toBe(1);
      const stored = await store.transaction((tx) => tx.getTransfer(orgId, first.body.id));
      expect(transferView(stored!)).toEqual(first.body);
    });

    it(`createTransfer through the client: ${N} concurrent calls with one derived key over four processes → one transfer, equal results`, async () => {
      const { orgId, key, recipientId } = await setup();
      const clients = sandboxes.map((s) => createPaymentsClient({ apiKey: key, baseUrl: s.url, timeoutMs: 15_000, sleep: async () => {} }));
      const idempotencyKey = await deriveIdempotencyKey('createTransfer', 'invoice-concurrent');
      const results = await Promise.all(Array.from({ length: N }, (_, i) => clients[i % clients.length]!.POST('/v1/banking/transfers', { body: { recipientId, amount: 42.5 }, idempotencyKey })));
      expect(results.every((r) => r.response.status === 201 && r.attempts === 1)).toBe(true);
      expect(results.every((r) => isDeepStrictEqual(r.data, results[0]!.data))).toBe(true);
      expect(results[0]!.data).toMatchObject({ amount: '42.50', idempotencyKey });
      expect(await store.transaction((tx) => tx.countTransfers(orgId))).toBe(1);
    });

    it(`an unresolved attempt (a temporary 503) retried by ${N} concurrent requests over four processes is resolved once`, async () => {
      const { orgId, key, recipientId } = await setup();
      await adminOf(a).fault({ operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: orgId, resolution: 'completed' });
      const body = { recipientId, amount: '99.99' };
      const first = await must(b.url, 'POST', '/v1/banking/transfers', { key, idem: 'order-503', body });
      expect(first.status).toBe(503);
      expect(await store.transaction((tx) => tx.countTransfers(orgId))).toBe(0);
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(instance(i).url, 'POST', '/v1/banking/transfers', { key, idem: 'order-503', body })));
      expect(expectIdentical(replies).body).toMatchObject({ status: 'completed', idempotencyKey: 'order-503' });
      expect(await store.transaction((tx) => tx.countTransfers(orgId))).toBe(1);
    });

    it(`createRecipient: ${N} concurrent requests, one key, four processes → one recipient, identical answers`, async () => {
      const { orgId, key } = await setup();
      const body = { rail: 'brl_pix', nickname: 'Same key supplier', pixKey: 'same.key@example.com' };
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(instance(i).url, 'POST', '/v1/banking/recipients', { key, idem: 'supplier-88', body })));
      const answer = expectIdentical(replies);
      const stored = await store.transaction((tx) => tx.findRecipientByPixKey(orgId, 'same.key@example.com'));
      expect(stored?.id).toBe(answer.body.id);
    });

    it(`checkout products: ${N} concurrent requests, one key, four processes → one product`, async () => {
      const { orgId, key } = await setup();
      const products = await Promise.all(Array.from({ length: N }, (_, i) => send(instance(i).url, 'POST', '/v1/checkout/products', { key, idem: 'product-0001', body: { name: 'T-shirt' } })));
      expectIdentical(products);
      expect(await store.transaction((tx) => tx.countResources('checkout_product', orgId))).toBe(1);
    });

    it(`checkout sessions: ${N} concurrent requests, one key, four processes → one session`, async () => {
      const { orgId, key } = await setup();
      const sessions = await Promise.all(Array.from({ length: N }, (_, i) => send(instance(i).url, 'POST', '/v1/checkout/sessions', { key, idem: 'cart-0001:session', body: { amount: 37.45 } })));
      expectIdentical(sessions);
      expect(await store.transaction((tx) => tx.countResources('checkout_session', orgId))).toBe(1);
    });

    it('issueCard: as many concurrent requests as its stricter rate limit allows, one key, four processes → one card', async () => {
      const limit = (loadSpec().paths['/v1/cards'] as any).post['x-rate-limit'].limit as number; // 60 per key
      const { orgId, key } = await setup({ cardTermsAccepted: true });
      const count = Math.min(N, limit);
      const cards = await Promise.all(Array.from({ length: count }, (_, i) => send(instance(i).url, 'POST', '/v1/cards', { key, idem: 'employee-9:card', body: {} })));
      expectIdentical(cards);
      expect(await store.transaction((tx) => tx.countResources('card', orgId))).toBe(1);
    });
  });
}
