// Against Prism's stateless mock only the steps marked `x-mock: true` can be honoured (a mock answers the
// documented example: it keeps no resource to read back, no key to replay, no provider state). This writes a
// derived copy of a workflow file holding only those steps, with absolute source URLs, for Respect to run; the
// other steps are reported not applicable with the reason, never as passed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Workflow, WorkflowFile } from './model.ts';

export const MOCK_STEP_REASON = "a stateless mock cannot honour it (it keeps no resource, key or provider state: the step's criteria need one)";
export const MOCK_ADMIN_REASON = "it sets a provider state through the sandbox's admin API, which a stateless mock does not have";

export interface MockPlan {
  /** Workflows to run, with the steps left out (stepId → reason). */
  run: { workflow: Workflow; skipped: Map<string, string> }[];
  /** Workflows with nothing a mock can honour, with the reason. */
  notApplicable: { workflow: Workflow; reason: string }[];
}

export function planForMock(workflows: Workflow[]): MockPlan {
  const plan: MockPlan = { run: [], notApplicable: [] };
  for (const workflow of workflows) {
    const kept = workflow.steps.filter((s) => s['x-mock'] === true);
    if (workflow.needsAdmin) plan.notApplicable.push({ workflow, reason: MOCK_ADMIN_REASON });
    else if (kept.length === 0) plan.notApplicable.push({ workflow, reason: `every step: ${MOCK_STEP_REASON}` });
    else plan.run.push({ workflow, skipped: new Map(workflow.steps.filter((s) => s['x-mock'] !== true).map((s) => [s.stepId, MOCK_STEP_REASON])) });
  }
  return plan;
}

/** The derived file (JSON, which is YAML) with only the planned workflows and their mock steps. */
export function writeMockVariant(file: WorkflowFile, sourcePath: string, plan: MockPlan): string {
  const ids = new Set(plan.run.map((r) => r.workflow.workflowId));
  const doc = {
    ...file,
    file: undefined,
    sourceDescriptions: file.sourceDescriptions.map((s) => ({ ...s, url: resolve(dirname(sourcePath), s.url) })),
    workflows: file.workflows.filter((w) => ids.has(w.workflowId)).map((w) => ({ ...w, steps: w.steps.filter((s) => s['x-mock'] === true) })),
  };
  const path = join(mkdtempSync(join(tmpdir(), 'payments-workflows-mock-')), file.file);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}
