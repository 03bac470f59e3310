// The fixture pairs measured against Optic (test/breaking/fixtures/pairs/<name>/): old.yaml and new.yaml, two
// small OpenAPI 3.1 documents differing by one kind of change, and verdicts.yaml beside them, the recorded
// verdicts of both tools and, where they differ, why ours is right. Read by test/breaking/optic.test.ts and
// by tools/tasks/optic-table.ts (which writes the comparison documents).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { root } from '../paths.ts';
import { compareDocuments, type Change } from './compare.ts';
import type { JsonObject } from './json.ts';

export const pairsDir = join(root, 'test', 'breaking', 'fixtures', 'pairs');

/** What a tool says about a pair: would its CI check fail? (Ours: a change needing review fails until acknowledged.) */
export type Verdict = 'breaking' | 'not breaking' | 'needs review';

export interface Recorded {
  change: string;
  /** The rules our gate reports, in its order. */
  rules: string[];
  ours: Verdict;
  optic: Verdict;
  /** The Optic checks that failed, by name. */
  opticChecks?: string[];
  /** Where the verdicts differ: why ours is right. */
  whyOursIsRight?: string;
}

export interface Pair {
  name: string;
  dir: string;
  old: JsonObject;
  new: JsonObject;
  recorded: Recorded;
}

export function readPairs(): Pair[] {
  return readdirSync(pairsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const dir = join(pairsDir, name);
      const read = (file: string) => parse(readFileSync(join(dir, file), 'utf8'));
      return { name, dir, old: read('old.yaml'), new: read('new.yaml'), recorded: read('verdicts.yaml') as Recorded };
    });
}

export function ourVerdict(changes: Change[]): Verdict {
  if (changes.some((c) => c.breaking)) return 'breaking';
  if (changes.some((c) => c.review)) return 'needs review';
  return 'not breaking';
}

export function ours(pair: Pick<Pair, 'old' | 'new'>): { verdict: Verdict; rules: string[] } {
  const changes = compareDocuments(pair.old, pair.new);
  return { verdict: ourVerdict(changes), rules: changes.map((c) => c.kind) };
}

/**
 * `optic diff old.yaml new.yaml --check` on a copy of the pair (Optic writes ci-run-details.json beside the
 * specs when CI is set): exit 1 = a failed (breaking-change) check.
 */
export function optic(opticBin: string, dir: string): Promise<{ verdict: Verdict; checks: string[]; output: string }> {
  const work = mkdtempSync(join(tmpdir(), 'optic-pair-'));
  for (const file of ['old.yaml', 'new.yaml']) copyFileSync(join(dir, file), join(work, file));
  return new Promise<{ verdict: Verdict; checks: string[]; output: string }>((resolve, reject) => {
    const env = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off' };
    execFile(join(opticBin, 'optic'), ['diff', 'old.yaml', 'new.yaml', '--check'], { cwd: work, encoding: 'utf8', timeout: 120_000, env }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const status = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      if (status !== 0 && status !== 1) return reject(new Error(`optic failed in ${dir} (${err?.message}):\n${output}`));
      const checks = [...new Set([...output.matchAll(/^\s*x \[([^\]]+)\]/gm)].map((m) => m[1] as string))];
      resolve({ verdict: status === 1 ? 'breaking' : 'not breaking', checks, output });
    });
  }).finally(() => rmSync(work, { recursive: true, force: true }));
}

/** Runs `task` over `items`, at most `limit` at a time (the machine has 2 cores). */
export async function mapLimit<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown table of every pair: both verdicts, and ours' reason where they differ. */
export function comparisonTable(pairs: Pair[]): string {
  const rows = pairs.map(({ name, recorded: r }) => `| \`${name}\` | ${cell(r.change)} | ${r.ours} | ${r.optic} | ${r.ours === r.optic ? '' : cell(r.whyOursIsRight ?? '')} |`);
  return ['| pair | change | ours | Optic 1.0.9 | why ours is right (where they differ) |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The table of the disagreements only. */
export function disagreementTable(pairs: Pair[]): string {
  const rows = pairs
    .filter((p) => p.recorded.ours !== p.recorded.optic)
    .map(({ name, recorded: r }) => `| ${cell(r.change)} (\`${name}\`) | ${r.ours} | ${r.optic} | ${cell(r.whyOursIsRight ?? '')} |`);
  return ['| change (pair) | ours | Optic 1.0.9 | why ours is right |', '|---|---|---|---|', ...rows].join('\n');
}
