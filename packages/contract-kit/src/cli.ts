#!/usr/bin/env node
// The contract kit as a command: parse the options, run, print the summary on stdout (progress on stderr),
// write the JSON/JUnit reports, exit 0 (no failures), 1 (failures) or 2 (usage error).
import { HELP, parseCli } from './args.ts';
import { writeReports } from './report/write.ts';
import { stderrProgress } from './progress.ts';
import { toJson } from './report/json.ts';
import { toJunit } from './report/junit.ts';
import { renderSummary } from './report/summary.ts';
import { CHECKS } from './registry.ts';
import { run, UsageError } from './run.ts';

function listChecks(): string {
  return `${CHECKS.map((c) => `${c.id}\n  ${c.title}\n  needs: ${c.needs.join(', ') || '-'}\n  corresponds to: ${c.corresponds}`).join('\n')}\n`;
}

async function main(argv: string[]): Promise<number> {
  // `client -- <command>`: contract tests of a client (client-mode/), a command of its own.
  if (argv[0] === 'client') return (await import('./client-mode/cli.ts')).clientMain(argv.slice(1));
  // `workflows`: the provider's Arazzo workflows run with Respect (workflows/).
  if (argv[0] === 'workflows') return (await import('./workflows/cli.ts')).workflowsMain(argv.slice(1));
  let parsed;
  try {
    parsed = parseCli(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`contract-kit: ${err.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.listChecks) {
    process.stdout.write(listChecks());
    return 0;
  }
  const { options } = parsed;
  process.stderr.write(`contract-kit: seed ${options.seed} (replay with --seed ${options.seed})\n`);
  let report;
  try {
    report = await run(options, { progress: stderrProgress() });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`contract-kit: ${err.message}\nRun with --help for usage.\n`);
    return 2;
  }
  process.stdout.write(renderSummary(report));
  writeReports(
    [
      [options.json, () => toJson(report)],
      [options.junit, () => toJunit(report)],
    ],
    'contract-kit',
  );
  return report.verdict === 'failed' ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`contract-kit: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
