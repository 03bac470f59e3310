#!/usr/bin/env node
// The contract kit as a command: parse the options, run, print the summary on stdout (progress on stderr),
// write the JSON/JUnit reports, exit 0 (no failures), 1 (failures) or 2 (usage error).
import { readFileSync } from 'node:fs';
import { HELP, parseCli } from './args.ts';
import { unwritableReport, writeReports } from './report/write.ts';
import { stderrProgress, type Progress } from './progress.ts';
import { toJson } from './report/json.ts';
import { toJunit } from './report/junit.ts';
import { renderSummary } from './report/summary.ts';
import { CHECKS } from './registry.ts';
import { run, UsageError } from './run.ts';

function listChecks(): string {
  return `${CHECKS.map((c) => `${c.id}\n  ${c.title}\n  needs: ${c.needs.join(', ') || '-'}\n  corresponds to: ${c.corresponds}`).join('\n')}\n`;
}

/**
 * Subcommands: `payments-contract-kit <name> …`, each a module loaded only when named (client mode starts a
 * sandbox; the server checks against --base-url load none of it). Add one here.
 */
const SUBCOMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  // `client -- <command>`: contract tests of a client (client-mode/).
  client: async (argv) => (await import('./client-mode/cli.ts')).clientMain(argv),
  // `workflows`: the provider's Arazzo workflows run with Respect (workflows/).
  workflows: async (argv) => (await import('./workflows/cli.ts')).workflowsMain(argv),
};

async function main(argv: string[]): Promise<number> {
  const subcommand = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined;
  if (subcommand) return subcommand(argv.slice(1));
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`${version}\n`);
    return 0;
  }
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
  const unwritable = unwritableReport([['--json', options.json], ['--junit', options.junit]]);
  if (unwritable) {
    process.stderr.write(`contract-kit: ${unwritable}; nothing was run.\nRun with --help for usage.\n`);
    return 2;
  }
  const shown = stderrProgress();
  // The seed once the checks begin: a usage error met while setting up (an unknown check, a refused key) ran nothing to replay.
  const progress: Progress = { ...shown, begin: (total) => (process.stderr.write(`contract-kit: seed ${options.seed} (replay with --seed ${options.seed})\n`), shown.begin(total)) };
  let report;
  try {
    report = await run(options, { progress });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`contract-kit: ${err.message}\nRun with --help for usage.\n`);
    return 2;
  }
  process.stdout.write(renderSummary(report));
  const written = writeReports(
    [
      [options.json, () => toJson(report)],
      [options.junit, () => toJunit(report)],
    ],
    'contract-kit',
  );
  return !written ? 2 : report.verdict === 'failed' ? 1 : 0;
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
