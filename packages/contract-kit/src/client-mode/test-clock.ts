// With --test-clock the kit freezes the organization's clock and the audit reads every wait on it: a client
// is to sleep by advancing that clock. A client that sleeps in real time instead (Thread.sleep, time.sleep)
// leaves the clock where it was frozen, and every one of its retries then looks as if it came at once: its
// waits were not seen, which is not the same as not made (QA: a Java client that waited 61.7 s was told it
// sent again "0.0 s" after a 503). So when the clock never moved, the waits are not judged: the scenario says
// why, and how to run it so they are.
import type { Finding, FindingKind } from '@payments/sandbox';

/** The audit's findings that read the time between requests. */
const WAIT_KINDS: ReadonlySet<FindingKind> = new Set<FindingKind>(['retry_before_minimum_delay', 'retry_before_retry_after', 'delays_not_growing', 'delays_without_jitter']);

export const isWaitFinding = (f: Finding): boolean => WAIT_KINDS.has(f.kind);

/**
 * The findings with those about waits taken out when the frozen clock never moved, and why they were (the
 * scenario's error: it fails, so a client that did not wait at all does not pass either).
 */
export function waitsOnAStillClock(findings: readonly Finding[], clock: { frozenAtMs: number; nowMs: number | undefined; clientRanMs: number }): { findings: Finding[]; error?: string } {
  const waits = findings.filter(isWaitFinding);
  if (!waits.length || clock.nowMs !== clock.frozenAtMs) return { findings: [...findings] };
  return {
    findings: findings.filter((f) => !isWaitFinding(f)),
    error:
      `its waits could not be judged (${waits.map((f) => f.kind).join(', ')}): with --test-clock the organization's clock is frozen and every wait is read on it, ` +
      `and it never moved during the client's ${(clock.clientRanMs / 1000).toFixed(1)} s run: the client slept in real time, or not at all. ` +
      'Sleep by advancing the clock (POST $SANDBOX_URL/admin/organizations/$PAYMENTS_ORGANIZATION_ID/clock/advance, {"milliseconds": N}, header authorization: Bearer $SANDBOX_ADMIN_TOKEN), ' +
      'or run without --test-clock to have real-time waits judged (give --timeout-ms room for them).',
  };
}
