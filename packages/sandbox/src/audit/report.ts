// Findings as text for a person: one block per finding, the rule quoted, the evidence one line a request.
// Rules of the provider's document, the scenario's expectations and the spec's assumptions are labelled
// apart: an assumption's finding says "assumed" and names it.
import { shownKey, type Finding } from './audit.ts';

const BASIS: Record<Finding['basis'], (f: Finding) => string> = {
  document: (f) => `rule (${f.rule.section}): "${f.rule.words}"`,
  scenario: (f) => `the scenario's expectation, not a rule of the provider's document: ${f.rule.words}`,
  assumed: (f) => `ASSUMED, not the provider's rule (warning): "${f.rule.words}"`,
};

export function formatFindings(findings: readonly Finding[]): string {
  if (!findings.length) return 'No findings: the client followed every rule the audit checks.';
  return findings
    .map((f, i) => {
      const lines = [
        `${i + 1}. ${f.severity === 'warning' ? 'warning (assumed) ' : ''}${f.kind}: ${f.detail}`,
        `   ${BASIS[f.basis](f)}${f.rule.spec ? ` [${f.rule.spec}]` : ''}`,
        ...f.evidence.map(
          (e) => `   - ${e.at} ${e.operationId} key=${shownKey(e.idempotencyKey)} → ${e.answered ? `${e.status ?? '-'}${e.code ? ` ${e.code}` : ''}` : 'no answer'}${e.fault ? ` (fault: ${e.fault})` : ''}${e.resourceStatus ? ` (resource ${e.resourceStatus})` : ''}`,
        ),
        `   should have: ${f.shouldHave}`,
      ];
      return lines.join('\n');
    })
    .join('\n\n');
}
