// Findings as text for a person: one block per finding, the rule quoted, the evidence one line a request.
import type { Finding } from './audit.ts';

export function formatFindings(findings: readonly Finding[]): string {
  if (!findings.length) return 'No findings: the client followed every rule the audit checks.';
  return findings
    .map((f, i) => {
      const lines = [
        `${i + 1}. ${f.kind}: ${f.detail}`,
        `   rule (${f.rule.section}): "${f.rule.words}"${f.rule.spec ? ` [${f.rule.spec}]` : ''}`,
        ...f.evidence.map(
          (e) => `   - ${e.at} ${e.operationId} key=${JSON.stringify(e.idempotencyKey)} → ${e.answered ? `${e.status ?? '-'}${e.code ? ` ${e.code}` : ''}` : 'no answer'}${e.fault ? ` (fault: ${e.fault})` : ''}`,
        ),
        `   should have: ${f.shouldHave}`,
      ];
      return lines.join('\n');
    })
    .join('\n\n');
}
