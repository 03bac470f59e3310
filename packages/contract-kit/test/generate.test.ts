// The generator: valid plans are valid per the document's Ajv (body, Idempotency-Key, path parameters),
// mutated plans break exactly what they say, the same seed gives the same requests, keys are fresh.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from '../src/capabilities.ts';
import { createContext } from '../src/context.ts';
import { invalidPlans, materialize, validPlans } from '../src/generate.ts';
import { mutationKinds } from '../src/mutate.ts';
import { loadApi } from '../src/spec-model.ts';

const api = loadApi();
const ctx = createContext(api, { baseUrl: 'http://unused.invalid', timeoutMs: 1000 }, 'svc_live_unit', 'server', capabilitiesOf('server', false));
const validatorOf = (pointer: string) => api.validator.compile({ $ref: pointer });

describe.each(api.operations.map((op) => [op.operationId, op] as const))('%s', (_id, op) => {
  it('generates valid requests', () => {
    const body = op.body ? validatorOf(op.body.schemaPointer) : undefined;
    const key = op.idempotencyKey ? validatorOf(op.idempotencyKey.schemaPointer) : undefined;
    for (const plan of fc.sample(validPlans(ctx, op), { numRuns: 200, seed: 3 })) {
      if (body) expect(body(plan.body && 'json' in plan.body ? plan.body.json : undefined), JSON.stringify(plan)).toBe(true);
      if (key) expect(key(plan.idempotencyKey), JSON.stringify(plan)).toBe(true);
      for (const p of op.pathParams) expect(validatorOf(p.schemaPointer)(plan.pathValues[p.name]), JSON.stringify(plan)).toBe(true);
      const request = materialize(ctx, op, plan);
      if (key) expect(key(request.headers[op.idempotencyKey!.name]), 'the fresh key stays valid').toBe(true);
    }
  });

  it('generates invalid requests that are invalid in the way they say', () => {
    const arb = invalidPlans(ctx, op);
    if (!arb) {
      expect(op.body).toBeUndefined();
      return;
    }
    const body = op.body ? validatorOf(op.body.schemaPointer) : undefined;
    const key = op.idempotencyKey ? validatorOf(op.idempotencyKey.schemaPointer) : undefined;
    const seen = new Set<string>();
    for (const plan of fc.sample(arb, { numRuns: 300, seed: 4 })) {
      seen.add(plan.mutation!);
      const json = plan.body && 'json' in plan.body ? plan.body.json : undefined;
      const bodyInvalid = plan.body !== undefined && ('raw' in plan.body || (body !== undefined && body(json) !== true));
      const keyInvalid = plan.idempotencyKey === null || (key !== undefined && typeof plan.idempotencyKey === 'string' && key(plan.idempotencyKey) !== true);
      expect(bodyInvalid || keyInvalid, JSON.stringify(plan)).toBe(true);
      if (plan.mutation?.startsWith('idempotency-key')) expect(keyInvalid, plan.description).toBe(true);
      else expect(bodyInvalid, plan.description).toBe(true);
    }
    expect([...seen].sort()).toEqual([...mutationKinds(ctx, op)].sort());
  });
});

describe('the mutations of each operation', () => {
  // Pinned for today's spec, in the order the kit applies them: a mutator that stops applying (or a new
  // one) shows here, where the check above compares the kit only with itself.
  it('follow from its schemas: required fields, bounds, exclusive fields, the Idempotency-Key', () => {
    const body = ['wrong-type', 'malformed-json', 'idempotency-key-missing', 'idempotency-key-invalid'];
    expect(Object.fromEntries(api.operations.map((op) => [op.operationId, mutationKinds(ctx, op)]))).toEqual({
      getBankingBalance: [],
      getTransfer: [],
      createRecipient: ['missing-required', 'wrong-type', 'out-of-range', ...body.slice(1)],
      createTransfer: ['missing-required', 'wrong-type', 'out-of-range', ...body.slice(1)],
      issueCard: body,
      createCheckoutProduct: body,
      createCheckoutSession: ['wrong-type', 'out-of-range', 'exclusive-fields', ...body.slice(1)],
    });
  });
});

describe('replay and freshness', () => {
  const op = api.byId.get('createCheckoutSession')!;
  it('the same seed gives the same plans', () => {
    const a = fc.sample(validPlans(ctx, op), { numRuns: 20, seed: 11 });
    const b = fc.sample(validPlans(ctx, op), { numRuns: 20, seed: 11 });
    expect(a).toEqual(b);
  });
  it('every request gets a fresh Idempotency-Key, even for the same plan', () => {
    const [plan] = fc.sample(validPlans(ctx, op), { numRuns: 1, seed: 12 });
    const keys = new Set(Array.from({ length: 50 }, () => materialize(ctx, op, plan!).headers['Idempotency-Key']));
    expect(keys.size).toBe(50);
  });
  it('Prism mode leaves malformed JSON out (Prism never answers it)', () => {
    const prismCtx = createContext(api, ctx.transport, 'svc_live_unit', 'prism', capabilitiesOf('prism', false));
    expect(mutationKinds(prismCtx, op)).not.toContain('malformed-json');
    expect(mutationKinds(ctx, op)).toContain('malformed-json');
  });
});
