// A crash under load. The sandbox runs as a child process (`node packages/sandbox/src/main.ts`, a fixed admin
// token, a free port); a load generator sends many transfer creations over raw HTTP, each with its own
// Idempotency-Key, and the sandbox is SIGKILLed once a share of them has been acknowledged, then restarted on
// the same store, twice over. Afterwards the store must still hold every transfer the sandbox
// acknowledged (a 201 received), each acknowledged key must replay a byte-identical body, and every request
// that got no answer, retried with the same key, must give exactly one transfer (whether it had committed
// before the kill or not). On node:sqlite (a file) and on PostgreSQL (the sandbox is killed, not the database).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres } from '../../../../tools/lib/postgres.ts';
import { transferView } from '../../src/operations/banking.ts';
import { createStore } from '../../src/store/index.ts';
import { adminOf } from '../support.ts';
import { startChildSandbox, type ChildSandbox } from './child-sandbox.ts';
import { must, pool, send, type Answer, type NoAnswer } from './wire.ts';

/** Crash cycles per backend: each sends LOAD new requests and SIGKILLs the sandbox mid-way, then restarts it. */
const CYCLES = 2;
const LOAD = 300;
/** In flight at once: enough that some requests are between their commit and their answer when the kill lands. */
const CONCURRENCY = 100;
/** SIGKILL once this many 201s of the cycle have come back (the rest are in flight or not sent yet). */
const KILL_AFTER = 100;
/** API keys of the organization, used in turn: the per-key rate limit (600 / 15 min) stays out of the way. */
const KEYS = 8;
const ADMIN_TOKEN = 'adm_reliability_crash_token';

const backends: { name: string; open(): Promise<{ where: { file?: string; databaseUrl?: string }; cleanup(): Promise<void> }> }[] = [
  {
    name: 'node:sqlite file',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'payments-crash-'));
      return { where: { file: join(dir, 'sandbox.db') }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const pg = await startThrowawayPostgres();
      return { where: { databaseUrl: pg.url }, cleanup: () => pg.stop() };
    },
  },
];

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

