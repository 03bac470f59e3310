// What a scenario asks beyond the provider's rules (issue 27), each reported as the scenario's expectation
// (basis `scenario`), labelled as such:
// - the one payment it asks for is ONE resource: a second one under a new key is `second_resource`. The
//   document has no such rule for cards, products or sessions (two identical cards may be meant), nor for a
//   second transfer (two invoices of one amount are two payments); it has one only after the outcome table's
//   201 that resolved a temporary 503, judged by the audit as `duplicate_payment` and not reported twice;
// - the client goes on until the scenario's answer: one that stops while its payment is open (an unknown
//   outcome, a wait to sit out) is `stopped_before_resolution`, naming the answer it never asked for (a real
//   client may retry in a later run; the scenario held the answer for this one). Stopping after a definite
//   answer or a pending review is right, whatever the exit code;
// - it ends by itself: one the kit had to stop (--timeout-ms) is `client_timed_out`, always a failure.
import { evidence, openEnd, stamp, type AuditRules, type Finding, type JournalEntry } from '@payments/sandbox';
import type { Driven } from './run.ts';
import type { Scenario } from './scenarios.ts';

export function scenarioExpectations(scenario: Scenario, entries: readonly JournalEntry[], rules: AuditRules, driven: Driven, judged: readonly Finding[]): Finding[] {
  return [...secondResource(scenario, entries, judged), ...stoppedEarly(scenario, entries, rules, driven)];
}

const asExpected = (scenario: Scenario, words: string): Finding['rule'] => ({ section: `scenario ${scenario.name}`, words });

function secondResource(scenario: Scenario, entries: readonly JournalEntry[], judged: readonly Finding[]): Finding[] {
  if (judged.some((f) => f.kind === 'duplicate_payment')) return [];
  const created = new Map<string, JournalEntry>(); // the first success under each key: one resource per key
  for (const e of [...entries].sort((a, b) => a.at - b.at)) {
    if (e.operationId !== scenario.operation || e.idempotencyKey === null || !e.answered || e.status === null || e.status >= 300) continue;
    // A transfer answered failed/cancelled closed its attempt: a new attempt under a new key is right (section 3).
    if (e.resourceStatus === 'failed' || e.resourceStatus === 'cancelled') continue;
    if (!created.has(e.idempotencyKey)) created.set(e.idempotencyKey, e);
  }
  if (created.size < 2) return [];
  const made = [...created.values()];
  return [
    stamp({
      kind: 'second_resource',
      basis: 'scenario',
      rule: asExpected(scenario, `the scenario asks for one ${scenario.operation} (PAYMENTS_OPERATION: the one payment to make); ${made.length} were created, one under each key`),
      detail: `${made.length} successful ${scenario.operation} requests under ${made.length} keys (${made.map((e) => JSON.stringify(e.idempotencyKey)).join(', ')}): ${made.length} resources for the one asked`,
      evidence: made.map(evidence),
      shouldHave: `Keep the first key ${JSON.stringify(made[0]!.idempotencyKey)}: its ${made[0]!.status} created the resource; repeat only with that key.`,
    }),
  ];
}

function stoppedEarly(scenario: Scenario, entries: readonly JournalEntry[], rules: AuditRules, driven: Driven): Finding[] {
  const open = openEnd(entries, scenario.operation, rules);
  const left = open ? `, its payment left open after ${open.answer} under key ${JSON.stringify(open.entry.idempotencyKey)}` : '';
  if (driven.stoppedAfterMs !== undefined) {
    return [
      stamp({
        kind: 'client_timed_out',
        basis: 'scenario',
        rule: asExpected(scenario, 'the client ends by itself within the time limit (--timeout-ms)'),
        detail: `the kit stopped the client after ${driven.stoppedAfterMs} ms: it had not ended${left}`,
        evidence: open ? [evidence(open.entry)] : [],
        shouldHave:
          'End within --timeout-ms. With --test-clock, sleep by advancing the organization\'s clock (POST $SANDBOX_URL/admin/organizations/$PAYMENTS_ORGANIZATION_ID/clock/advance, {"milliseconds": N}, header authorization: Bearer $SANDBOX_ADMIN_TOKEN), not in real time; on real time, give --timeout-ms room for the waits the scenario needs.',
      }),
    ];
  }
  if (!open || !scenario.retryAnswer) return [];
  return [
    stamp({
      kind: 'stopped_before_resolution',
      basis: 'scenario',
      rule: asExpected(scenario, scenario.expected),
      detail: `the client stopped (exit code ${driven.exitCode})${left}: it never asked for ${scenario.retryAnswer}`,
      evidence: [evidence(open.entry)],
      shouldHave: `Retry with the same key ${JSON.stringify(open.entry.idempotencyKey)} until an answer says what happened (${open.rule.section}: "${open.rule.words}"). The scenario held ${scenario.retryAnswer}.`,
    }),
  ];
}
