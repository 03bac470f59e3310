// Building a CheckResult: findings collected per exchange, warnings deduplicated, status derived.
import { INCONCLUSIVE, RATE_LIMITED } from './checks/expectations.ts';
import type { CheckResult, Finding } from './types.ts';

/** The statuses an answer is inconclusive with when its operation documents them (a temporary outage). */
const TEMPORARY = new Set([502, 503, 504]);

export class CheckRecorder {
  readonly id: string;
  readonly operationId: string;
  readonly name: string;
  requests = 0;
  readonly #statuses: Record<string, number> = {};
  readonly failures: Finding[] = [];
  readonly #warnings = new Map<string, Finding & { count: number }>();
  readonly #started = performance.now();
  #skipped = false;
  /** Requests of the check's own operation (its set-up requests left out), and those answered other than 502/503/504. */
  #ownRequests = 0;
  #ownAnswered = 0;
  counterexample: CheckResult['counterexample'];

  constructor(operationId: string, slug: string, name: string) {
    this.id = `${operationId}/${slug}`;
    this.operationId = operationId;
    this.name = name;
  }

  /**
   * One request sent and what came back (a status, or undefined for no response). `operationId`: the request's
   * operation when it is another one's, a set-up request (a transfer made for getTransfer to read).
   */
  sent(status: number | undefined, operationId: string = this.operationId): void {
    this.requests++;
    if (operationId === this.operationId) {
      this.#ownRequests++;
      // A 502/503/504 is inconclusive where documented, else a failure of its own: either way not an answer that checked something.
      if (status !== undefined && !TEMPORARY.has(status)) this.#ownAnswered++;
    }
    const key = status === undefined ? 'none' : String(status);
    this.#statuses[key] = (this.#statuses[key] ?? 0) + 1;
  }

  add(findings: Finding[]): void {
    for (const f of findings) {
      if (f.severity !== 'failure') this.warn(f);
      else if (!this.failures.some((seen) => seen.rule === f.rule && seen.message === f.message)) this.failures.push(f);
    }
  }

  warn(finding: Omit<Finding, 'severity'> & { severity?: Finding['severity'] }): void {
    const key = `${finding.rule}|${finding.assumedReason ?? ''}|${dedupKey(finding.message)}`;
    const seen = this.#warnings.get(key);
    if (seen) seen.count++;
    else this.#warnings.set(key, { ...finding, severity: 'warning', count: 1 });
  }

  /** Skipped with a warning saying why: never silently. */
  skip(message: string): void {
    this.#skipped = true;
    this.warn({ rule: 'skipped', message });
  }

  result(): CheckResult {
    // A 429 leaves its request unchecked: a check that met one did not establish what it claims.
    const throttled = [...this.#warnings.values()].filter((w) => w.rule === RATE_LIMITED).reduce((n, w) => n + w.count, 0);
    if (throttled > 0 && !this.#skipped) this.skip(`${throttled} of ${this.requests} answers were 429 (rate limited): those requests were not checked`);
    // Every answer of the operation inconclusive (a documented 503, the edge's 502/504): the check established
    // nothing, whatever its set-up requests got (QA: 25 answers of getTransfer, all 503, and two set-up 201s
    // passed); a set-up request's 503 alone does not make it so.
    const unknown = [...this.#warnings.values()].filter((w) => w.rule === INCONCLUSIVE).reduce((n, w) => n + w.count, 0);
    if (this.#ownRequests > 0 && this.#ownAnswered === 0 && unknown > 0 && this.failures.length === 0 && !this.#skipped) this.skip(`every answer (${this.#ownRequests}) was inconclusive: nothing was checked`);
    const status = this.failures.length > 0 ? 'failed' : this.#skipped ? 'skipped' : 'passed';
    return {
      id: this.id,
      operationId: this.operationId,
      name: this.name,
      status,
      requests: this.requests,
      statuses: this.#statuses,
      durationMs: Math.round(performance.now() - this.#started),
      failures: this.failures,
      warnings: [...this.#warnings.values()],
      inconclusive: [...this.#warnings.values()].filter((w) => w.rule === INCONCLUSIVE).reduce((n, w) => n + w.count, 0),
      ...(this.counterexample ? { counterexample: this.counterexample } : {}),
    };
  }
}

/** Warnings that differ only in values (amounts, body snippets, ids) count as one. */
function dedupKey(message: string): string {
  return message
    .replace(/; body .*$/, '')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+(?:\.\d+)?/g, 'N');
}
