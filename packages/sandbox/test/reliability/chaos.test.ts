// The chaos suite in `npm test`: ~1,000 payments through the real client against an in-process sandbox, and
// a smaller run against two sandbox PROCESSES sharing one PostgreSQL database, with faults on roughly 30% of
// the transfer attempts (see chaos.ts for the payer's rules and the checks). The full run (≥ 10,000
// payments, the sandbox as a child process) is `node tools/launch.mjs chaos`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox.ts';
import { createStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FAULT_MIX, faultLabel, formatSummary, runChaos, type ChaosReport } from './chaos.ts';
import { startChildSandbox, type ChildSandbox } from './child-sandbox.ts';

const PAYMENTS = Number(process.env.CHAOS_TEST_PAYMENTS ?? 1000);
const PG_PAYMENTS = Math.round(PAYMENTS / 2);

function expectSound(report: ChaosReport, payments: number): void {
  expect(report.violations).toEqual([]);
  expect(report.violationCount).toBe(0);
  expect(report.duplicates).toBe(0);
  expect(report.orphans).toBe(0);
  expect(report.lost).toBe(0);
  expect(report.outcomes.undecided).toBe(0);
  expect(report.outcomes.resolved + report.outcomes.closed + report.outcomes.rejected).toBe(payments);
  expect(report.outcomes.rejected + report.outcomes.scheduledOverReject).toBe(Math.floor(payments / 97));
  // The faults were real and many: at least 20% of the attempts.
  expect(report.faults.share).toBeGreaterThanOrEqual(0.2);
}

describe('in-process sandbox (node:sqlite)', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({});
  });
  afterAll(() => sandbox?.close());

  it(`${PAYMENTS} payments under injected faults: each one resolved once or a definite typed failure, none duplicated or lost`, async () => {
    const report = await runChaos({ urls: [sandbox.url], adminToken: sandbox.adminToken, store: sandbox.store }, { payments: PAYMENTS, concurrency: 32, seed: 7 });
    process.stdout.write(`\n${formatSummary(report)}\n`);
    expectSound(report, PAYMENTS);
    // Varied: every kind of the mix met at least once, and every path of the outcome table taken.
    for (const { fault } of FAULT_MIX) expect(report.faults.byKind[faultLabel(fault)], faultLabel(fault)).toBeGreaterThan(0);
    expect(report.newKeys).toBeGreaterThan(0);
    expect(report.outcomes.resolvedAfterClosed).toBeGreaterThan(0);
    expect(report.outcomes.rejected).toBeGreaterThan(0); // of 10 invoices of the rejected amount, most meet no fault
    expect(report.reviews.resolvedByAdmin).toBeGreaterThan(0);
    expect(report.retries.afterUnresolved).toBeGreaterThan(0);
    expect(report.retries.afterReview).toBeGreaterThan(0);
  }, 180_000);

  it('the checks have teeth: a payer that switches to a new key after an unresolved call is caught paying twice', async () => {
    const report = await runChaos(
      { urls: [sandbox.url], adminToken: sandbox.adminToken, store: sandbox.store },
      { payments: 200, concurrency: 16, seed: 11, sabotage: 'new-key-after-unresolved', retry: { operations: { createTransfer: { maxAttempts: 1 } } } },
    );
    expect(report.duplicates).toBeGreaterThan(0);
    expect(report.violations.join('\n')).toMatch(/a new key after the outcome unresolved/);
    expect(report.violations.join('\n')).toMatch(/live transfers/);
  }, 60_000);
});

describe('two sandbox processes on one PostgreSQL database', () => {
  const ADMIN_TOKEN = 'adm_reliability_chaos_token';
  let pg: ThrowawayPostgres;
  let instances: ChildSandbox[] = [];
  let store: Store;
  beforeAll(async () => {
    pg = await startThrowawayPostgres();
    instances = await Promise.all([0, 1].map(() => startChildSandbox({ databaseUrl: pg.url, adminToken: ADMIN_TOKEN })));
    store = createStore({ databaseUrl: pg.url });
  });
  afterAll(async () => {
    await store?.close();
    await Promise.all(instances.map((s) => s.stop()));
    await pg?.stop();
  });

  it(`${PG_PAYMENTS} payments spread over both instances under injected faults: none duplicated or lost`, async () => {
    const report = await runChaos({ urls: instances.map((s) => s.url), adminToken: ADMIN_TOKEN, store }, { payments: PG_PAYMENTS, concurrency: 32, seed: 3, paymentsPerKey: 20 });
    process.stdout.write(`\n${formatSummary(report)}\n`);
    expectSound(report, PG_PAYMENTS);
  }, 180_000);
});
