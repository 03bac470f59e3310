// The client mode's run: for each scenario, provision (provision.ts), hand the client under test what it
// needs, then audit the organization's traffic journal with the sandbox's client-rules audit. The client
// is a `drive` function: the CLI's spawns the user's command with the scenario in its environment
// (command.ts); a test passes its own, e.g. our client with a virtual sleep that advances the test clock.
import { loadSpec } from '@payments/spec';
import { auditJitter, auditJournal, auditRules, type Finding, type JournalEntry } from '@payments/sandbox';
import { scenarioExpectations } from './expectations.ts';
import { advanceClock, frozenClockOf, provision, readJournal, type Provisioned, type SandboxAccess } from './provision.ts';
import { TOOL } from '../run.ts';
import { waitsOnAStillClock } from './test-clock.ts';
import type { Scenario } from './scenarios.ts';

/** What the client under test gets for one scenario (the CLI passes it as environment variables). */
export interface ScenarioContext extends Provisioned {
  baseUrl: string;
  scenario: Scenario;
  /** With a test clock: advances the organization's clock by `ms` (a virtual sleep); else a real sleep. */
  sleep(ms: number): Promise<void>;
  /** The organization's clock reading, ms (with a test clock: virtual, advanced by `sleep`). */
  now(): number;
}

/** How the client's run for one scenario ended. */
export interface Driven {
  exitCode: number;
  /** Its output worth reporting. */
  output?: string;
  /** Set when it did not end by itself: it was stopped after this many ms (the CLI's --timeout-ms). */
  stoppedAfterMs?: number;
}

/** Runs the client for one scenario. */
export type Drive = (context: ScenarioContext) => Promise<Driven>;

export interface ScenarioResult {
  name: string;
  /** Which run of the scenario (1…N with --repeat N). */
  run: number;
  title: string;
  expected: string;
  organizationId: string;
  /** Requests the journal holds for the scenario (the recipient the kit created included). */
  requests: number;
  /** Findings, failures (the document's rules, the scenario's expectations) and warnings (assumptions) alike. */
  findings: Finding[];
  /** Why the scenario could not be judged (the client sent no request for the payment, or provisioning failed). */
  error: string | undefined;
  exitCode: number | undefined;
  output: string | undefined;
  durationMs: number;
}

export interface ClientReport {
  /** As in the server report: what wrote it, and the run's outcome (a CI step reads it without adding up totals). */
  tool: typeof TOOL;
  verdict: 'passed' | 'failed';
  baseUrl: string;
  clock: 'test' | 'real';
  scenarios: ScenarioResult[];
  /** Runs per scenario (--repeat): with 2 or more, the increased delays are compared across runs (jitter). */
  repeat: number;
  /** `findings`: failures (they fail the run); `warnings`: findings on an x-assumed part of the spec only. */
  totals: { scenarios: number; passed: number; failed: number; findings: number; warnings: number };
}

/** A result fails on a finding that is not a warning, or when it could not be judged. */
export const failedResult = (r: ScenarioResult): boolean => Boolean(r.error) || r.findings.some((f) => f.severity === 'failure');

export type ClientProgress = (event: { type: 'start'; scenario: Scenario; index: number; of: number } | { type: 'end'; result: ScenarioResult; index: number; of: number }) => void;

export interface ClientRunOptions extends SandboxAccess {
  scenarios: readonly Scenario[];
  testClock: boolean;
  drive: Drive;
  progress?: ClientProgress;
  /** Runs per scenario (default 1). */
  repeat?: number;
  /**
   * With a sandbox of the kit's own (only the kit and the client talk to it): how many public API requests
   * it has refused 401 so far. Such a request has no organization, so no journal holds it.
   */
  refused401?: () => number;
}

export async function runClientMode(options: ClientRunOptions): Promise<ClientReport> {
  const rules = auditRules(loadSpec());
  const repeat = options.repeat ?? 1;
  const results: ScenarioResult[] = [];
  const of = options.scenarios.length * repeat;
  for (const scenario of options.scenarios) {
    const journals: JournalEntry[][] = [];
    for (let run = 1; run <= repeat; run++) {
      const index = results.length;
      options.progress?.({ type: 'start', scenario, index, of });
      const { result, entries } = await runScenario(options, scenario, rules, run);
      if (!result.error) journals.push(entries);
      // The last run carries what only the runs together show: the same increased delays every time.
      if (run === repeat && journals.length === repeat) result.findings.push(...auditJitter(journals, rules));
      results.push(result);
      options.progress?.({ type: 'end', result, index, of });
    }
  }
  const failed = results.filter(failedResult).length;
  const count = (severity: Finding['severity']) => results.reduce((n, r) => n + r.findings.filter((f) => f.severity === severity).length, 0);
  return {
    tool: TOOL,
    verdict: failed > 0 ? 'failed' : 'passed',
    baseUrl: options.baseUrl,
    clock: options.testClock ? 'test' : 'real',
    repeat,
    scenarios: results,
    totals: { scenarios: results.length, passed: results.length - failed, failed, findings: count('failure'), warnings: count('warning') },
  };
}

