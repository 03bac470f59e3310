// The workflow run's summary (a table, then each failure with its step and criterion), its JSON, and its JUnit
// XML through the kit's own report/junit.ts (one suite per workflow, one testcase per step).
import { toJunit } from '../report/junit.ts';
import type { CheckResult, Report } from '../types.ts';
import type { StepResult } from './outcome.ts';
import type { WorkflowReport } from './run.ts';

const MARK: Record<string, string> = { passed: '✓', partial: '◐', failed: '✗', 'not-applicable': '–', 'not-run': '·' };

export function renderWorkflowSummary(report: WorkflowReport): string {
  const t = report.totals;
  const lines = [`Workflows against ${report.server} (${report.target}), run id ${report.runId}`, ''];
  const width = Math.max(...report.results.map((r) => r.workflowId.length), 8);
  lines.push(`  ${'workflow'.padEnd(width)}  ${'result'.padEnd(14)}  steps (passed/failed/not applicable/not run)  section`);
  for (const r of report.results) {
    const c = (s: StepResult['status']) => r.steps.filter((x) => x.status === s).length;
    lines.push(`${MARK[r.status]} ${r.workflowId.padEnd(width)}  ${r.status.padEnd(14)}  ${`${c('passed')}/${c('failed')}/${c('not-applicable')}/${c('not-run')}`.padEnd(44)}  ${r.section}`);
  }
  const failures = report.results.filter((r) => r.status === 'failed');
  for (const r of failures) {
    lines.push('', `✗ ${r.workflowId} (${r.file})`);
    for (const s of r.steps.filter((x) => x.status === 'failed')) {
      lines.push(`    step ${s.stepId}${s.request ? `: ${s.request.method} ${s.request.url}` : ''}${s.statusCode ? ` → ${s.statusCode}` : ''}`);
      for (const f of s.failed) {
        lines.push(`      ✗ ${f.name}${f.condition ? `: ${f.condition}` : ''}${f.message && !f.message.startsWith('Checking') ? `\n        ${f.message.split('\n').join('\n        ')}` : ''}`);
        if (f.seen) lines.push(`        seen: ${f.seen}`);
        if (f.assumedReason) lines.push(`        the answer has no such field, and the spec only assumes it (a server may name it otherwise): ${f.assumedReason}`);
      }
    }
    const notRun = r.steps.filter((x) => x.status === 'not-run').map((x) => x.stepId);
    if (notRun.length > 0) lines.push(`    not run (Respect stops at the first failed step): ${notRun.join(', ')}`);
  }
  lines.push(...warningLines(report));
  const partial = report.results.filter((r) => r.status !== 'not-applicable' && r.steps.some((s) => s.status === 'not-applicable'));
  const na = report.results.filter((r) => r.status === 'not-applicable');
  if (na.length > 0 || partial.length > 0) {
    lines.push('', 'Not applicable to this target (not counted as passed):');
    for (const r of na) lines.push(`  – ${r.workflowId}: ${r.reason}`);
    for (const r of partial) lines.push(`  – ${r.workflowId}, steps ${r.steps.filter((s) => s.status === 'not-applicable').map((s) => s.stepId).join(', ')}: ${r.reason}`);
  }
  lines.push(
    '',
    `Workflows: ${t.passed} passed, ${t.partial} partly run (the steps that apply passed), ${t.failed} failed, ${t.notApplicable} not applicable, ${t.workflows} total`,
    `Steps: ${t.stepsPassed} passed, ${t.stepsFailed} failed, ${t.stepsNotApplicable} not applicable, ${t.stepsNotRun} not run, ${t.steps} total; ${t.warnings} warnings on assumptions`,
    `Time: ${(report.durationMs / 1000).toFixed(1)} s — ${report.verdict.replace('-', ' ').toUpperCase()}`,
  );
  return `${lines.join('\n')}\n`;
}

/** Answers that differ only from what the spec assumes: not failures, but a user should see what was not held to the spec. */
function warningLines(report: WorkflowReport): string[] {
  const lines: string[] = [];
  for (const r of report.results) {
    for (const s of r.steps.filter((x) => x.warnings.length > 0)) {
      lines.push(`  ⚠ ${r.workflowId} › ${s.stepId}${s.request ? `: ${s.request.method} ${s.request.url}` : ''}${s.statusCode ? ` → ${s.statusCode}` : ''}`);
      for (const w of s.warnings) lines.push(`      ${w.message}${w.assumedReason ? `\n        assumed by the spec, not stated by the provider: ${w.assumedReason}` : ''}`);
    }
  }
  return lines.length > 0 ? ['', 'Warnings (the answers differ only from what the spec assumes where the provider is silent; not failures):', ...lines] : [];
}

export const workflowJson = (report: WorkflowReport): string => `${JSON.stringify(report, null, 2)}\n`;

/** One kit CheckResult per step, so the kit's JUnit writer serves the workflows too (a suite per workflow). */
function stepCheck(workflowId: string, s: StepResult): CheckResult {
  const skippedReason = s.status === 'not-applicable' ? `not applicable: ${s.reason}` : 'not run: an earlier step failed';
  return {
    id: `${workflowId}/${s.stepId}`,
    operationId: workflowId,
    name: s.stepId,
    status: s.status === 'passed' ? 'passed' : s.status === 'failed' ? 'failed' : 'skipped',
    requests: s.request ? 1 : 0,
    statuses: s.statusCode ? { [String(s.statusCode)]: 1 } : {},
    durationMs: s.durationMs,
    // Respect's message for a plain failed criterion only repeats it ("Checking simple criteria: …"): the condition alone says it.
    failures: s.failed.map((f) => ({
      severity: 'failure' as const,
      rule: f.name,
      message: `${f.message.startsWith('Checking') ? (f.condition ?? f.message) : `${f.condition ? `${f.condition}: ` : ''}${f.message}`}${f.seen ? ` (seen: ${f.seen})` : ''}`,
    })),
    warnings:
      s.status === 'not-applicable' || s.status === 'not-run'
        ? [{ severity: 'warning' as const, rule: 'skipped', message: skippedReason, count: 1 }]
        : s.warnings.map((w) => ({ severity: 'warning' as const, rule: w.name, message: w.message, ...(w.assumedReason ? { assumedReason: w.assumedReason } : {}), count: 1 })),
    inconclusive: 0,
  };
}

export function workflowJunit(report: WorkflowReport): string {
  const checks = report.results.flatMap((r) => r.steps.map((s) => stepCheck(r.workflowId, s)));
  const asKit: Report = {
    tool: report.tool,
    baseUrl: report.server,
    target: report.target === 'prism' ? 'prism' : 'server',
    seed: 0,
    runs: 1,
    strict503: false,
    operations: [],
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    totals: { checks: checks.length, passed: 0, failed: 0, skipped: 0, warnings: 0, inconclusive: 0, requests: 0 },
    checks,
    notes: [],
    notApplicable: [],
    coverage: [],
    unexercised: [],
    pacing: { keys: 0, waitedMs: 0, overBudget: 0, rateLimited: 0 },
    allowSkips: true,
    verdict: report.verdict === 'passed' ? 'passed' : 'failed',
  };
  return toJunit(asKit);
}
