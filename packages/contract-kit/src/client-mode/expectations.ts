// What a scenario asks beyond the provider's rules (issue 27): the one payment it asks for is ONE resource.
// For a transfer the document itself says so (section 3, judged by the audit as `duplicate_payment`); for a
// card, a product or a session the document has no such rule (two identical cards may be meant), so a second
// one under a new key is reported as the scenario's expectation, labelled as such.
import { evidence, stamp, type AuditRules, type Finding, type JournalEntry } from '@payments/sandbox';
import type { Scenario } from './scenarios.ts';

export function scenarioExpectations(scenario: Scenario, entries: readonly JournalEntry[], rules: AuditRules): Finding[] {
  const op = rules.operations.get(scenario.operation);
  // The operation the outcome table is about (it answers pending review) is judged by the document's rule.
  if (!op || op.codes.has(rules.pendingReviewCode)) return [];
  const created = new Map<string, JournalEntry>(); // the first success under each key: one resource per key
  for (const e of [...entries].sort((a, b) => a.at - b.at)) {
    if (e.operationId !== scenario.operation || e.idempotencyKey === null || !e.answered || e.status === null || e.status >= 300) continue;
    if (!created.has(e.idempotencyKey)) created.set(e.idempotencyKey, e);
  }
  if (created.size < 2) return [];
  const made = [...created.values()];
  return [
    stamp({
      kind: 'second_resource',
      basis: 'scenario',
      rule: { section: `scenario ${scenario.name}`, words: `the scenario asks for one ${scenario.operation} (PAYMENTS_OPERATION: the one payment to make); ${made.length} were created, one under each key` },
      detail: `${made.length} successful ${scenario.operation} requests under ${made.length} keys (${made.map((e) => JSON.stringify(e.idempotencyKey)).join(', ')}): ${made.length} resources for the one asked`,
      evidence: made.map(evidence),
      shouldHave: `Keep the first key ${JSON.stringify(made[0]!.idempotencyKey)}: its ${made[0]!.status} created the resource; repeat only with that key.`,
    }),
  ];
}
