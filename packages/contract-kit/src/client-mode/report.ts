// The client mode's reports: a readable summary (every finding with the provider's words, the evidence and
// what the client should have done), JSON (the whole ClientReport), and JUnit (a testcase per scenario,
// a failure per finding).
import { formatFindings } from '@payments/sandbox';
import { failedResult, type ClientProgress, type ClientReport, type ScenarioResult } from './run.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;
const failuresOf = (r: ScenarioResult) => r.findings.filter((f) => f.severity === 'failure');
const warningsOf = (r: ScenarioResult) => r.findings.filter((f) => f.severity === 'warning');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const verdict = (r: ScenarioResult) => {
  const warned = warningsOf(r).length ? `, ${plural(warningsOf(r).length, 'assumed warning')}` : '';
  return r.error ? 'ERROR' : failuresOf(r).length ? `${plural(failuresOf(r).length, 'finding')}${warned}` : `ok${warned}`;
};
const titleOf = (r: ScenarioResult, report: ClientReport) => (report.repeat > 1 ? `${r.name} (run ${r.run}/${report.repeat})` : r.name);

export function renderClientSummary(report: ClientReport): string {
  const lines = [`Client-rules audit of ${report.scenarios.length} scenario(s) against ${report.baseUrl} (${report.clock === 'test' ? 'test clock' : 'real time'})`, ''];
  for (const r of report.scenarios) {
    // The journal's count includes what the kit itself sent to set the scenario up (its recipient).
    lines.push(`${failedResult(r) ? '✗' : '✓'} ${titleOf(r, report)}: ${verdict(r)} (journal: ${requests(r.requests)}, set-up included; ${seconds(r.durationMs)})`);
    if (r.error) lines.push(`  ${r.error}`);
    if (failuresOf(r).length) {
      lines.push(`  expected: ${r.expected}`);
      lines.push(...formatFindings(failuresOf(r)).split('\n').map((line) => `  ${line}`));
    }
    // Apart from the failures: what rests only on the spec's assumptions (the provider never said it).
    if (warningsOf(r).length) {
      lines.push('  assumed, not the provider\'s rules (warnings, they fail nothing):');
      lines.push(...formatFindings(warningsOf(r)).split('\n').map((line) => `    ${line}`));
    }
    if (failedResult(r) && r.output?.trim()) lines.push(...outputExcerpt(r.output).map((l) => `  ${l}`));
  }
  const { scenarios, passed, failed, findings, warnings } = report.totals;
  lines.push('', `${scenarios} scenarios: ${passed} passed, ${failed} failed, ${findings} finding(s), ${warnings} assumed warning(s)${report.repeat > 1 ? `; each scenario run ${report.repeat} times (jitter compared across runs)` : ''}`, '');
  return lines.join('\n');
}

/**
 * A failed client's output, for the summary: its last lines, and above them its first error line when that is
 * further up (a stack trace says what went wrong at its top: `Error: Cannot find module …`).
 */
export function outputExcerpt(output: string, last = 8): string[] {
  const lines = output.trim().split('\n');
  const first = lines.findIndex((line) => /^\s*(?:[A-Za-z]*Error\b|error:)/.test(line));
  const head = first >= 0 && first < lines.length - last ? [`  ${lines[first]!.trim()}`, '  …'] : [];
  return [head.length ? 'client output (its first error line, then its last lines):' : 'client output (last lines):', ...head, ...lines.slice(-last).map((l) => `  ${l}`)];
}

export const toClientJson = (report: ClientReport): string => `${JSON.stringify(report, null, 2)}\n`;

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function toClientJunit(report: ClientReport): string {
  const failures = report.scenarios.filter((r) => failuresOf(r).length).length;
  const errors = report.scenarios.filter((r) => r.error).length;
  const total = report.scenarios.reduce((ms, r) => ms + r.durationMs, 0);
  const cases = report.scenarios.map((r) => {
    const body = [
      ...failuresOf(r).map((f) => `      <failure type="${xml(f.kind)}" message="${xml(`${f.kind}: ${f.detail}`)}">${xml(formatFindings([f]))}</failure>`),
      ...(warningsOf(r).length ? [`      <system-out>${xml(formatFindings(warningsOf(r)))}</system-out>`] : []),
      ...(r.error ? [`      <error message="${xml(r.error)}"/>`] : []),
    ];
    const open = `    <testcase classname="client-rules" name="${xml(titleOf(r, report))}" time="${(r.durationMs / 1000).toFixed(3)}"`;
    return body.length ? `${open}>\n${body.join('\n')}\n    </testcase>` : `${open}/>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="payments-contract-kit client" tests="${report.scenarios.length}" failures="${failures}" errors="${errors}" time="${(total / 1000).toFixed(3)}">`,
    `  <testsuite name="client-rules" tests="${report.scenarios.length}" failures="${failures}" errors="${errors}" time="${(total / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** Progress lines on stderr: one when a scenario starts, one when it is judged. */
export const stderrClientProgress = (write: (text: string) => void = (t) => process.stderr.write(t)): ClientProgress => (event) => {
  const at = `[${event.index + 1}/${event.of}]`;
  if (event.type === 'start') write(`contract-kit client ${at} ${event.scenario.name}: ${event.scenario.title}…\n`);
  else write(`contract-kit client ${at} ${event.result.name}: ${verdict(event.result)} (${requests(event.result.requests)}, ${seconds(event.result.durationMs)})\n`);
};
