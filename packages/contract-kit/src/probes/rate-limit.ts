// The `rate-limit` probe: on an operation with its own stricter `x-rate-limit` (card issuance), and once per
// run for the document's default (600 requests per 15 minutes per key, on the first read), a fresh key sends
// limit + 1 requests (a POST's invalid: every authenticated request counts, and none creates anything); the
// last must be refused, with 429 and a `Retry-After` (both assumed: a warning otherwise). The default's value
// is the document's own, so its last request answered 2xx is a failure; the card limit is assumed, a warning.
//
// The spent budget must still be spent when the last request arrives. A server with windows aligned to the
// clock (the sandbox's: every quarter hour for 15 minutes; the provider does not say which kind it uses)
// starts a fresh window at the boundary, and a run across one would see a 4xx where the 429 is due: a false
// warning on a correct server. So:
//  - the key belongs to an organization of the probe's own whose test clock it freezes (admin freezeClock):
//    its windows cannot roll over, whatever the time;
//  - where the admin API cannot freeze a clock, the probe reads its own clock before the first request and
//    after the last answer; when a window boundary (a multiple of the window since the epoch, give or take
//    SKEW_MS between the two clocks) fell inside, it waits for the new window and tries once more with a
//    fresh key; a second crossing leaves the check skipped as inconclusive, never passed or failed.
import { CheckRecorder } from '../check-result.ts';
import { checkResponse, label, snippet } from '../checks/response.ts';
import { exchange, type KitContext } from '../context.ts';
import { materialize } from '../generate.ts';
import { toCurl, type Exchange } from '../http.ts';
import { rateLimitsOf, type RateLimit } from '../pacing.ts';
import type { OperationModel } from '../spec-model.ts';
import type { CheckResult } from '../types.ts';
import { FULL_ORGANIZATION, SetupError, type AdminClient } from './admin.ts';
import { samplePlan } from './auth.ts';

/** The kit's clock, as the probe reads and waits on it (injectable: a test puts a boundary inside a run). */
export interface ProbeClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const systemClock: ProbeClock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/** How far the server's clock may be from the kit's when deciding whether a boundary fell inside a run. */
export const SKEW_MS = 5_000;

export const rateLimitApplies = (ctx: KitContext, op: OperationModel): boolean => rateLimitsOf(ctx.api, op).some((l) => l.bucket === op.operationId && l.limit <= 100);

/** The limit the probe spends on `op`: its own stricter one, else the document's default (`firstRead`: the run's probe of it). */
const limitOf = (ctx: KitContext, op: OperationModel): RateLimit | undefined => {
  const limits = rateLimitsOf(ctx.api, op);
  return limits.find((l) => l.bucket === op.operationId) ?? limits.find((l) => l.bucket === 'default');
};

/** The first start of a clock-aligned window (a multiple of `windowMs`) in (from, to], or undefined. */
export function boundaryWithin(from: number, to: number, windowMs: number): number | undefined {
  const next = (Math.floor(from / windowMs) + 1) * windowMs;
  return next <= to ? next : undefined;
}

interface ProbeOrganization {
  /** Whether its test clock is frozen (its windows never roll over during the probe). */
  frozen: boolean;
  newKey(): Promise<string>;
}

/** An organization of the probe's own (so no other check's key, fault or clock is touched), its clock frozen when the admin API can. */
async function probeOrganization(admin: AdminClient): Promise<ProbeOrganization> {
  const { id } = await admin.createOrganization(FULL_ORGANIZATION);
  let frozen = true;
  try {
    await admin.freezeClock(id);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    frozen = false; // an admin API without test clocks: the run is bracketed by the kit's clock instead
  }
  return { frozen, newKey: async () => (await admin.createApiKey(id)).key };
}

interface Spent {
  last: Exchange | undefined;
  curl: string;
  startedMs: number;
  endedMs: number;
}

