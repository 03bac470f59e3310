// The kit's power, measured: every mutant of test/mutants/registry.ts (the real sandbox with one injected
// defect) is run against the kit at default settings (--runs 25, --admin-token) on several seeds, and the
// unmodified sandbox too. Prints the table (mutant | caught by | seeds), the score per seed (of the mutants the
// spec makes visible), the kit's requests per second and the time of a default run.
//
//   node packages/contract-kit/bench/mutation-score.ts [--seeds 1,2,3,4,5] [--mutants a,b] [--json FILE]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_RUNS } from '../src/args.ts';
import { run } from '../src/run.ts';
import type { Report } from '../src/types.ts';
import { startMutant, type Mutant } from '../test/mutants/proxy.ts';
import { MUTANTS } from '../test/mutants/registry.ts';

export interface Outcome {
  mutant: string;
  seed: number;
  caught: boolean;
  caughtBy: string[];
  requests: number;
  durationMs: number;
}

/** One kit run at default settings against the mutant (undefined: the unmodified sandbox). */
export async function runAgainst(mutant: Mutant | undefined, seed: number, runs = DEFAULT_RUNS): Promise<{ outcome: Outcome; report: Report }> {
  const server = await startMutant(mutant);
  try {
    const started = performance.now();
    const report = await run({ baseUrl: server.url, apiKey: 'svc_live_unused_the_kit_provisions_its_own', adminToken: server.adminToken, seed, runs, operations: [], timeoutMs: 10_000, target: 'auto' });
    // Caught: the run does not pass. A failed check names the defect; a skipped one (it could not establish
    // what it checks, e.g. every answer was a 503) fails the run too, and is listed as such.
    if (server.errors.length > 0) throw new Error(`mutant ${mutant?.name} crashed: ${server.errors[0]}`);
    const caughtBy = [
      ...report.checks.filter((c) => c.status === 'failed').map((c) => c.id),
      ...report.checks.filter((c) => c.status === 'skipped').map((c) => `${c.id} (skipped)`),
    ];
    return {
      outcome: { mutant: mutant?.name ?? '(none)', seed, caught: report.verdict === 'failed', caughtBy, requests: report.totals.requests, durationMs: Math.round(performance.now() - started) },
      report,
    };
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  let values: { seeds?: string; mutants?: string; json?: string };
  try {
    ({ values } = parseArgs({ options: { seeds: { type: 'string' }, mutants: { type: 'string' }, json: { type: 'string' } } }));
  } catch (err) {
    // --help, or an option it does not know: the usage, not a stack trace (new-contributor QA).
    const help = process.argv.slice(2).some((a) => a === '--help' || a === '-h');
    (help ? process.stdout : process.stderr).write(`${help ? '' : `${(err as Error).message}\n`}usage: node tools/launch.mjs packages/contract-kit/bench/mutation-score.ts [--seeds 1,2,3,4,5] [--mutants a,b] [--json FILE]\n`);
    process.exit(help ? 0 : 2);
  }
  const seeds = (values.seeds ?? '1,2,3,4,5').split(',').map(Number);
  const wanted = values.mutants?.split(',');
  const mutants = MUTANTS.filter((m) => !wanted || wanted.includes(m.name));
  const outcomes: Outcome[] = [];
  const baseline: Outcome[] = [];
  for (const seed of seeds) {
    const { outcome, report } = await runAgainst(undefined, seed);
    baseline.push(outcome);
    if (report.verdict !== 'passed') process.stderr.write(`UNMODIFIED SANDBOX FAILED on seed ${seed}: ${report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.failures.map((f) => f.message).join(' | ')}`).join('\n')}\n`);
    for (const mutant of mutants) {
      const result = await runAgainst(mutant, seed);
      outcomes.push(result.outcome);
      process.stderr.write(`seed ${seed} ${mutant.name}: ${result.outcome.caught ? `caught by ${result.outcome.caughtBy.join(', ')}` : 'NOT CAUGHT'}\n`);
    }
  }
  const lines = ['| mutant | visible | caught by | seeds caught |', '|---|---|---|---|'];
  for (const m of mutants) {
    const mine = outcomes.filter((o) => o.mutant === m.name);
    const by = [...new Set(mine.flatMap((o) => o.caughtBy))];
    lines.push(`| \`${m.name}\`: ${m.defect} | ${m.visible === true ? 'yes' : `no: ${m.visible.no}`} | ${by.map((b) => `\`${b}\``).join(', ') || '—'} | ${mine.filter((o) => o.caught).length}/${mine.length} |`);
  }
  lines.push('', '| seed | visible mutants caught | score | unmodified sandbox | requests | run time | requests/s |', '|---|---|---|---|---|---|---|');
  const visible = mutants.filter((m) => m.visible === true).map((m) => m.name);
  for (const seed of seeds) {
    const caught = outcomes.filter((o) => o.seed === seed && visible.includes(o.mutant) && o.caught).length;
    const base = baseline.find((o) => o.seed === seed)!;
    lines.push(`| ${seed} | ${caught}/${visible.length} | ${((100 * caught) / Math.max(1, visible.length)).toFixed(1)}% | ${base.caught ? `FAILED (${base.caughtBy.join(', ')})` : 'passed'} | ${base.requests} | ${(base.durationMs / 1000).toFixed(1)} s | ${Math.round(base.requests / (base.durationMs / 1000))} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ outcomes, baseline }, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
