// node tools/launch.mjs optic-table: writes the Optic comparison (tools/lib/breaking/optic-comparison.md and
// the README's disagreement table) from the recorded verdicts of test/breaking/fixtures/pairs. Run it after
// recording a new pair; test/breaking/optic.test.ts fails when the documents and the records differ.
import { writeFileSync } from 'node:fs';
import { comparisonTable, disagreementTable, readPairs } from '../lib/breaking/optic-pairs.ts';
import { comparisonDoc, comparisonDocText, readmePath, readmeWithDisagreements, readReadme } from '../lib/breaking/optic-doc.ts';
import { log, main } from '../lib/steps.ts';

await main(async () => {
  const pairs = readPairs();
  const disagreements = pairs.filter((p) => p.recorded.ours !== p.recorded.optic).length;
  writeFileSync(comparisonDoc, comparisonDocText(comparisonTable(pairs), pairs.length, disagreements));
  writeFileSync(readmePath, readmeWithDisagreements(readReadme(), disagreementTable(pairs)));
  log(`${pairs.length} pairs, ${disagreements} disagreements: wrote ${comparisonDoc} and the README's table`);
});
