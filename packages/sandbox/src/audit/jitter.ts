// Jitter, where it can be judged (issue 27): one trace cannot show it, several runs of one scenario can. The
// document asks that the delays after a continuing temporary 503 "increase with jitter" (section 7, rule 7;
// section 3: "Keep the same key, increase the delay with jitter, retry later."); a client whose waits after
// the second and later 503s are the same, to the millisecond, in every run has none. Pure, like auditJournal.
import { evidence, isTemporary, seconds, stamp, type Finding } from './audit.ts';
import type { JournalEntry } from './journal.ts';
import { PROVIDER, type AuditRules } from './rules.ts';

/** Per operation, the waits before each retry that followed a temporary status answered to a retry (the increased delays). */
export function increasedDelays(entries: readonly JournalEntry[], rules: AuditRules): { operationId: string; waits: number[]; entries: JournalEntry[] }[] {
  const out = new Map<string, { operationId: string; waits: number[]; entries: JournalEntry[] }>();
  const ordered = [...entries].sort((a, b) => a.at - b.at);
  const last = new Map<string, { entry: JournalEntry; streak: number }>(); // by operation and key
  for (const e of ordered) {
    const op = rules.operations.get(e.operationId);
    if (!op?.temporary || e.idempotencyKey === null) continue;
    const id = `${e.operationId}\n${e.idempotencyKey}`;
    const prev = last.get(id);
    // A wait after the 2nd, 3rd… temporary answer in a row: one the document says increases with jitter.
    if (prev && prev.streak >= 2) {
      const run = out.get(e.operationId) ?? { operationId: e.operationId, waits: [], entries: [] };
      run.waits.push(e.at - prev.entry.at);
      if (run.entries[run.entries.length - 1] !== prev.entry) run.entries.push(prev.entry);
      run.entries.push(e);
      out.set(e.operationId, run);
    }
    last.set(id, { entry: e, streak: isTemporary(e, op, rules) ? (prev?.streak ?? 0) + 1 : 0 });
  }
  return [...out.values()];
}

/**
 * The journals of N runs of one scenario: when N ≥ 2 and every run waited the very same increased delays,
 * a finding (the document's rule) with the sequences as detail and the last run's requests as evidence.
 */
export function auditJitter(journals: readonly (readonly JournalEntry[])[], rules: AuditRules): Finding[] {
  if (journals.length < 2) return [];
  const runs = journals.map((j) => increasedDelays(j, rules));
  const findings: Finding[] = [];
  for (const { operationId, waits, entries } of runs[runs.length - 1]!) {
    if (!waits.length) continue;
    const text = waits.join(',');
    const same = runs.every((r) => r.find((x) => x.operationId === operationId)?.waits.join(',') === text);
    if (!same) continue;
    findings.push(
      stamp({
        kind: 'delays_without_jitter',
        rule: { ...PROVIDER.jitter, spec: `${operationId}: x-retry.temporaryUnavailable.backoff` },
        detail: `${journals.length} runs of the scenario waited exactly the same increased delays (${waits.map(seconds).join(', ')}) after the repeated temporary ${rules.operations.get(operationId)!.temporary!.status}s: no jitter`,
        evidence: entries.map(evidence),
        shouldHave: 'Add a random part to each increased delay (e.g. full jitter: a random wait between the minimum and the doubled delay), so that clients retrying together spread out.',
      }),
    );
  }
  return findings;
}
