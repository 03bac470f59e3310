// (a) Against Prism's stateless mock of the bundled spec: the stateless checks pass (no failures), Prism is
// detected, and the probes that need state or key lookups are reported as skipped with a warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type PrismServer } from '../../../tools/lib/prism.ts';
import type { Report } from '../src/types.ts';
import { check, describeFailures, failures, runKit, warnings } from './support.ts';

let prism: PrismServer;
let report: Report;

beforeAll(async () => {
  prism = await startPrism();
  report = await runKit({ baseUrl: prism.url, apiKey: 'svc_live_prismmockkey000000000000', runs: 8 });
});
afterAll(async () => {
  await prism?.stop();
});

describe('the kit against the Prism mock', () => {
  it('detects Prism', () => {
    expect(report.target).toBe('prism');
  });

  it('has no failures', () => {
    expect(failures(report), describeFailures(report)).toEqual([]);
    expect(report.totals.failed).toBe(0);
  });

  it('ran generated valid and invalid requests for every operation', () => {
    for (const op of report.operations) {
      expect(check(report, `${op}/valid`).requests, op).toBeGreaterThan(0);
    }
    expect(check(report, 'createTransfer/invalid').requests).toBeGreaterThan(0);
    expect(report.totals.requests).toBeGreaterThan(100);
  });

  it('lists the checks Prism cannot answer as not applicable, each with the capability it lacks, never silently', () => {
    const reasons = new Map(report.notApplicable.map((n) => [`${n.operationId}/${n.check}`, n.reason]));
    for (const id of ['createTransfer/idempotent-replay', 'createTransfer/idempotency-conflict', 'createCheckoutProduct/idempotent-replay', 'getBankingBalance/auth-unknown-key', 'createRecipient/resource-chain', 'createCheckoutProduct/concurrent-key']) {
      expect(reasons.get(id), id).toMatch(/Prism/);
    }
    expect(report.checks.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual([]);
    expect(report.verdict).toBe('passed');
  });

  it('still runs the probes Prism can answer (no key, Bearer), and CORS: the mock runs Prism without its own', () => {
    expect(check(report, 'createTransfer/auth-no-key').status).toBe('passed');
    expect(check(report, 'getBankingBalance/auth-bearer').status).toBe('passed');
    expect(check(report, 'getTransfer/cors').status).toBe('passed');
    expect(report.notes.join('\n')).toMatch(/refusals: only their status is checked/);
  });

  it('keeps Prism quirks as warnings, not failures', () => {
    for (const w of warnings(report).filter((x) => x.rule === 'prism')) expect(w.message).toMatch(/Prism/);
  });
});

describe('the card rate limit against the mock', () => {
  it("paces nothing: Prism's mock enforces no limit (QA: a default run waited 15 minutes on the card limit's 60 per 15 min)", { timeout: 60_000 }, async () => {
    const run = await runKit({ baseUrl: prism.url, apiKey: 'svc_live_prismmockkey000000000000', operations: ['issueCard'], checks: ['valid', 'invalid'], runs: 40, maxWaitS: 900 });
    expect(run.totals.requests).toBeGreaterThan(60);
    expect(run.pacing).toMatchObject({ waitedMs: 0, overBudget: 0, rateLimited: 0 });
    expect(run.notes.join('\n')).toMatch(/rate limit: Prism's mock enforces none/);
    expect(run.verdict, describeFailures(run)).toBe('passed');
  });
});

describe('plain Prism, with its own CORS (prism mock --cors, on by default)', () => {
  let plain: PrismServer;
  beforeAll(async () => {
    plain = await startPrism({ cors: true });
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('cors is not applicable, and a run of --checks cors alone does not pass on nothing', async () => {
    const run = await runKit({ baseUrl: plain.url, apiKey: 'svc_live_prismmockkey000000000000', checks: ['cors'] });
    expect(run.notApplicable.find((n) => n.check === 'cors')?.reason).toMatch(/CORS headers of its own/);
    expect(run.verdict).toBe('failed');
    expect(check(run, '(selection)/applicable').failures[0]?.message).toMatch(/none of the checks selected \(--checks cors\) applies to this target, so nothing was checked \(cors: the target adds CORS headers/);
  });
});
