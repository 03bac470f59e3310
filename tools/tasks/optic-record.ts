// node tools/launch.mjs optic-record: re-records the verdicts of every fixture pair (test/breaking/fixtures/
// pairs/<pair>/verdicts.yaml) by running Optic and our comparer, keeping each pair's `change` and the reasons
// already written; a new disagreement gets `whyOursIsRight: TODO`, which test/breaking/optic.test.ts rejects
// until a person writes why ours is right (or fixes our rule). Then writes the comparison documents.
// To add a pair: create <pair>/old.yaml, new.yaml and a verdicts.yaml with `change: <what changed>`, run this.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { mapLimit, optic, ours, pairsDir, readPairs } from '../lib/breaking/optic-pairs.ts';
import { ensureInteropTool } from '../lib/interop.ts';
import { log, main } from '../lib/steps.ts';

await main(async () => {
  const bin = ensureInteropTool('optic');
  const pairs = readPairs();
  const theirs = await mapLimit(pairs, 2, (pair) => optic(bin, pair.dir));
  pairs.forEach((pair, i) => {
    const previous = parse(readFileSync(join(pair.dir, 'verdicts.yaml'), 'utf8')) as { change: string; whyOursIsRight?: string };
    const mine = ours(pair);
    const record: Record<string, unknown> = { change: previous.change, rules: mine.rules, ours: mine.verdict, optic: theirs[i]!.verdict };
    if (theirs[i]!.checks.length) record.opticChecks = theirs[i]!.checks;
    if (mine.verdict !== theirs[i]!.verdict) record.whyOursIsRight = previous.whyOursIsRight ?? 'TODO';
    const header = '# Recorded verdicts of the pair (test/breaking/optic.test.ts checks both tools still give them;\n# `node tools/launch.mjs optic-record` re-records them).\n';
    writeFileSync(join(pair.dir, 'verdicts.yaml'), header + stringify(record, { lineWidth: 110 }));
    if (record.whyOursIsRight === 'TODO') log(`${pair.name}: a new disagreement (ours ${mine.verdict}, Optic ${theirs[i]!.verdict}): write whyOursIsRight`);
  });
  log(`recorded ${pairs.length} pairs in ${pairsDir}; now run: node tools/launch.mjs optic-table`);
});
