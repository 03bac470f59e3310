// Our breaking-change gate measured against Optic (issue 14): every fixture pair under fixtures/pairs is run
// through `optic diff old.yaml new.yaml --check` (@useoptic/optic 1.0.9, tools/interop/optic) and through our
// comparer; both verdicts must equal the ones recorded beside the pair, every disagreement must say why ours
// is right, and the comparison documents (tools/lib/breaking/optic-comparison.md, the README) must match the
// records. A change in either tool's behaviour fails here and is re-recorded on purpose.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { comparisonDoc, comparisonDocText, readmeWithDisagreements, readReadme } from '../../tools/lib/breaking/optic-doc.ts';
import { comparisonTable, disagreementTable, mapLimit, optic, ours, readPairs, type Verdict } from '../../tools/lib/breaking/optic-pairs.ts';
import { CHANGE_KINDS, RULES } from '../../tools/lib/breaking/rules.ts';
import { ensureInteropTool } from '../../tools/lib/interop.ts';

const pairs = readPairs();
const opticVerdicts = new Map<string, { verdict: Verdict; checks: string[]; output: string }>();

beforeAll(async () => {
  const bin = ensureInteropTool('optic');
  const results = await mapLimit(pairs, 2, (pair) => optic(bin, pair.dir));
  pairs.forEach((pair, i) => opticVerdicts.set(pair.name, results[i]!));
}, 900_000);

describe('the gate measured against Optic', () => {
  it('has at least 30 pairs, covering every rule of rules.ts', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(30);
    const covered = new Set(pairs.flatMap((p) => p.recorded.rules));
    expect(CHANGE_KINDS.filter((kind) => !covered.has(kind))).toEqual([]);
  });

  for (const pair of pairs) {
    it(`${pair.name}: ${pair.recorded.change}`, () => {
      const mine = ours(pair);
      expect(mine.rules, 'our rules').toEqual(pair.recorded.rules);
      expect(mine.verdict, 'our verdict').toBe(pair.recorded.ours);
      const expectedOurs = mine.rules.some((k) => RULES[k as keyof typeof RULES].breaking) ? 'breaking' : mine.rules.some((k) => 'review' in RULES[k as keyof typeof RULES]) ? 'needs review' : 'not breaking';
      expect(mine.verdict).toBe(expectedOurs);

      const theirs = opticVerdicts.get(pair.name)!;
      expect(theirs.verdict, `Optic's verdict; its output:\n${theirs.output}`).toBe(pair.recorded.optic);
      expect(theirs.checks, "Optic's failed checks").toEqual(pair.recorded.opticChecks ?? []);

      if (pair.recorded.ours === pair.recorded.optic) expect(pair.recorded.whyOursIsRight).toBeUndefined();
      else expect(pair.recorded.whyOursIsRight?.length ?? 0, 'a disagreement needs its reason').toBeGreaterThan(40);
    });
  }

  it('documents the comparison as recorded (node tools/launch.mjs optic-table rewrites both)', () => {
    const disagreements = pairs.filter((p) => p.recorded.ours !== p.recorded.optic).length;
    expect(readFileSync(comparisonDoc, 'utf8')).toBe(comparisonDocText(comparisonTable(pairs), pairs.length, disagreements));
    const readme = readReadme();
    expect(readmeWithDisagreements(readme, disagreementTable(pairs))).toBe(readme);
  });
});
