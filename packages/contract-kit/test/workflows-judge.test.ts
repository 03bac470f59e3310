// The workflows' judge of an answer (src/workflows/judge.ts): the kit's response check over Respect's log of a
// step, so that a difference only from what the spec assumes is a warning, a breach of the document a failure,
// and an answer Respect did not keep is left to Respect's own checks.
import { describe, expect, it } from 'vitest';
import { responseJudge } from '../src/workflows/judge.ts';
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
    expect(judge(step('post', '/v1/banking/recipients', 201, recipient))).toEqual({ failed: [], warnings: [] });
  });
});
