// The readable summary: a table per operation (requests, passed, failed, skipped, warnings, inconclusive
// answers), then every failure with its curl reproduction, then the warnings (deduplicated, with their
// x-assumed reasons), a note when answers were inconclusive, then the seed.
import { PROPERTY_CHECKS } from '../registry.ts';
import type { CheckResult, Report } from '../types.ts';

interface Row {
  name: string;
  requests: number;
  passed: number;
  failed: number;
  skipped: number;
  warnings: number;
  inconclusive: number;
}

export function renderSummary(report: Report): string {
  const rows = new Map<string, Row>();
  for (const check of report.checks) {
    const row = rows.get(check.operationId) ?? { name: check.operationId, requests: 0, passed: 0, failed: 0, skipped: 0, warnings: 0, inconclusive: 0 };
    row.requests += check.requests;
    row.inconclusive += check.inconclusive;
    if (check.status === 'passed') row.passed++;
    if (check.status === 'failed') row.failed++;
    if (check.status === 'skipped') row.skipped++;
    row.warnings += check.warnings.length; // distinct warnings (repeats are shown as xN)
    rows.set(check.operationId, row);
  }
  const all = [...rows.values()];
  const total: Row = {
    name: 'TOTAL',
    requests: sum(all, 'requests'),
    passed: sum(all, 'passed'),
    failed: sum(all, 'failed'),
    skipped: sum(all, 'skipped'),
    warnings: sum(all, 'warnings'),
    inconclusive: sum(all, 'inconclusive'),
  };
  const header = ['operation', 'requests', 'passed', 'failed', 'skipped', 'warnings', 'inconclusive'];
  const cells = [...all, total].map((r) => [r.name, r.requests, r.passed, r.failed, r.skipped, r.warnings, r.inconclusive].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const fmt = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');

  const lines: string[] = [];
  lines.push(`Contract run against ${report.baseUrl} (${report.target === 'prism' ? "Prism's mock" : 'server'}), ${(report.durationMs / 1000).toFixed(1)} s`);
  lines.push(`  checks run: ${checksRun(report)}`);
  for (const note of report.notes) lines.push(`  ${note}`);
  lines.push('');
  lines.push(fmt(header), rule, ...cells.slice(0, -1).map(fmt), rule, fmt(cells[cells.length - 1]!));
  const failed = report.checks.filter((c) => c.failures.length > 0);
  if (failed.length > 0) {
    lines.push('', `FAILURES (${failed.reduce((n, c) => n + c.failures.length, 0)} in ${failed.length} checks)`);
    for (const check of failed) lines.push(...failureLines(check));
  }
  // What the provider's document states and what the spec only assumes are kept apart (issue 27).
  lines.push(...warningLines('WARNINGS', '', report, (w) => !w.assumedReason));
  lines.push(...warningLines('ASSUMED', "warnings on what only the spec assumes (x-assumed), not the provider's document: they fail nothing", report, (w) => Boolean(w.assumedReason)));
  if (total.inconclusive > 0) {
    lines.push(
      '',
      `INCONCLUSIVE: ${total.inconclusive} answer${total.inconclusive > 1 ? 's were' : ' was'} a documented 503 or the edge's 502/504, where the kit cannot tell a transient outage from a server bug; those requests' outcomes were not checked.`,
      report.strict503 ? '  --strict-503: each is a failure of its check (listed above).' : '  They are warnings: re-run, or gate with --strict-503 to make them failures.',
    );
  }
  lines.push(...coverageLines(report));
  if (report.notApplicable.length > 0) {
    lines.push('', `NOT APPLICABLE (${report.notApplicable.length}: the target lacks what they need)`);
    const byReason = new Map<string, string[]>();
    for (const n of report.notApplicable) byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), `${n.operationId}/${n.check}`]);
    for (const [reason, ids] of byReason) lines.push(`  - ${reason}: ${ids.join(', ')}`);
  }
  const p = report.pacing;
  // Counts the 429s that left a request unchecked; the rate-limit check's own, expected 429s are not among
  // them (QA: "0 answers were 429" read as a contradiction of the coverage table's 429 row).
  lines.push('', `RATE LIMIT: ${p.rateLimited} unexpected answers were 429 (the rate-limit check's own not counted)${p.keys > 1 ? `; ${p.keys} keys provisioned` : ''}${p.waitedMs > 0 ? `; waited ${(p.waitedMs / 1000).toFixed(0)} s` : ''}${p.overBudget > 0 ? `; ${p.overBudget} requests sent over the budget (--max-wait-s reached)` : ''}`);
  if (report.totals.skipped > 0) lines.push(report.allowSkips ? `  ${report.totals.skipped} skipped checks allowed (--allow-skips)` : `  ${report.totals.skipped} checks were skipped: the run FAILS (what they check was not established); --allow-skips accepts that`);
  lines.push('');
  lines.push(
    `${report.verdict === 'passed' ? 'PASSED' : 'FAILED'}: ${report.totals.checks} checks, ${report.totals.passed} passed, ${report.totals.failed} failed, ${report.totals.skipped} skipped, ${total.warnings} warnings, ${total.inconclusive} inconclusive${report.strict503 ? ' (--strict-503)' : ''}, ${report.totals.requests} requests, ${report.unexercised.length} documented responses never exercised`,
  );
  lines.push(`seed ${report.seed} (replay this run with --seed ${report.seed})`);
  return `${lines.join('\n')}\n`;
}