async function runScenario(options: ClientRunOptions, scenario: Scenario, rules: ReturnType<typeof auditRules>, run: number): Promise<{ result: ScenarioResult; entries: JournalEntry[] }> {
  const started = performance.now();
  const base = { name: scenario.name, run, title: scenario.title, expected: scenario.expected, organizationId: '', requests: 0, findings: [], exitCode: undefined, output: undefined };
  let provisioned: Provisioned;
  try {
    provisioned = await provision(options, scenario, { testClock: options.testClock });
  } catch (err) {
    return { result: { ...base, error: `provisioning failed: ${err instanceof Error ? err.message : String(err)}`, durationMs: performance.now() - started }, entries: [] };
  }
  let virtualNow = Date.now();
  const context: ScenarioContext = {
    ...provisioned,
    baseUrl: options.baseUrl,
    scenario,
    sleep: options.testClock
      ? async (ms) => {
          virtualNow += ms;
          await advanceClock(options, provisioned.organizationId, ms);
        }
      : (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: options.testClock ? () => virtualNow : () => Date.now(),
  };
  const refusedBefore = options.refused401?.();
  const clientStarted = performance.now();
  const driven: Driven = await options.drive(context).catch((err: unknown) => ({ exitCode: 1, output: `the client failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` }));
  const clientRanMs = performance.now() - clientStarted;
  const refused = refusedBefore === undefined ? undefined : options.refused401!() - refusedBefore;
  const { entries } = await readJournal(options, provisioned.organizationId);
  // The scenario asks for one payment: every request of its operation is that payment, whatever its key or body.
  const judged = auditJournal(entries, rules, { onePayment: scenario.operation });
  let findings = [...judged, ...scenarioExpectations(scenario, entries, rules, driven, judged)];
  let waitsUnjudged: string | undefined;
  if (provisioned.frozenAtMs !== undefined) {
    const nowMs = await frozenClockOf(options, provisioned.organizationId);
    ({ findings, error: waitsUnjudged } = waitsOnAStillClock(findings, { frozenAtMs: provisioned.frozenAtMs, nowMs, clientRanMs }));
  }
  // A client that never tried the payment broke no rule, but proved nothing either.
  const tried = entries.some((e) => e.operationId === scenario.operation);
  const result: ScenarioResult = {
    ...base,
    organizationId: provisioned.organizationId,
    requests: entries.length,
    findings,
    error: tried ? waitsUnjudged : nothingToJudge(scenario, driven, refused),
    exitCode: driven.exitCode,
    output: driven.output,
    durationMs: performance.now() - started,
  };
  return { result, entries };
}

/**
 * Why a scenario has nothing to judge. A request without the scenario's key in `x-api-key` (none, another
 * header such as `authorization: Bearer`) is refused 401 before any organization is known: no journal holds
 * it. With the kit's own sandbox the 401s of the client's run say whether that happened; else the likely causes.
 */
function nothingToJudge(scenario: Scenario, driven: Driven, refused: number | undefined): string {
  const none = `the client (exit code ${driven.exitCode}) sent no ${scenario.operation} request`;
  const header = "the scenario's API key (PAYMENTS_API_KEY) in x-api-key, the only authentication header the provider accepts (section 5)";
  const unattributed = `a request without ${header} (e.g. the key sent as authorization: Bearer) is refused 401 before any organization is known, so no journal holds it`;
  if (refused === undefined) {
    return `${none} with ${header}; nothing to judge. Likely it sent none, or sent the key another way (e.g. authorization: Bearer): such a request is refused 401 before any organization is known, so no journal holds it`;
  }
  if (refused === 0) return `${none}, and the sandbox refused none 401 during its run (not a missing or misplaced API key); nothing to judge`;
  return `${none} the sandbox could attribute: it refused ${refused} request${refused === 1 ? '' : 's'} 401 during the client's run; ${unattributed}; nothing to judge`;
}