for (const backend of backends) {
  describe(`crash under load (${backend.name})`, () => {
    it(`${CYCLES} cycles of ${LOAD} transfer creations, each SIGKILLed after ${KILL_AFTER} acknowledged: nothing acknowledged is lost, replays are byte-identical, unanswered requests retried make one transfer each`, async () => {
      const { where, cleanup } = await backend.open();
      cleanups.push(cleanup);
      let sandbox: ChildSandbox = await startChildSandbox({ ...where, adminToken: ADMIN_TOKEN });
      cleanups.push(() => sandbox.stop());

      const admin = adminOf(sandbox);
      const { org, key } = await admin.org();
      const orgId = org.id as string;
      const keys = [key];
      for (let k = 1; k < KEYS; k++) keys.push((await admin.req('POST', `/organizations/${orgId}/api-keys`)).key as string);
      const recipient = await must(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'crash-recipient', body: { rail: 'brl_pix', nickname: 'Crash test', pixKey: 'crash@example.com' } });
      expect(recipient.status, recipient.text).toBe(201);
      const request = (i: number) => ({
        key: keys[i % KEYS]!,
        idem: `crash-${i}`,
        body: { recipientId: recipient.body.id as string, amount: `${1 + (i % 500)}.${String(i % 100).padStart(2, '0')}` },
        timeoutMs: 10_000,
      });

      const total = CYCLES * LOAD;
      const results: (Answer | NoAnswer)[] = new Array(total);
      const killedAt: number[] = [];
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        if (cycle > 0) sandbox = await startChildSandbox({ ...where, adminToken: ADMIN_TOKEN }); // on the store it crashed into
        const victim = sandbox;
        let acknowledged = 0;
        await pool(LOAD, CONCURRENCY, async (j) => {
          const i = cycle * LOAD + j;
          results[i] = await send(victim.url, 'POST', '/v1/banking/transfers', request(i));
          if (results[i]!.status === 201 && ++acknowledged === KILL_AFTER) {
            if (cycle % 2 === 1) {
              // A stall, then the kill: frozen, the sandbox cannot answer what the database commits meanwhile.
              process.kill(victim.pid, 'SIGSTOP');
              await new Promise((resolve) => setTimeout(resolve, 100));
            }
            killedAt[cycle] = Date.now();
            process.kill(victim.pid, 'SIGKILL'); // by PID, mid-load
          }
        });
        if (killedAt[cycle] === undefined) {
          await victim.kill();
          throw new Error(`cycle ${cycle}: only ${acknowledged} of ${LOAD} requests acknowledged, so no kill mid-load`);
        }
        expect((await victim.exited).signal).toBe('SIGKILL');
      }

      const acked = results.flatMap((r, i) => (r.status === 201 ? [i] : []));
      const unanswered = results.flatMap((r, i) => (r.status === undefined ? [i] : []));
      const otherwise = results.flatMap((r, i) => (r.status !== undefined && r.status !== 201 ? [`${i}: ${r.status} ${(r as Answer).text}`] : []));
      expect(otherwise).toEqual([]); // before a kill, every answer was a 201
      expect(acked.length).toBeGreaterThanOrEqual(CYCLES * KILL_AFTER);
      expect(unanswered.length).toBeGreaterThan(0);
      expect(acked.length + unanswered.length).toBe(total);

      // Restart on the same store once more, and read it from here too.
      sandbox = await startChildSandbox({ ...where, adminToken: ADMIN_TOKEN });
      const store = createStore(where);
      cleanups.push(() => store.close());

      // 1. Every acknowledged transfer is in the store as answered, and its key replays the same bytes.
      const readAll = (ids: string[]) =>
        store.transaction(async (tx) => {
          const found = [];
          for (const id of ids) found.push(await tx.getTransfer(orgId, id)); // one query at a time on the transaction's connection
          return found;
        });
      const stored = await readAll(acked.map((i) => (results[i] as Answer).body.id));
      const lost = acked.filter((i, j) => !stored[j] || !isDeepStrictEqual(transferView(stored[j]!), (results[i] as Answer).body));
      expect(lost.map((i) => `crash-${i}`)).toEqual([]);
      const replays = await pool(acked.length, 20, (j) => send(sandbox.url, 'POST', '/v1/banking/transfers', request(acked[j]!)));
      const differing = replays.flatMap((r, j) => (r.status === 201 && r.text === (results[acked[j]!] as Answer).text ? [] : [`crash-${acked[j]}: ${r.status} ${'text' in r ? r.text : r.error}`]));
      expect(differing).toEqual([]);

      // 2. Every request that got no answer, retried with the same key, gives one transfer; a second retry replays it.
      const retried = await pool(unanswered.length, 20, (j) => send(sandbox.url, 'POST', '/v1/banking/transfers', request(unanswered[j]!)));
      expect(retried.filter((r) => r.status !== 201).map((r) => ('text' in r ? r.text : r.error))).toEqual([]);
      const again = await pool(unanswered.length, 20, (j) => send(sandbox.url, 'POST', '/v1/banking/transfers', request(unanswered[j]!)));
      expect(again.map((r) => (r as Answer).text)).toEqual(retried.map((r) => (r as Answer).text));
      for (const [j, r] of retried.entries()) expect((r as Answer).body.idempotencyKey).toBe(`crash-${unanswered[j]}`);

      // 3. Exactly one transfer per key: as many distinct transfers as requests, and no other in the organization.
      const ids = [...acked.map((i) => (results[i] as Answer).body.id), ...retried.map((r) => (r as Answer).body.id)];
      expect(new Set(ids).size).toBe(total);
      expect(await store.transaction((tx) => tx.countTransfers(orgId))).toBe(total);

      // Unanswered requests that had committed before their kill (the retry replayed them). A SIGKILL lands
      // in that window only sometimes, so this is reported, not asserted; drop_after_commit in the chaos
      // suite covers the case every time.
      const recovered = await readAll(retried.map((r) => (r as Answer).body.id));
      const committedUnanswered = recovered.filter((t, j) => t && Date.parse(t.createdAt) <= killedAt[Math.floor(unanswered[j]! / LOAD)]!).length;
      process.stdout.write(
        `[crash ${backend.name}] ${CYCLES} SIGKILLs: ${acked.length} acknowledged, ${unanswered.length} unanswered (${committedUnanswered} of them had committed before the kill and were replayed on retry), ${total} transfers after recovery\n`,
      );
    }, 150_000);
  });
}
