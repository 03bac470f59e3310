// The Optic comparison, as documents: tools/lib/breaking/optic-comparison.md (every pair) and the README's
// section of disagreements, both written from the recorded verdicts of test/breaking/fixtures/pairs by
// `node tools/launch.mjs optic-table`, and checked against them by test/breaking/optic.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../paths.ts';

export const comparisonDoc = join(root, 'tools', 'lib', 'breaking', 'optic-comparison.md');
export const readmePath = join(root, 'README.md');
const START = '<!-- optic-disagreements:start (written by `node tools/launch.mjs optic-table`) -->';
const END = '<!-- optic-disagreements:end -->';

export function comparisonDocText(fullTable: string, pairCount: number, disagreements: number): string {
  return `# Our breaking-change gate measured against Optic

${pairCount} fixture pairs (\`test/breaking/fixtures/pairs/<pair>/old.yaml\` → \`new.yaml\`), each with the
recorded verdicts in \`verdicts.yaml\`. \`test/breaking/optic.test.ts\` runs \`optic diff old.yaml new.yaml --check\`
(\`@useoptic/optic\` 1.0.9, installed in \`tools/interop/optic\`, its built-in breaking-change checks: no
\`optic.dev.yml\` standard) and our comparer on every pair and fails when
either tool's verdict differs from the record. They disagree on ${disagreements} pairs; each disagreement carries the
reason ours is right.

Verdicts: **breaking** (Optic: a failed check, exit 1; ours: needs a major release), **not breaking**,
**needs review** (ours only: passes once a changeset acknowledges the pointer, see \`.changeset/README.md\`).
This file is written by \`node tools/launch.mjs optic-table\`; do not edit it by hand.

${fullTable}
`;
}

/** The README with its disagreement section replaced; throws when the markers are missing. */
export function readmeWithDisagreements(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}

export const readReadme = () => readFileSync(readmePath, 'utf8');
