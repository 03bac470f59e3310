// Test helpers: run the kit in-process (silent) and read its report.
import { run } from '../src/run.ts';
import type { CheckResult, Finding, Report, RunOptions } from '../src/types.ts';

/**
 * How a server run is gated (the sandbox test): an inconclusive answer (a documented 503, the edge's 502/504)
 * is a failure, so a server answering 503 to everything cannot pass (test/broken.test.ts shows it failing).
 */
export const SERVER_GATE = { strict503: true } as const satisfies Partial<RunOptions>;

export async function runKit(options: Partial<RunOptions> & Pick<RunOptions, 'baseUrl' | 'apiKey'>): Promise<Report> {
  return run({ seed: 7, runs: 5, operations: [], timeoutMs: 10_000, target: 'auto', ...options });
}

export const failures = (report: Report): (Finding & { check: string })[] =>
  report.checks.flatMap((c) => c.failures.map((f) => ({ ...f, check: c.id })));

export const warnings = (report: Report): (Finding & { check: string })[] =>
  report.checks.flatMap((c) => c.warnings.map((w) => ({ ...w, check: c.id })));

export const check = (report: Report, id: string): CheckResult => {
  const found = report.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id} in the report (${report.checks.map((c) => c.id).join(', ')})`);
  return found;
};

/** Every failure as one line, for assertion messages. */
export const describeFailures = (report: Report): string =>
  failures(report)
    .map((f) => `${f.check} [${f.rule}] ${f.message}${f.curl ? `\n    ${f.curl}` : ''}`)
    .join('\n') || '(none)';
