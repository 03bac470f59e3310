// `payments-contract-kit workflows`: the provider's Arazzo workflows (shipped in @payments/spec) run with Respect
// against a fresh sandbox (default), a sandbox, a server or Prism; summary on stdout, progress on stderr, JSON and
// JUnit reports. Exit 0 passed, 1 a workflow failed or no step ran, 2 usage (an unreachable server, a refused key).
import { parseArgs } from 'node:util';
import { unwritableReport, writeReports } from '../report/write.ts';
import { renderWorkflowSummary, workflowJson, workflowJunit } from './report.ts';
import { loadWorkflows, type Workflow } from './model.ts';
import { RespectMissing } from './respect.ts';
import { runWorkflows, WorkflowUsageError, type WorkflowRunOptions } from './run.ts';

export const WORKFLOWS_HELP = `The provider's flows as Arazzo workflows (@payments/spec's workflows/), run with Redocly Respect.

Usage:
  payments-contract-kit workflows [--server URL] [--admin-url URL --admin-token T] [--api-key KEY]
                                  [--workflow id ...] [--target auto|prism|server] [--json F] [--junit F]
  payments-contract-kit workflows --list

  (no --server)          a fresh sandbox is started in memory, every workflow runs, the sandbox stops
  --server URL           the public API: a sandbox, a staging server or Prism's mock (npx payments-mock)
  --admin-url URL        the sandbox's admin API (default: --server); with --admin-token the workflows that set a
  --admin-token T        provider state (a fault, a review, a product switch, a test clock) run; without, they are
                         not applicable ($SANDBOX_ADMIN_TOKEN is read too)
  --api-key KEY          the key for the workflows that take one ($PAYMENTS_API_KEY; default with the admin API: a
                         new organization's, every product on)
  --workflow id          only this workflow (repeatable)
  --target T             auto (default: the admin API answers → server; Prefer: code=… honoured → Prism), prism, server
  --run-id ID            makes Idempotency-Keys and names new (default: random, printed)
  --json F, --junit F    reports (JUnit: one suite per workflow, one testcase per step)
  --timeout-ms N         per request (default 10000)
  --verbose              Respect's own output per file
  --list                 the workflows, what each needs and the provider's section it shows; runs nothing
  -h, --help             this help

Against Prism only the steps marked x-mock (criteria a stateless mock can meet) run; the others are reported
not applicable, never passed. A run in which no step ran (all not applicable) fails: NOTHING CHECKED. An
unreachable server, an admin token or an API key the server refuses stop the run before any workflow (exit 2).
Needs redocly (@redocly/cli ≥ 2.77) next to the kit, or $REDOCLY_BIN.
`;

/** One line per workflow: its id, what it needs of the target, the section of the provider's document, its summary. */
export function renderWorkflowList(workflows: readonly Workflow[]): string {
  const needs = (w: Workflow) => (w.needsAdmin ? 'admin API' : w.steps.some((s) => s['x-mock']) ? 'API key (Prism: in part)' : 'API key');
  const width = Math.max(...workflows.map((w) => w.workflowId.length));
  const needsWidth = Math.max(...workflows.map((w) => needs(w).length));
  const lines = workflows.map((w) => `${w.workflowId.padEnd(width)}  ${needs(w).padEnd(needsWidth)}  ${w.summary ?? ''}\n${' '.repeat(width + needsWidth + 4)}section ${w['x-provider-section'] ?? '?'}`);
  return `${lines.join('\n')}\n\n${workflows.length} workflows. "admin API": runs against a sandbox with --admin-token (a provider state); "API key": any server of the API.\n`;
}

function parse(argv: string[]): (WorkflowRunOptions & { json?: string; junit?: string; verbose: boolean }) | 'help' | 'list' {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string' },
      'admin-url': { type: 'string' },
      'admin-token': { type: 'string' },
      'api-key': { type: 'string' },
      workflow: { type: 'string', multiple: true },
      target: { type: 'string', default: 'auto' },
      'run-id': { type: 'string' },
      json: { type: 'string' },
      junit: { type: 'string' },
      'timeout-ms': { type: 'string', default: '10000' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      list: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  if (values.list) return 'list';
  // `--api-key=` (an unset variable in a script) was taken as no key: a fresh sandbox ran and passed.
  for (const name of ['server', 'admin-url', 'admin-token', 'api-key', 'run-id', 'json', 'junit'] as const) {
    if (values[name]?.trim() === '') throw new WorkflowUsageError(`--${name} is empty: give a value, or leave the option out`);
  }
  const target = values.target;
  if (target !== 'auto' && target !== 'prism' && target !== 'server') throw new WorkflowUsageError(`--target must be auto, prism or server (got ${target})`);
  const timeoutMs = Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new WorkflowUsageError('--timeout-ms must be a positive integer');
  return {
    server: values.server?.replace(/\/+$/, ''),
    adminUrl: values['admin-url']?.replace(/\/+$/, ''),
    adminToken: values['admin-token'] ?? (values.server ? process.env.SANDBOX_ADMIN_TOKEN : undefined),
    apiKey: values['api-key'] ?? process.env.PAYMENTS_API_KEY,
    workflows: values.workflow ?? [],
    target,
    runId: values['run-id'],
    timeoutMs,
    ...(values.json ? { json: values.json } : {}),
    ...(values.junit ? { junit: values.junit } : {}),
    verbose: values.verbose,
  };
}

export async function workflowsMain(argv: string[]): Promise<number> {
  let options;
  try {
    options = parse(argv);
  } catch (err) {
    if (!(err instanceof Error) || !(err instanceof WorkflowUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) throw err;
    process.stderr.write(`workflows: ${err.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(WORKFLOWS_HELP);
    return 0;
  }
  if (options === 'list') {
    process.stdout.write(renderWorkflowList(loadWorkflows()));
    return 0;
  }
  const unwritable = unwritableReport([['--json', options.json], ['--junit', options.junit]]);
  if (unwritable) {
    process.stderr.write(`workflows: ${unwritable}; nothing was run.\nRun with --help for usage.\n`);
    return 2;
  }
  let report;
  try {
    report = await runWorkflows({
      ...options,
      onProgress: (line) => process.stderr.write(`${line}\n`),
      ...(options.verbose ? { onRespectOutput: (file: string, output: string) => process.stderr.write(`── respect: ${file}\n${output}\n`) } : {}),
    });
  } catch (err) {
    if (!(err instanceof WorkflowUsageError || err instanceof RespectMissing)) throw err;
    process.stderr.write(`workflows: ${err.message}\n`);
    return 2;
  }
  process.stdout.write(renderWorkflowSummary(report));
  const written = writeReports(
    [
      [options.json, () => workflowJson(report)],
      [options.junit, () => workflowJunit(report)],
    ],
    'workflows',
  );
  if (!written) return 2;
  return report.verdict === 'passed' ? 0 : 1; // nothing checked fails too: a green run must have checked something
}
