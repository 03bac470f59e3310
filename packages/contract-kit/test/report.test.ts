// The outputs on a hand-made report: the summary table, JUnit XML (escaping, one testcase per check,
// failure/skipped), and the progress indicator (a rewritten line on a TTY, plain lines otherwise).
import { describe, expect, it } from 'vitest';
import { stderrProgress } from '../src/progress.ts';
import { toJunit } from '../src/report/junit.ts';
import { renderSummary } from '../src/report/summary.ts';
import type { CheckResult, Report } from '../src/types.ts';

const checkOf = (over: Partial<CheckResult> & Pick<CheckResult, 'id' | 'operationId' | 'status'>): CheckResult => ({
  name: over.id,
  requests: 1,
  statuses: {},
  durationMs: 12,
  failures: [],
  warnings: [],
  inconclusive: 0,
  ...over,
});

const report: Report = {
  tool: '@payments/contract-kit',
  baseUrl: 'http://127.0.0.1:1',
  target: 'server',
  seed: 42,
  runs: 5,
  strict503: false,
  operations: ['createTransfer', 'getTransfer'],
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1234,
  totals: { checks: 3, passed: 1, failed: 1, skipped: 1, warnings: 3, inconclusive: 4, requests: 12 },
  notes: ['target: a server'],
  notApplicable: [],
  coverage: [],
  unexercised: [],
  pacing: { keys: 1, waitedMs: 0, overBudget: 0, rateLimited: 0 },
  allowSkips: false,
  verdict: 'failed',
  checks: [
    checkOf({
      id: 'createTransfer/valid',
      operationId: 'createTransfer',
      status: 'passed',
      requests: 10,
      inconclusive: 4,
      warnings: [{ severity: 'warning', rule: 'inconclusive', message: 'POST /v1/banking/transfers → 503: a documented 503 (temporarily_unavailable)', count: 4 }],
    }),
    checkOf({
      id: 'createTransfer/idempotency-conflict',
      operationId: 'createTransfer',
      name: 'conflict <&> "quoted"',
      status: 'failed',
      failures: [{ severity: 'failure', rule: 'conflict', message: 'got 201 <not> 409 & "more"\u0001', curl: "curl -H 'a: b'" }],
    }),
    checkOf({
      id: 'getTransfer/auth-revoked-key',
      operationId: 'getTransfer',
      status: 'skipped',
      warnings: [{ severity: 'warning', rule: 'skipped', message: 'needs --admin-token', count: 1 }, { severity: 'warning', rule: 'status', message: 'x', assumedReason: 'because', count: 3 }],
    }),
  ],
};

