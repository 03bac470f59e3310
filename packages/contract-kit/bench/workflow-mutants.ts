// Which workflow catches which mutant: every mutant of test/mutants/registry.ts (the real sandbox behind a proxy
// with one injected defect) meets every workflow of @payments/spec's workflows/ (Respect, with the admin API), and
// the unmodified sandbox behind the same proxy too. Prints the table (mutant | caught by: workflow, step,
// criterion), the mutants no workflow catches, and the time. The test (test/workflows.test.ts) asserts the rows
// of WORKFLOW_CATCHES; this measures them all.
//
//   node packages/contract-kit/bench/workflow-mutants.ts [--mutants a,b] [--json FILE]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runWorkflows, type WorkflowReport } from '../src/workflows/run.ts';
import { startMutant, type Mutant } from '../test/mutants/proxy.ts';
import { MUTANTS } from '../test/mutants/registry.ts';

export interface Catch {
  workflowId: string;
  stepId: string;
  criterion: string;
}

/** Every workflow against the mutant (undefined: the unmodified sandbox); the failed ones, with their first failed step and criterion. */
export async function workflowsAgainst(mutant: Mutant | undefined, workflows: string[] = []): Promise<{ catches: Catch[]; report: WorkflowReport; errors: string[] }> {
  const server = await startMutant(mutant);
  try {
    const report = await runWorkflows({ server: server.url, adminToken: server.adminToken, workflows, target: 'server', timeoutMs: 10_000 });
    const catches = report.results
      .filter((r) => r.status === 'failed')
      .map((r) => {
        const step = r.steps.find((s) => s.status === 'failed') ?? r.steps.find((s) => s.status === 'not-run');
        const check = step?.failed[0];
        return { workflowId: r.workflowId, stepId: step?.stepId ?? '?', criterion: check ? (check.condition ?? check.name) : 'not run' };
      });
    return { catches, report, errors: server.errors };
  } finally {
    await server.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { mutants: { type: 'string' }, json: { type: 'string' } } });
  const only = values.mutants?.split(',');
  const started = performance.now();
  const baseline = await workflowsAgainst(undefined);
  process.stderr.write(`unmodified sandbox: ${baseline.report.verdict} (${baseline.report.totals.passed}/${baseline.report.totals.workflows} workflows)\n`);
  const rows: { mutant: string; visible: boolean; catches: Catch[] }[] = [];
  for (const mutant of MUTANTS.filter((m) => !only || only.includes(m.name))) {
    const { catches, errors } = await workflowsAgainst(mutant);
    if (errors.length > 0) process.stderr.write(`${mutant.name}: the mutant crashed: ${errors[0]}\n`);
    rows.push({ mutant: mutant.name, visible: mutant.visible === true, catches });
    process.stderr.write(`${mutant.name}: ${catches.map((c) => c.workflowId).join(', ') || '-'}\n`);
  }
  const lines = ['| mutant | defect visible in the spec | caught by (workflow › step: criterion) |', '|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.mutant} | ${r.visible ? 'yes' : 'no'} | ${r.catches.map((c) => `${c.workflowId} › ${c.stepId}: \`${c.criterion.replace(/\|/g, '\\|')}\``).join('<br>') || '—'} |`);
  const caught = rows.filter((r) => r.catches.length > 0).length;
  lines.push('', `${caught} of ${rows.length} mutants caught by at least one workflow (${rows.filter((r) => r.visible && r.catches.length > 0).length} of ${rows.filter((r) => r.visible).length} visible ones); unmodified sandbox: ${baseline.report.verdict}; ${((performance.now() - started) / 1000).toFixed(0)} s`);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
}
