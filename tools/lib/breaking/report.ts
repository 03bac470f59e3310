// A readable report of a comparison: breaking changes first, each with its pointer (and which document it
// is in), kind, verdict, what changed, where it is reached from, and the rule's reason.
import type { Change } from './compare.ts';

export function formatChanges(changes: Change[]): string {
  if (changes.length === 0) return 'No changes to the contract.';
  const breaking = changes.filter((c) => c.breaking);
  const review = changes.filter((c) => c.review);
  const rest = changes.filter((c) => !c.breaking && !c.review);
  const lines = [`${changes.length} change${changes.length === 1 ? '' : 's'}, ${breaking.length} breaking${review.length ? `, ${review.length} needing review` : ''}:`];
  for (const c of [...breaking, ...review, ...rest]) {
    lines.push('');
    const verdict = c.breaking ? 'BREAKING    ' : c.review ? 'NEEDS REVIEW' : 'non-breaking';
    lines.push(`  ${verdict}  ${c.kind}  ${c.pointer}${c.side === 'old' ? '  (in the old document)' : ''}`);
    lines.push(`      ${c.message}`);
    const where = c.where.length > 4 ? [...c.where.slice(0, 4), `… and ${c.where.length - 4} more`] : c.where;
    lines.push(`      where: ${where.join('; ')}`);
    lines.push(`      why: ${c.why}`);
  }
  return lines.join('\n');
}
