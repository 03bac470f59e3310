// The workflows' judge of an answer (src/workflows/judge.ts): the kit's response check over Respect's log of a
// step, so that a difference only from what the spec assumes is a warning, a breach of the document a failure,
// and an answer Respect did not keep is left to Respect's own checks.
import { describe, expect, it } from 'vitest';
import { responseJudge } from '../src/workflows/judge.ts';
import type { Workflow } from '../src/workflows/model.ts';
import { workflowResult } from '../src/workflows/outcome.ts';
import { renderWorkflowSummary } from '../src/workflows/report.ts';
import type { RespectStep } from '../src/workflows/respect.ts';
import { loadApi } from '../src/spec-model.ts';

const SERVER = 'http://127.0.0.1:8080';
const judge = responseJudge(loadApi(), SERVER, 'server');
const step = (method: string, path: string, statusCode: number, body: unknown, extra: Partial<NonNullable<RespectStep['response']>> = {}): RespectStep => ({
  type: 'step',
  stepId: 's',
  workflowId: 'w',
  request: { method, url: `${SERVER}${path}` },
  response: { statusCode, body, headers: { 'content-type': 'application/json' }, ...extra },
});
const recipient = { id: 'rcp_01a2219944d73afdd54ffaffe9b59dac', nickname: 'A', rail: 'usd_ach', active: true };

describe('the workflows judge', () => {
  it('a 200 for a created recipient (the spec only assumes 201): a warning with the reason, no failure', () => {
    const verdict = judge(step('post', '/v1/banking/recipients', 200, recipient))!;
    expect(verdict.failed).toEqual([]);
    expect(verdict.warnings.map((w) => w.name)).toEqual(['status code check']);
    expect(verdict.warnings[0]!.assumedReason).toMatch(/recipient creation/);
  });

  it('a 200 for a created transfer (the document states 201): a failure', () => {
    const verdict = judge(step('post', '/v1/banking/transfers', 200, { id: 'trf_1', status: 'pending' }))!;
    expect(verdict.failed.map((f) => f.name)).toEqual(['status code check']);
  });

  it('an error body without requestId (the document gives the field): a failure of the schema', () => {
    const verdict = judge(step('post', '/v1/banking/transfers', 404, { error: 'x', code: 'recipient_not_found' }))!;
    expect(verdict.failed.map((f) => f.name)).toContain('schema check');
  });

  it("an answer whose body Respect did not keep, and the admin API's answers, are left to Respect", () => {
    expect(judge(step('post', '/v1/banking/recipients', 201, undefined, { size: 120 }))).toBeUndefined();
    expect(judge(step('post', '/admin/organizations', 201, { id: 'org_1' }))).toBeUndefined();
    expect(judge(step('post', '/v1/banking/recipients', 201, recipient))).toMatchObject({ failed: [], warnings: [] });
  });

  it('a failed criterion reading a field the answer lacks and the spec only assumes (a recipient id named otherwise) gives the reason', () => {
    const renamed = { recipientId: recipient.id, nickname: 'A', rail: 'usd_ach', active: true };
    const criterion = (condition: string) => ({ name: 'success criteria check', passed: false, condition, message: 'Checking simple criteria' });
    const s = { ...step('post', '/v1/banking/recipients', 201, renamed), status: 'error', checks: [criterion('$response.body#/id != null'), criterion("$response.body#/rail == 'brl_pix'")] };
    const workflow = { workflowId: 'w', steps: [{ stepId: 's' }] } as unknown as Workflow;
    const result = workflowResult(workflow, 'w.arazzo.yaml', { workflowId: 'w', status: 'error', totalTimeMs: 0, executedSteps: [s] }, new Map(), judge);
    const [lacking, wrongValue] = result.steps[0]!.failed;
    expect(lacking!.assumedReason).toMatch(/does not name a recipient's id field/);
    expect(wrongValue!.assumedReason).toBeUndefined(); // the field is there: its value is what failed
    const totals = { workflows: 1, passed: 0, partial: 0, failed: 1, notApplicable: 0, steps: 1, stepsPassed: 0, stepsFailed: 1, stepsNotApplicable: 0, stepsNotRun: 0, warnings: 0 };
    const summary = renderWorkflowSummary({ results: [result], totals, durationMs: 0, verdict: 'failed' } as unknown as Parameters<typeof renderWorkflowSummary>[0]);
    expect(summary).toContain("the answer has no such field, and the spec only assumes it (a server may name it otherwise): The document says transfers carry a recipient reference but does not name a recipient's id field");
  });
});
