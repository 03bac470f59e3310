// The docs' workflow runner evaluates runtime expressions and criteria itself (in the browser, without Respect):
// every expression and criterion of the workflows is in the subset it reads, and it judges them as Respect does.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@payments/spec';
import { evaluate, interpolate, meets, type EvalContext } from '../../tools/lib/docs-browser/workflow-eval.ts';
import { workflowConsoleData } from '../../tools/lib/docs-workflows.ts';

const workflows = workflowConsoleData(loadSpec());

const ctx: EvalContext = {
  inputs: { runId: 'r1', amount: '25.00', apiKey: 'svc_live_x', retryAfterSeconds: 2 },
  steps: { createRecipient: { recipientId: 'rcp_1' }, createTransfer: { transferId: 'trf_1' } },
  statusCode: 201,
  body: { id: 'trf_1', recipientId: 'rcp_1', amount: '25.00', status: 'pending', idempotencyKey: 'k-1' },
  requestHeaders: { 'Idempotency-Key': 'k-1' },
  responseHeaders: { 'retry-after': '2' },
};

describe("the docs runner's expressions", () => {
  it('reads every expression and criterion of the workflows the page runs', () => {
    const runnable = workflows.filter((w) => w.runnable);
    expect(runnable.length).toBeGreaterThanOrEqual(4);
    for (const w of runnable) {
      for (const s of w.steps) {
        const all = { ...ctx, steps: new Proxy({}, { get: () => new Proxy({}, { get: () => 'x' }) }) } as EvalContext;
        expect(() => interpolate(s.parameters.map((p) => p.value), all), `${w.workflowId}/${s.stepId}`).not.toThrow();
        expect(() => interpolate(s.payload, all), `${w.workflowId}/${s.stepId}`).not.toThrow();
        for (const c of s.criteria) expect(() => meets(c, all), `${w.workflowId}/${s.stepId}: ${c.condition}`).not.toThrow();
        for (const e of Object.values(s.outputs)) expect(() => evaluate(e, all), `${w.workflowId}/${s.stepId}: ${e}`).not.toThrow();
      }
    }
  });

  it('judges simple conditions and RFC 9535 filters as Respect does', () => {
    expect(meets({ condition: '$statusCode == 201' }, ctx)).toBe(true);
    expect(meets({ condition: '$statusCode == 200' }, ctx)).toBe(false);
    expect(meets({ condition: '$response.body#/id == $steps.createTransfer.outputs.transferId' }, ctx)).toBe(true);
    expect(meets({ condition: '$response.body#/id != $steps.createTransfer.outputs.transferId' }, ctx)).toBe(false);
    expect(meets({ condition: '$response.body#/idempotencyKey == $request.header.Idempotency-Key' }, ctx)).toBe(true);
    expect(meets({ condition: '$response.header.Retry-After == $inputs.retryAfterSeconds' }, ctx)).toBe(true);
    const status = "$[?@.status == 'pending' || @.status == 'completed']";
    expect(meets({ condition: status, type: 'jsonpath', context: '$response.body' }, ctx)).toBe(true);
    expect(meets({ condition: status, type: 'jsonpath', context: '$response.body' }, { ...ctx, body: { status: 'failed' } })).toBe(false);
    const noTransfer = '$[?@.requestId && !@.id]';
    expect(meets({ condition: noTransfer, type: 'jsonpath', context: '$response.body' }, { ...ctx, body: { requestId: 'q', code: 'x' } })).toBe(true);
    expect(meets({ condition: noTransfer, type: 'jsonpath', context: '$response.body' }, { ...ctx, body: { requestId: 'q', id: 'trf_1' } })).toBe(false);
  });

  it('joins comparisons with && and ||, and writes {$expr} into a filter as a JSON literal', () => {
    const success = '$statusCode >= 200 && $statusCode < 300';
    expect(meets({ condition: success }, ctx)).toBe(true);
    expect(meets({ condition: success }, { ...ctx, statusCode: 409 })).toBe(false);
    const either = '$statusCode == 409 || $statusCode == 404';
    expect(meets({ condition: either }, { ...ctx, statusCode: 404 })).toBe(true);
    expect(meets({ condition: either }, { ...ctx, statusCode: 400 })).toBe(false);
    const sameKey = '$[?!@.idempotencyKey || @.idempotencyKey == {$request.header.Idempotency-Key}]';
    expect(meets({ condition: sameKey, type: 'jsonpath', context: '$response.body' }, ctx)).toBe(true);
    expect(meets({ condition: sameKey, type: 'jsonpath', context: '$response.body' }, { ...ctx, body: { id: 'trf_1' } })).toBe(true);
    expect(meets({ condition: sameKey, type: 'jsonpath', context: '$response.body' }, { ...ctx, body: { idempotencyKey: 'k-1-again' } })).toBe(false);
  });

  it('keeps a lone expression typed and writes embedded ones as text', () => {
    expect(interpolate({ amount: '$inputs.amount', key: 'transfer-{$inputs.runId}', n: '$inputs.retryAfterSeconds' }, ctx)).toEqual({ amount: '25.00', key: 'transfer-r1', n: 2 });
  });
});
