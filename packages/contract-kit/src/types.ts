// The kit's vocabulary: a finding (failure or warning) about one exchange, a check (one JUnit testcase: a
// fast-check property or a probe), and the run's report.

export type Severity = 'failure' | 'warning';

export interface Finding {
  severity: Severity;
  /** What kind of rule: `status`, `content-type`, `body-schema`, `edge-body`, `header`, `valid-rejected`,
   *  `invalid-accepted`, `invalid-error-body`, `server-error`, `auth`, `replay`, `conflict`, `concurrent-key`,
   *  `link`, `read-back`, `isolation`, `cors`, `provider-state`, `unique`, `rate-limit`, `no-response`, `skipped`,
   *  `not-applicable`, `inconclusive` (a documented 503 or the edge's 502/504: the outcome was not checked; a
   *  failure under --strict-503), `rate-limited` (a 429 the run ran into), `prism`, `error-code` (a code at
   *  another status than the catalog's, or not the broken constraint's), `generator`, `kit-error`. */
  rule: string;
  message: string;
  /** The x-assumed-reason when the finding is a warning because the spec only assumed the thing. */
  assumedReason?: string;
  /** Copy-paste reproduction (the API key as $API_KEY). */
  curl?: string;
}

export type CheckStatus = 'passed' | 'failed' | 'skipped';

export interface CheckResult {
  /** Stable id, e.g. `createTransfer/valid`. */
  id: string;
  /** The operation the check is about. */
  operationId: string;
  /** Readable name, e.g. `valid requests are accepted`. */
  name: string;
  status: CheckStatus;
  requests: number;
  /** How many responses had each status (`none` = no response). */
  statuses: Record<string, number>;
  durationMs: number;
  failures: Finding[];
  /** Warnings, deduplicated (`count` = how many exchanges raised the same warning). */
  warnings: (Finding & { count: number })[];
  /** How many answers were inconclusive: a documented 503 (or the edge's 502/504) where the kit cannot tell a
   *  transient outage from a server bug. Warnings, or failures under --strict-503; counted either way. */
  inconclusive: number;
  /** For a failed property: the shrunk counterexample as curl, and what fast-check did. */
  counterexample?: { curl: string; status: number | null; body: string; numRuns: number; numShrinks: number };
}

export interface RunOptions {
  baseUrl: string;
  apiKey: string;
  adminToken?: string | undefined;
  /** A key of a second organization (same products): the isolation check without the admin API. */
  otherApiKey?: string | undefined;
  seed: number;
  /** Generated requests per property (valid / invalid) and operation. */
  runs: number;
  /** Operation ids to check; all when empty. */
  operations: string[];
  /** Per-request timeout. */
  timeoutMs: number;
  /** `auto` detects Prism's stateless mock (it honours `Prefer: code=`). */
  target: 'auto' | 'prism' | 'server';
  /** Inconclusive answers (documented 503s, the edge's 502/504) are failures, not warnings. */
  strict503?: boolean;
  /** Check ids to run (all when empty or absent) and to leave out (see registry.ts). */
  checks?: string[];
  excludeChecks?: string[];
  /** A skipped check (it ran but could not establish its outcome: a 429, a failed setup) does not fail the run. */
  allowSkips?: boolean;
  /** Pacing without --admin-token: the longest the run may wait in total for the rate limit's window
   *  (default 900 s); past it, requests are sent anyway and their 429s reported. */
  maxWaitS?: number;
}

export interface Report {
  tool: string;
  baseUrl: string;
  target: 'prism' | 'server';
  seed: number;
  runs: number;
  /** Whether inconclusive answers were failures (--strict-503). */
  strict503: boolean;
  operations: string[];
  startedAt: string;
  durationMs: number;
  totals: { checks: number; passed: number; failed: number; skipped: number; warnings: number; inconclusive: number; requests: number };
  checks: CheckResult[];
  notes: string[];
  /** Checks that apply to an operation but need a capability the target lacks, with the reason. */
  notApplicable: { check: string; operationId: string; reason: string }[];
  /** Per operation and documented status: how often it was answered, and its codes. */
  coverage: import('./coverage.ts').CoverageRow[];
  /** Statuses and codes the provider's document states that no answer of the run showed. */
  unexercised: string[];
  /** Statuses and codes only the spec assumes (x-assumed: the 401, 413, 429, invalid_request…) never shown. */
  unexercisedAssumed?: string[];
  /** Rate-limit pacing: keys used, time waited, requests sent over budget; and 429 answers. */
  pacing: import('./pacing.ts').PacingStats & { rateLimited: number };
  /** Whether skipped checks were allowed (--allow-skips). */
  allowSkips: boolean;
  /** The exit verdict: failed checks, or skipped ones without --allow-skips. */
  verdict: 'passed' | 'failed';
}
