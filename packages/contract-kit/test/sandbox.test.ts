// (b) Against the sandbox (the stateful reference server) with the admin token, at the default --runs: every
// check of the registry runs (the kit provisions its own organization and keys), none is skipped or not
// applicable, nothing fails, no 429 is met, and the coverage table shows the provider states the faults and
// organization states made happen. Gated with --strict-503 (SERVER_GATE) besides: a documented 503 outside a
// scheduled fault is a failure here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/sandbox.ts';
import { adminOf } from '../../sandbox/test/support.ts';
import type { Report } from '../src/types.ts';
import { DEFAULT_RUNS } from '../src/args.ts';
import { CHECK_IDS } from '../src/registry.ts';
import { check, describeFailures, failures, runKit, SERVER_GATE, warnings } from './support.ts';

let sandbox: RunningSandbox;
let report: Report;

beforeAll(async () => {
  sandbox = await startSandbox({});
  const { key } = await adminOf(sandbox).org({ cardTermsAccepted: true, checkoutPix: true, walletTransfers: true });
  report = await runKit({ baseUrl: sandbox.url, apiKey: key, adminToken: sandbox.adminToken, runs: DEFAULT_RUNS, seed: 20261122, ...SERVER_GATE });
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

  it('runs every check of the registry somewhere, none of them not applicable, and passes', () => {
    expect(report.notApplicable).toEqual([]);
    expect(new Set(report.checks.map((c) => c.id.split('/')[1]))).toEqual(new Set(CHECK_IDS));
    expect(report.verdict).toBe('passed');
    expect(report.pacing.rateLimited).toBe(0);
  });

  it('saw the provider states through faults and organization states (coverage table)', () => {
    const seen = (op: string, status: string, code?: string) => {
      const row = report.coverage.find((r) => r.operationId === op && r.status === status);
      return code ? (row?.codes.find((c) => c.code === code)?.seen ?? 0) : (row?.seen ?? 0);
    };
    expect(seen('issueCard', '503', 'provider_rate_limited')).toBeGreaterThan(0);
    expect(seen('createTransfer', '409', 'banking_transfer_attempt_pending_review')).toBeGreaterThan(0);
    expect(seen('getTransfer', '502')).toBeGreaterThan(0);
    expect(seen('getTransfer', '504')).toBeGreaterThan(0);
    expect(seen('getTransfer', '200')).toBeGreaterThan(0);
    expect(seen('issueCard', '409', 'authorized_user_terms_required')).toBeGreaterThan(0);
    expect(seen('createCheckoutSession', '503', 'checkout_pix_not_available')).toBeGreaterThan(0);
    for (const op of report.operations) expect(seen(op, '403'), op).toBeGreaterThan(0);
  });

  it('exercised invalid input on every operation that takes some', () => {
    for (const op of ['createRecipient', 'createTransfer', 'issueCard', 'createCheckoutProduct', 'createCheckoutSession']) {
      expect(check(report, `${op}/invalid`).requests, op).toBeGreaterThanOrEqual(8);
    }
  });
});

describe('a key the server refuses (a mistyped --api-key, no --admin-token)', () => {
  it('stops the run before any check, with the reason, instead of pacing and reporting every check failed', async () => {
    const started = Date.now();
    await expect(runKit({ baseUrl: sandbox.url, apiKey: `svc_live_${'x'.repeat(32)}`, maxWaitS: 900 })).rejects.toThrow(
      /^the server refused the API key: GET \/v1\/banking\/balance with it answered 401 invalid_api_key/,
    );
    expect(Date.now() - started, 'no pacing wait before the refusal').toBeLessThan(30_000);
  });
});
