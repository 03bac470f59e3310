// JUnit XML: one <testsuite> per operation, one <testcase> per check (classname `contract.<operation>`, name
// `<check id>: <title>`); a failed check has a <failure> with
// every failure message and its curl, a skipped one a <skipped> with the reason; warnings go to <system-out>.
// The inconclusive answers (documented 503s, the edge's 502/504) are counted in a property per suite (that is,
// per operation) and per testcase that had any.
import type { CheckResult, Report } from '../types.ts';

const escape = (text: string): string =>
  text
    // XML 1.0 forbids most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);
const inconclusive = (checks: CheckResult[]) => checks.reduce((n, c) => n + c.inconclusive, 0);

export function toJunit(report: Report): string {
  const suites = new Map<string, CheckResult[]>();
  for (const check of report.checks) suites.set(check.operationId, [...(suites.get(check.operationId) ?? []), check]);
  const count = (checks: CheckResult[], status: CheckResult['status']) => checks.filter((c) => c.status === status).length;
  const time = (checks: CheckResult[]) => seconds(checks.reduce((n, c) => n + c.durationMs, 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(report.tool)}" tests="${report.checks.length}" failures="${count(report.checks, 'failed')}" skipped="${count(report.checks, 'skipped')}" errors="0" time="${seconds(report.durationMs)}" timestamp="${report.startedAt}">`,
  ];
  for (const [operationId, checks] of suites) {
    lines.push(
      `  <testsuite name="${escape(operationId)}" tests="${checks.length}" failures="${count(checks, 'failed')}" skipped="${count(checks, 'skipped')}" errors="0" time="${time(checks)}">`,
      `    <properties><property name="baseUrl" value="${escape(report.baseUrl)}"/><property name="seed" value="${report.seed}"/><property name="target" value="${report.target}"/><property name="strict503" value="${report.strict503}"/><property name="inconclusive" value="${inconclusive(checks)}"/></properties>`,
    );
    for (const check of checks) {
      // The check's id (what --checks selects) leads the name: `idempotency-conflict: the same key with …`.
      const id = check.id.startsWith(`${operationId}/`) ? check.id.slice(operationId.length + 1) : check.id;
      lines.push(`    <testcase classname="${escape(`contract.${operationId}`)}" name="${escape(`${id}: ${check.name}`)}" time="${seconds(check.durationMs)}">`);
      if (check.inconclusive > 0) lines.push(`      <properties><property name="inconclusive" value="${check.inconclusive}"/></properties>`);
      if (check.status === 'failed') {
        const first = check.failures[0]!;
        const body = check.failures.map((f) => `[${f.rule}] ${f.message}${f.curl ? `\n${f.curl}` : ''}`).join('\n\n');
        const example = check.counterexample ? `\n\nminimal request (after ${check.counterexample.numRuns} runs, ${check.counterexample.numShrinks} shrinks):\n${check.counterexample.curl}` : '';
        lines.push(`      <failure type="${escape(first.rule)}" message="${escape(first.message)}">${escape(body + example)}</failure>`);
      } else if (check.status === 'skipped') {
        const reason = check.warnings.find((w) => w.rule === 'skipped')?.message ?? 'skipped';
        lines.push(`      <skipped message="${escape(reason)}"/>`);
      }
      if (check.warnings.length > 0) {
        const text = check.warnings
          .map((w) => `WARNING [${w.rule}] ${w.message}${w.count > 1 ? ` (x${w.count})` : ''}${w.assumedReason ? `\n  x-assumed: ${w.assumedReason}` : ''}`)
          .join('\n');
        lines.push(`      <system-out>${escape(text)}</system-out>`);
      }
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