/** Up to limit + 1 requests with `key` (stopping at the first 429), bracketed by the kit's clock. */
async function spendBudget(ctx: KitContext, check: CheckRecorder, op: OperationModel, limit: RateLimit, seed: number, key: string, clock: ProbeClock): Promise<Spent> {
  // Malformed JSON: refused, nothing created, and counted like any authenticated request.
  const plan = samplePlan(ctx, op, seed);
  const request = materialize(ctx, op, op.body ? { ...plan, body: { raw: '{' } } : plan, { headers: { [ctx.api.apiKeyHeader]: key } });
  const startedMs = clock.now();
  let last: Exchange | undefined;
  for (let i = 0; i <= limit.limit; i++) {
    last = await exchange(ctx, request);
    check.sent(last.response?.status);
    if (last.response?.status === 429) break;
  }
  return { last, curl: toCurl(ctx.transport.baseUrl, request, key, 'FRESH_KEY'), startedMs, endedMs: clock.now() };
}

const crossed = (spent: Spent, limit: RateLimit) => boundaryWithin(spent.startedMs - SKEW_MS, spent.endedMs + SKEW_MS, limit.windowMs);
const iso = (ms: number) => new Date(ms).toISOString();

export async function rateLimitProbe(ctx: KitContext, op: OperationModel, seed: number, clock: ProbeClock = systemClock): Promise<CheckResult> {
  const check = new CheckRecorder(op.operationId, 'rate-limit', 'past its x-rate-limit a key gets 429 with Retry-After');
  const limit = limitOf(ctx, op);
  if (!limit || !ctx.admin) {
    check.skip('skipped, needs the admin API (a fresh key of an organization of the probe’s own is spent)');
    return check.result();
  }
  try {
    const org = await probeOrganization(ctx.admin);
    let spent = await spendBudget(ctx, check, op, limit, seed, await org.newKey(), clock);
    const boundary = org.frozen ? undefined : crossed(spent, limit);
    if (boundary !== undefined) {
      await clock.sleep(Math.max(0, boundary + SKEW_MS - clock.now())); // wholly in the new window, skew included
      spent = await spendBudget(ctx, check, op, limit, seed, await org.newKey(), clock);
      const again = crossed(spent, limit);
      if (again !== undefined) {
        check.skip(
          `inconclusive: a ${limit.windowMs / 1000} s window boundary (${iso(boundary)}, then ${iso(again)}) fell within both tries (±${SKEW_MS / 1000} s of clock skew), ` +
            'and the admin API could not freeze a test clock: a window that rolled over between spending the budget and the last request would explain any answer',
        );
        return check.result();
      }
    }
    judge(ctx, check, op, limit, spent);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    check.skip(`skipped, ${err.message}`);
  }
  return check.result();
}

/** The last answer must be the 429, with its Retry-After (both assumed by the spec: warnings otherwise). */
function judge(ctx: KitContext, check: CheckRecorder, op: OperationModel, limit: RateLimit, { last, curl }: Spent): void {
  const response = last?.response;
  const documented = op.responses.find((r) => r.status === '429');
  const reason = documented?.assumedReason ?? 'the provider does not show the rate-limit answer';
  if (!response) return;
  if (response.status < 300 && limit.bucket === 'default') {
    check.add([{ severity: 'failure', rule: 'rate-limit', message: `${label(op, response)}: request ${limit.limit + 1} with one key within ${limit.windowMs / 1000} s was served; the provider's document limits a key to ${limit.limit} requests per ${limit.windowMs / 60_000} minutes (section 8, its x-rate-limit)`, curl }]);
    return;
  }
  if (response.status !== 429) {
    check.warn({ rule: 'rate-limit', message: `${label(op, response)} after ${limit.limit + 1} requests with one key; the spec's x-rate-limit (${limit.limit} per ${limit.windowMs / 1000} s) says 429. Body ${snippet(response.text)}`, assumedReason: reason, curl });
    return;
  }
  // The 429 is the expected answer here, not a rate limit the kit ran into: check it as a response.
  check.add(checkResponse(ctx, op, response).map((f) => ({ ...f, curl })));
  if (response.headers.get('retry-after') === null) check.warn({ rule: 'header', message: `${label(op, response)} without Retry-After`, assumedReason: reason, curl });
}
