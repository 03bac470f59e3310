// The `rate-limit` probe across a window boundary, driven deterministically: one fake time is both the
// sandbox's real clock (startSandbox `now`: the clock of every organization without a frozen test clock,
// and so of its 15-minute rate-limit windows, aligned to quarter hours) and the kit's (the probe's injected
// clock). It starts 5 ms before a quarter hour and the test moves it 10 ms forward just before the probe's
// limit + 1-th request: the budget is spent in one window, the request that should get the 429 arrives in
// the next. Nothing waits for real time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/sandbox.ts';
import { capabilitiesOf } from '../src/capabilities.ts';
import { createContext } from '../src/context.ts';
import { rateLimitsOf } from '../src/pacing.ts';
import { adminClient, FULL_ORGANIZATION, SetupError, type AdminClient } from '../src/probes/admin.ts';
import { rateLimitProbe, SKEW_MS } from '../src/probes/rate-limit.ts';
import { loadApi } from '../src/spec-model.ts';

const api = loadApi();
const op = api.byId.get('issueCard')!;
const { limit, windowMs } = rateLimitsOf(api, op).find((l) => l.bucket === op.operationId)!;
const QUARTER_HOUR = Date.UTC(2026, 10, 25, 21, 15);

let sandbox: RunningSandbox;
let time = 0;
/** The kit's clock, the same fake time; its waits move the time instead of waiting. */
const clock = { now: () => time, sleep: async (ms: number) => void (time += ms) };

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => new Date(time) });
});
afterAll(async () => {
  await sandbox?.close();
});

const realAdmin = () => adminClient({ transport: { baseUrl: sandbox.url, timeoutMs: 10_000 } }, sandbox.adminToken);

/**
 * Runs the probe from `start` (5 ms before a quarter hour); `jumps` maps the n-th request the probe sends
 * (1-based) to how far the time moves just before it is sent.
 */
async function probeAcrossBoundary(jumps: Map<number, number>, admin: AdminClient = realAdmin(), start = QUARTER_HOUR - 5) {
  time = start;
  // The kit's own organization, as a run with --admin-token provisions it (its clock on real time).
  const kitOrg = await admin.createOrganization(FULL_ORGANIZATION);
  const { key } = await admin.createApiKey(kitOrg.id);
  let sent = 0;
  const onRequest = () => void (time += jumps.get(++sent) ?? 0);
  const ctx = createContext(api, { baseUrl: sandbox.url, timeoutMs: 10_000, onRequest }, key, 'server', capabilitiesOf('server', true), { admin, organizationId: kitOrg.id });
  return rateLimitProbe(ctx, op, 7, clock);
}

describe('the rate-limit probe when a window boundary falls between spending the budget and the last request', () => {
  it('with the admin API: its own organization with a frozen clock gets the 429 all the same', async () => {
    const result = await probeAcrossBoundary(new Map([[limit + 1, 10]]));
    expect(result.warnings).toEqual([]);
    expect(result.status).toBe('passed');
    expect(result.statuses).toEqual({ '400': limit, '429': 1 });
  });

  describe('an admin API that cannot freeze a clock', () => {
    const noClocks = (): AdminClient => ({
      ...realAdmin(),
      freezeClock: async () => {
        throw new SetupError('admin POST /admin/organizations/…/clock/freeze → 404');
      },
    });

    it('sees the boundary inside the run and tries once more, wholly in the new window', async () => {
      const result = await probeAcrossBoundary(new Map([[limit + 1, 10]]), noClocks());
      expect(result.warnings).toEqual([]);
      expect(result.status).toBe('passed');
      // The first try's last request met the new window (a 400, no 429); the second try got its 429.
      expect(result.statuses).toEqual({ '400': 2 * limit + 1, '429': 1 });
      expect(time).toBe(QUARTER_HOUR + SKEW_MS);
    });

    it('reports inconclusive (skipped), not a pass or a failure, when the second try crosses a boundary too', async () => {
      const result = await probeAcrossBoundary(new Map([[limit + 1, 10], [2 * (limit + 1), windowMs]]), noClocks());
      expect(result.status).toBe('skipped');
      expect(result.failures).toEqual([]);
      expect(result.warnings.map((w) => w.rule)).toEqual(['skipped']);
      expect(result.warnings[0]!.message).toMatch(/^inconclusive: a 900 s window boundary/);
    });

    it('tries once when no boundary is near', async () => {
      const result = await probeAcrossBoundary(new Map(), noClocks(), QUARTER_HOUR + windowMs / 2);
      expect(result.status).toBe('passed');
      expect(result.statuses).toEqual({ '400': limit, '429': 1 });
    });
  });
});