describe('summary', () => {
  const text = renderSummary(report);
  it('has a table per operation with a total, inconclusive answers counted', () => {
    expect(text).toMatch(/^operation\s+requests\s+passed\s+failed\s+skipped\s+warnings\s+inconclusive$/m);
    expect(text).toMatch(/^createTransfer\s+11\s+1\s+1\s+0\s+1\s+4$/m);
    expect(text).toMatch(/^getTransfer\s+1\s+0\s+0\s+1\s+2\s+0$/m);
    expect(text).toMatch(/^TOTAL\s+12\s+1\s+1\s+1\s+3\s+4$/m);
  });
  it('names the checks that ran, and the generated requests only when a property check ran', () => {
    expect(text).toContain('  checks run: valid, idempotency-conflict, auth-revoked-key (5 generated requests per property: valid)');
    const noProperty = renderSummary({ ...report, checks: report.checks.filter((c) => !c.id.endsWith('/valid')) });
    expect(noProperty).toContain('  checks run: idempotency-conflict, auth-revoked-key\n');
    expect(noProperty).not.toContain('generated requests');
  });
  it('makes inconclusive answers visible, and says how to gate on them', () => {
    expect(text).toContain("INCONCLUSIVE: 4 answers were a documented 503 or the edge's 502/504");
    expect(text).toContain('gate with --strict-503');
    expect(text).toMatch(/^FAILED: 3 checks, 1 passed, 1 failed, 1 skipped, 3 warnings, 4 inconclusive, 12 requests, 0 documented responses never exercised$/m);
    const strict = renderSummary({ ...report, strict503: true });
    expect(strict).toContain('--strict-503: each is a failure of its check');
    expect(strict).toMatch(/4 inconclusive \(--strict-503\)/);
    expect(renderSummary({ ...report, checks: report.checks.map((c) => ({ ...c, inconclusive: 0 })) })).not.toContain('INCONCLUSIVE');
  });
  it('lists failures with their curl, warnings with their x-assumed reason, and the seed', () => {
    expect(text).toContain('[conflict] got 201 <not> 409');
    expect(text).toContain("curl -H 'a: b'");
    expect(text).toContain('! getTransfer › getTransfer/auth-revoked-key: x (x3)');
    expect(text).toContain('x-assumed: because');
    // Kept apart from the other warnings: what only the spec assumes has its own section.
    expect(text).toMatch(/\nASSUMED \(1\): warnings on what only the spec assumes \(x-assumed\), not the provider's document: they fail nothing\n  ! getTransfer › getTransfer\/auth-revoked-key: x \(x3\)\n      x-assumed: because/);
    expect(text).toContain('seed 42 (replay this run with --seed 42)');
    expect(text).toMatch(/^FAILED: 3 checks, 1 passed, 1 failed, 1 skipped/m);
  });
});

describe('JUnit XML', () => {
  const xml = toJunit(report);
  it('has one testcase per check, grouped per operation', () => {
    expect((xml.match(/<testcase /g) ?? []).length).toBe(3);
    expect((xml.match(/<testsuite /g) ?? []).length).toBe(2);
    expect(xml).toContain('<testsuites name="@payments/contract-kit" tests="3" failures="1" skipped="1"');
  });
  it('counts inconclusive answers per suite (operation) and per testcase', () => {
    expect(xml).toContain('<property name="strict503" value="false"/><property name="inconclusive" value="4"/></properties>');
    expect(xml).toMatch(/<testsuite name="createTransfer"[^>]*>\n {4}<properties>.*<property name="inconclusive" value="4"\/><\/properties>/);
    expect(xml).toMatch(/<testsuite name="getTransfer"[^>]*>\n {4}<properties>.*<property name="inconclusive" value="0"\/><\/properties>/);
    expect(xml).toMatch(/name="valid: createTransfer\/valid" time="[\d.]+">\n {6}<properties><property name="inconclusive" value="4"\/><\/properties>/);
  });
  it('names each testcase by its check id and title, in the class contract.<operation>', () => {
    expect(xml).toContain('<testcase classname="contract.createTransfer" name="idempotency-conflict: conflict');
    expect(xml).toContain('<testcase classname="contract.getTransfer" name="auth-revoked-key: getTransfer/auth-revoked-key"');
  });
  it('escapes markup and drops characters XML cannot carry', () => {
    expect(xml).toContain('name="idempotency-conflict: conflict &lt;&amp;&gt; &quot;quoted&quot;"');
    expect(xml).toContain('<failure type="conflict" message="got 201 &lt;not&gt; 409 &amp; &quot;more&quot;\uFFFD">');
    expect(xml).not.toContain('\u0001');
    expect(xml).toContain('<skipped message="needs --admin-token"/>');
    expect(xml).toContain('WARNING [status] x (x3)\n  x-assumed: because');
  });
});

describe('progress', () => {
  const drive = (isTTY: boolean) => {
    let out = '';
    const progress = stderrProgress({ isTTY, write: (t: string) => (out += t) }, 60_000);
    progress.begin(2);
    progress.checkStart('createTransfer › valid requests');
    progress.request();
    progress.checkEnd(report.checks[0]!);
    progress.end();
    return out;
  };
  it('rewrites one line on a terminal', () => {
    const out = drive(true);
    expect(out).toContain('\r\x1b[2K[0/2] 0 requests');
    expect(out).toContain('createTransfer › valid requests');
  });
  it('prints plain lines otherwise', () => {
    const out = drive(false);
    expect(out).not.toContain('\r');
    // The done line holds the totals only, not the last check's title (QA).
    expect(out).toBe('contract-kit: 2 checks\ncontract-kit: done, [1/2] 1 requests, 0 failed, 1 warnings, 4 inconclusive\n');
  });
});
