// The deterministic coverage phase: the cases it builds, without a server (operations whose success body
// needs no other resource). Every documented boundary and every constraint is there on every seed: the bugs
// that random generation found by luck (a 3-decimal amount, a PIX recipient without its key, a key of 201).
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from '../src/capabilities.ts';
import { CheckRecorder } from '../src/check-result.ts';
import { createContext } from '../src/context.ts';
import { coverageCases } from '../src/phases/coverage.ts';
import { loadApi } from '../src/spec-model.ts';

const api = loadApi();
const ctx = createContext(api, { baseUrl: 'http://unused.invalid', timeoutMs: 1000 }, 'svc_live_unit', 'server', capabilitiesOf('server', false));
const casesOf = async (id: string) => {
  const op = api.byId.get(id)!;
  const cases = await coverageCases(ctx, op, new CheckRecorder(id, 'coverage', 'unit'));
  const validate = api.validator.compile({ $ref: op.body!.schemaPointer });
  return { op, cases, validate };
};

describe('the coverage phase', () => {
  it('checkout sessions: the amount one decimal too many, both forms; the key at 8 and 200 valid, 7 and 201 not; the exclusive pair', async () => {
    const { cases, validate } = await casesOf('createCheckoutSession');
    const described = cases.map((c) => c.plan.description);
    expect(described).toContain('"amount" = "37.455" (one character more than a valid value)');
    expect(described.some((d) => /"amount" = 1\.005 \(not a multiple of 0\.01\)/.test(d))).toBe(true);
    for (const n of [8, 200]) expect(cases.find((c) => !c.mutation && c.plan.idempotencyKey?.length === n), `key of ${n}`).toBeDefined();
    for (const n of [7, 201]) expect(cases.find((c) => c.mutation && c.plan.idempotencyKey?.length === n), `key of ${n}`).toBeDefined();
    const pair = cases.find((c) => c.plan.description.startsWith('mutually exclusive'));
    expect(pair?.mutation?.expectedCode).toBe('checkout_session_pricing_conflict');
    for (const c of cases) {
      const body = c.plan.body && 'json' in c.plan.body ? c.plan.body.json : undefined;
      if (body === undefined || c.plan.description.includes('Idempotency-Key') || c.plan.description === 'no Idempotency-Key') continue;
      expect(validate(body), c.plan.description).toBe(!c.mutation);
    }
    expect(cases.filter((c) => c.plan.description.includes('"amount"') && c.mutation).every((c) => c.mutation!.expectedCode === 'invalid_checkout_session_amount')).toBe(true);
  });

  it('recipients: each required field of each rail missing (a PIX recipient without its PIX key), each rail broken with its code', async () => {
    const { cases } = await casesOf('createRecipient');
    const missing = cases.filter((c) => c.plan.description.startsWith('missing required field')).map((c) => c.plan.description);
    expect(missing).toEqual(expect.arrayContaining(['missing required field "pixKey"', 'missing required field "nickname"', 'missing required field "rail"']));
    const rail = cases.filter((c) => c.plan.description.startsWith('"rail"') && c.mutation);
    expect(rail.length).toBeGreaterThanOrEqual(2);
    for (const c of rail) expect(c.mutation!.expectedCode, c.plan.description).toBe('recipient_rail_unsupported');
    // The nickname's bounds are assumed: its boundaries are valid cases carrying the reason, its violations too.
    const long = cases.find((c) => c.plan.description.startsWith('"nickname"') && c.plan.description.includes('maxLength'));
    expect(long?.mutation?.assumedReason).toMatch(/length bounds are not/);
    const boundary = cases.find((c) => !c.mutation && c.plan.description.startsWith('boundary: "nickname"') && c.plan.description.includes('100 chars'));
    expect(boundary?.assumedReason).toMatch(/length bounds are not/);
  });
});
