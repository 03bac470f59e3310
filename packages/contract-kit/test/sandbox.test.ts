// (b) Against the sandbox (the stateful reference server), with an organization that has every product on,
// card terms accepted, checkout PIX and funding, and the admin token: everything passes, the stateful probes
// (replay, conflict, revoked key) included. Gated with --strict-503 (SERVER_GATE): a documented 503 is a
// failure here, so a sandbox answering 503 to everything would fail (test/broken.test.ts shows it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/sandbox.ts';
import { adminOf } from '../../sandbox/test/support.ts';
import type { Report } from '../src/types.ts';
import { check, describeFailures, failures, runKit, SERVER_GATE, warnings } from './support.ts';

let sandbox: RunningSandbox;
let report: Report;

beforeAll(async () => {
  sandbox = await startSandbox({});
  const { key } = await adminOf(sandbox).org({ cardTermsAccepted: true, checkoutPix: true, walletTransfers: true });
  report = await runKit({ baseUrl: sandbox.url, apiKey: key, adminToken: sandbox.adminToken, runs: 8, seed: 20261122, ...SERVER_GATE });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the kit against the sandbox', () => {
  it('sees a server, not a mock', () => {
    expect(report.target).toBe('server');
  });

  it('has no failures, under --strict-503', () => {
    expect(report.strict503).toBe(true);
    expect(failures(report), describeFailures(report)).toEqual([]);
    expect(report.totals.failed).toBe(0);
  });

  it('has no inconclusive answers (no 503, 502 or 504) and was not rate limited', () => {
    expect(report.totals.inconclusive).toBe(0);
    expect(warnings(report).filter((w) => w.rule === 'inconclusive' || w.rule === 'rate-limited')).toEqual([]);
  });

  it('runs every check, the stateful probes included (none skipped)', () => {
    const skipped = report.checks.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => `${c.id}: ${c.warnings.map((w) => w.message).join('; ')}`)).toEqual([]);
    for (const op of ['createRecipient', 'createTransfer', 'issueCard', 'createCheckoutProduct', 'createCheckoutSession']) {
      const replay = check(report, `${op}/idempotent-replay`);
      expect(replay.status, op).toBe('passed');
      expect(replay.requests, op).toBeGreaterThanOrEqual(2);
    }
    expect(check(report, 'createTransfer/idempotency-conflict').status).toBe('passed');
    expect(check(report, 'getBankingBalance/auth-revoked-key').status).toBe('passed');
    expect(check(report, 'getBankingBalance/auth-revoked-key').requests).toBe(2);
  });

  it('exercised invalid input on every operation that takes some', () => {
    for (const op of ['createRecipient', 'createTransfer', 'issueCard', 'createCheckoutProduct', 'createCheckoutSession']) {
      expect(check(report, `${op}/invalid`).requests, op).toBeGreaterThanOrEqual(8);
    }
  });
});