function warningLines(title: string, note: string, report: Report, pick: (w: CheckResult['warnings'][number]) => boolean): string[] {
  const picked = report.checks.flatMap((check) => check.warnings.filter(pick).map((w) => ({ check, w })));
  if (picked.length === 0) return [];
  const lines = ['', `${title} (${picked.length})${note ? `: ${note}` : ''}`];
  for (const { check, w } of picked) {
    lines.push(`  ! ${check.operationId} › ${check.name}: ${w.message}${w.count > 1 ? ` (x${w.count})` : ''}`);
    if (w.assumedReason) lines.push(`      x-assumed: ${w.assumedReason}`);
  }
  return lines;
}

function failureLines(check: CheckResult): string[] {
  const out = [`  x ${check.operationId} › ${check.name}`];
  for (const f of check.failures) {
    out.push(`      [${f.rule}] ${f.message}`);
    if (f.curl && f.curl !== check.counterexample?.curl) out.push(`      ${f.curl}`);
  }
  if (check.counterexample) {
    const c = check.counterexample;
    out.push(`      minimal request (after ${c.numRuns} runs, ${c.numShrinks} shrinks):`, `      ${c.curl}`);
  }
  return out;
}

/** The checks that ran, by id in run order; the properties' generated requests named only when one ran. */
function checksRun(report: Report): string {
  const ids = [...new Set(report.checks.map((c) => c.id.slice(c.id.indexOf('/') + 1)))];
  const properties = ids.filter((id) => PROPERTY_CHECKS.includes(id));
  const runs = properties.length ? ` (${report.runs} generated requests per property: ${properties.join(', ')})` : '';
  return ids.length ? `${ids.join(', ')}${runs}` : 'none';
}

const sum = (rows: Row[], key: keyof Omit<Row, 'name'>) => rows.reduce((n, r) => n + r[key], 0);

/** Per operation, every documented status with how often it was answered, and its codes seen / not seen. */
function coverageLines(report: Report): string[] {
  if (report.coverage.length === 0) return [];
  const lines = ['', 'COVERAGE (documented statuses and codes: answered N times; "-" never seen)'];
  let op = '';
  for (const row of report.coverage) {
    if (row.operationId !== op) lines.push(`  ${(op = row.operationId)}`);
    const codes = row.codes.map((c) => `${c.code}${c.documented ? '' : ' (undocumented)'} ${c.seen || '-'}`).join(', ');
    lines.push(`    ${row.status.padEnd(4)} ${String(row.seen || '-').padStart(5)}${row.documented ? '' : '  UNDOCUMENTED'}${codes ? `   ${codes}` : ''}`);
  }
  if (report.unexercised.length > 0) {
    lines.push(`  ! ${report.unexercised.length} documented responses never exercised: ${report.unexercised.join('; ')}`);
  }
  // Kept apart: the spec's conventional choices (x-assumed) were never the provider's documented responses.
  const assumed = report.unexercisedAssumed ?? [];
  if (assumed.length > 0) lines.push(`  ${assumed.length} responses only the spec assumes (x-assumed) never seen: ${assumed.join('; ')}`);
  return lines;
}
