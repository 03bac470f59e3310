// Zero duplicate payments: whatever the server does, every attempt of one call carries the same
// Idempotency-Key, attempts stay within the policy, and the waits within the deadline (fast-check).
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { PaymentsError, createPaymentsClient, defaultRetryPolicy } from '../src/index.ts';
import { errorBody, scriptedServer, transfer, type Reply } from './scripted-fetch.ts';

const reply: fc.Arbitrary<Reply> = fc.oneof(
  fc.constant<Reply>('network-error'),
  fc.constantFrom(502, 504).map((status): Reply => ({ status })),
  fc.constantFrom('temporarily_unavailable', 'checkout_pix_not_available', 'provider_rate_limited').map((code): Reply => ({ status: 503, json: errorBody(code) })),
  fc.integer({ min: 0, max: 120 }).map((s): Reply => ({ status: 429, json: errorBody('rate_limit_exceeded'), headers: { 'retry-after': String(s) } })),
  fc.constantFrom('banking_transfer_attempt_pending_review', 'banking_transfer_idempotency_conflict').map((code): Reply => ({ status: 409, json: errorBody(code) })),
  fc.constantFrom('pending', 'completed', 'failed', 'cancelled').map((s): Reply => ({ status: 201, json: transfer(s) })),
);

it('one call, one key, bounded attempts and waits', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 15 }), fc.boolean(), async (script, callerKey) => {
      const server = scriptedServer(script);
      const client = createPaymentsClient({ apiKey: 'svc_live_prop', baseUrl: 'http://127.0.0.1:1', fetch: server.fetch, sleep: server.sleep, now: server.now });
      let key: string | undefined;
      try {
        const result = await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: 5 }, ...(callerKey ? { idempotencyKey: 'invoice-9:transfer' } : {}) });
        key = result.idempotencyKey;
        expect(result.attempts).toBe(server.sent.length);
      } catch (err) {
        expect(err).toBeInstanceOf(PaymentsError);
        key = (err as PaymentsError).idempotencyKey;
        expect((err as PaymentsError).attempts).toBe(server.sent.length);
      }
      expect(new Set(server.keys())).toEqual(new Set([key]));
      if (callerKey) expect(key).toBe('invoice-9:transfer');
      expect(server.sent.length).toBeLessThanOrEqual(10);
      expect(server.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30 * 60_000);
      expect(server.sent.every((s) => s.body.amount === '5.00')).toBe(true);
    }),
    { numRuns: 300 },
  );
});

// Several calls on one client, each with its own scripted replies: every attempt of a call carries that
// call's key, and no two calls share a key (a shared key would make the service return the first call's
// result for the second payment; a new key within a call could pay twice).
it('several calls on one client: one key per call, a different key per call', async () => {
  let retried = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.record({ script: fc.array(reply, { minLength: 1, maxLength: 6 }), callerKey: fc.boolean() }), { minLength: 2, maxLength: 5 }), async (calls) => {
      const server = scriptedServer([]);
      const client = createPaymentsClient({ apiKey: 'svc_live_prop', baseUrl: 'http://127.0.0.1:1', fetch: server.fetch, sleep: server.sleep, now: server.now });
      const perCall: { sent: (string | null | undefined)[]; key: string | undefined; attempts: number }[] = [];
      for (const [i, call] of calls.entries()) {
        server.load(call.script);
        const before = server.sent.length;
        let key: string | undefined;
        let attempts: number;
        try {
          const result = await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: 5 }, ...(call.callerKey ? { idempotencyKey: `invoice-${i}:transfer` } : {}) });
          ({ idempotencyKey: key, attempts } = result);
        } catch (err) {
          expect(err).toBeInstanceOf(PaymentsError);
          ({ idempotencyKey: key, attempts } = err as PaymentsError);
        }
        const sent = server.sent.slice(before).map((s) => s.headers['idempotency-key']);
        expect(sent).toHaveLength(attempts);
        perCall.push({ sent, key, attempts });
      }
      for (const [i, call] of perCall.entries()) {
        expect(call.key).toMatch(calls[i]!.callerKey ? `invoice-${i}:transfer` : /^[0-9a-f-]{36}$/);
        expect(call.sent.every((k) => k === call.key)).toBe(true); // every attempt of this call: this call's key
        if (call.attempts > 1) retried++;
      }
      expect(new Set(perCall.map((c) => c.key)).size).toBe(perCall.length); // no key shared between calls
    }),
    { numRuns: 200 },
  );
  expect(retried).toBeGreaterThan(50); // the property saw many retried calls, not only single attempts
});
