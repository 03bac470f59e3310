// The kit's power, as a test: every mutant of test/mutants/registry.ts (the real sandbox behind a proxy that
// injects one defect) is caught, by one of the checks that should catch it; the mutants the spec cannot show
// (it only assumes the thing) pass with a warning, never a failure; and the unmodified sandbox behind the
// same proxy passes. One seed and --runs 10 here (time); bench/mutation-score.ts measures 5 seeds at the
// default --runs 25.
import { describe, expect, it } from 'vitest';
import { adminClient, FULL_ORGANIZATION } from '../src/probes/admin.ts';
import { run } from '../src/run.ts';
import type { Report } from '../src/types.ts';
import { startMutant, type Mutant } from './mutants/proxy.ts';
import { MUTANTS } from './mutants/registry.ts';
import { describeFailures } from './support.ts';

const SEED = 16;

async function kitAgainst(mutant: Mutant | undefined): Promise<Report> {
  const server = await startMutant(mutant);
  try {
    const report = await run({ baseUrl: server.url, apiKey: 'svc_live_unused_the_kit_provisions_its_own', adminToken: server.adminToken, seed: SEED, runs: 10, operations: [], timeoutMs: 10_000, target: 'auto' });
    expect(server.errors, 'the mutant itself crashed').toEqual([]);
    return report;
  } finally {
    await server.close();
  }
}

/** The kit with the user's key only (no --admin-token): the key of an organization made through the sandbox's admin API. */
async function kitWithUserKey(mutant: Mutant | undefined, checks: string[]): Promise<Report> {
  const server = await startMutant(mutant);
  try {
    const admin = adminClient({ transport: { baseUrl: server.sandbox.url, timeoutMs: 10_000 } }, server.adminToken);
    const { key } = await admin.createApiKey((await admin.createOrganization(FULL_ORGANIZATION)).id);
    return await run({ baseUrl: server.url, apiKey: key, seed: SEED, runs: 5, operations: ['createRecipient', 'createTransfer'], checks, timeoutMs: 10_000, target: 'auto' });
  } finally {
    await server.close();
  }
}

const failedOrSkipped = (report: Report) => report.checks.filter((c) => c.status !== 'passed').map((c) => c.id.split('/').slice(1).join('/'));

describe('mutant servers', () => {
  it('there are at least 30 mutants the spec makes visible, each with the checks expected to catch it', () => {
    const visible = MUTANTS.filter((m) => m.visible === true);
    expect(visible.length).toBeGreaterThanOrEqual(30);
    for (const m of visible) expect(m.kitMisses ?? m.caughtBy?.length, m.name).toBeTruthy();
    expect(new Set(MUTANTS.map((m) => m.name)).size).toBe(MUTANTS.length);
  });

  it('the unmodified sandbox behind the proxy passes', { timeout: 60_000 }, async () => {
    const report = await kitAgainst(undefined);
    expect(report.verdict, describeFailures(report)).toBe('passed');
  });

  it("transfer-replay-duplicates with the user's key only: a warning naming other traffic, not a failure (the organization may be shared)", { timeout: 60_000 }, async () => {
    const report = await kitWithUserKey(MUTANTS.find((m) => m.name === 'transfer-replay-duplicates'), ['idempotent-replay']);
    const replay = report.checks.find((c) => c.id === 'createTransfer/idempotent-replay')!;
    expect(replay.failures, describeFailures(report)).toEqual([]);
    expect(replay.warnings.map((w) => w.message).join('\n')).toMatch(/may have repeated the action .*GET \/v1\/banking\/balance answered .*give --admin-token/);
  });

  for (const mutant of MUTANTS) {
    // A known gap of the kit is not run against it: a workflow catches it instead (workflows-mutants.test.ts
    // requires its row).
    if (mutant.kitMisses) continue;
    if (mutant.visible === true) {
      it(`${mutant.name} is caught (${mutant.caughtBy!.join(' or ')})`, { timeout: 60_000 }, async () => {
        const report = await kitAgainst(mutant);
        expect(report.verdict).toBe('failed');
        const caught = failedOrSkipped(report);
        expect(caught.some((id) => mutant.caughtBy!.includes(id)), `caught by ${caught.join(', ') || 'nothing'}`).toBe(true);
      });
    } else {
      const why = mutant.visible.no;
      it(`${mutant.name} is not visible in the spec: a warning, not a failure`, { timeout: 60_000 }, async () => {
        const report = await kitAgainst(mutant);
        expect(report.verdict, `${why}\n${describeFailures(report)}`).toBe('passed');
        // Each warning it leaves names what it rests on: an assumption (with its reason), or an inconclusive 503.
        expect(report.checks.some((c) => c.warnings.some((w) => (mutant.warnsInconclusive ? w.rule === 'inconclusive' : w.assumedReason)))).toBe(true);
      });
    }
  }
});
