// The provider's workflows (openapi/workflows/, shipped in @payments/spec) run with Respect: every one passes
// against the sandbox on both stores (node:sqlite and a real PostgreSQL); against Prism's stateless mock only the
// x-mock steps run and the rest is not applicable, never passed; the reports (summary, JUnit) name each step.
import { afterAll, describe, expect, it } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startPrism, type PrismServer } from '../../../tools/lib/prism.ts';
import { startSandbox, type RunningSandbox } from '@payments/sandbox';
import { loadWorkflows } from '../src/workflows/model.ts';
import { renderWorkflowSummary, workflowJunit } from '../src/workflows/report.ts';
import { runWorkflows, type WorkflowReport } from '../src/workflows/run.ts';

const describeFailed = (report: WorkflowReport) => renderWorkflowSummary(report);
const all = loadWorkflows();

function expectAllPassed(report: WorkflowReport): void {
  expect(report.verdict, describeFailed(report)).toBe('passed');
  expect(report.results.map((r) => [r.workflowId, r.status])).toEqual(all.map((w) => [w.workflowId, 'passed']));
  expect(report.totals.stepsNotApplicable + report.totals.stepsNotRun).toBe(0);
}

describe('workflows against the sandbox', () => {
  let pg: ThrowawayPostgres | undefined;
  let sandbox: RunningSandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
    await pg?.stop();
  });

  it('covers the flows the issue lists, each with the provider section it shows', () => {
    const ids = all.map((w) => w.workflowId);
    for (const id of ['pix-payout', 'wallet-payout', 'transfer-same-key-replay', 'transfer-key-conflict', 'transfer-503-retry', 'transfer-pending-review', 'card-provider-rate-limited', 'checkout-product-and-session', 'checkout-pricing-conflict', 'product-disabled']) expect(ids).toContain(id);
    for (const w of all) {
      expect(w['x-provider-section'], w.workflowId).toMatch(/^\d\./);
      expect(w['x-provider-rule'], w.workflowId).toBeTruthy();
    }
  });

  it('every workflow passes against a fresh sandbox (node:sqlite), and the JUnit report has a testcase per step', { timeout: 180_000 }, async () => {
    const report = await runWorkflows({ workflows: [], target: 'auto', timeoutMs: 10_000 });
    expectAllPassed(report);
    expect(report.target).toBe('sandbox');
    const junit = workflowJunit(report);
    expect(junit.match(/<testsuite /g)).toHaveLength(all.length);
    expect(junit.match(/<testcase /g)).toHaveLength(report.totals.steps);
    expect(junit).toContain('name="transfer-503-retry"');
    expect(junit).not.toContain('<failure');
  });

  it('every workflow passes against a sandbox on PostgreSQL', { timeout: 240_000 }, async () => {
    pg = await startThrowawayPostgres();
    sandbox = await startSandbox({ databaseUrl: pg.url });
    const report = await runWorkflows({ server: sandbox.url, adminToken: sandbox.adminToken, workflows: [], target: 'auto', timeoutMs: 10_000 });
    expectAllPassed(report);
    expect(report.target).toBe('server');
  });
});

describe('workflows against the Prism mock', () => {
  let prism: PrismServer | undefined;
  afterAll(async () => {
    await prism?.stop();
  });

  it('runs only the steps a stateless mock can honour; the others are not applicable, never passed', { timeout: 180_000 }, async () => {
    prism = await startPrism();
    const report = await runWorkflows({ server: prism.url, workflows: [], target: 'auto', timeoutMs: 10_000 });
    expect(report.target).toBe('prism');
    expect(report.totals.failed, describeFailed(report)).toBe(0);
    // A workflow with a step that did not apply is never "passed".
    for (const r of report.results) if (r.steps.some((s) => s.status === 'not-applicable')) expect(r.status, r.workflowId).not.toBe('passed');
    // The steps that ran are exactly the x-mock steps of the workflows that need no admin API.
    const ran = report.results.flatMap((r) => r.steps.filter((s) => s.status === 'passed').map((s) => `${r.workflowId}/${s.stepId}`));
    const mockSteps = all.filter((w) => !w.needsAdmin).flatMap((w) => w.steps.filter((s) => s['x-mock']).map((s) => `${w.workflowId}/${s.stepId}`));
    expect(ran.sort()).toEqual(mockSteps.sort());
    expect(mockSteps.length).toBeGreaterThan(0);
    const pix = report.results.find((r) => r.workflowId === 'pix-payout')!;
    expect(pix.status).toBe('partial');
    expect(pix.steps.find((s) => s.stepId === 'getTransfer')?.status).toBe('not-applicable');
    expect(report.results.find((r) => r.workflowId === 'transfer-503-retry')?.status).toBe('not-applicable');
    expect(renderWorkflowSummary(report)).toMatch(/not applicable to this target \(not counted as passed\)/i);
  });
});
