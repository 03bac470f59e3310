// Pacing within the documented rate limit, on a virtual clock: the budget per key and bucket (the spec's
// x-rate-limit, the stricter card limit too), a new key from the admin API when one is spent, waiting for the
// window without one, and sending over the budget (so the 429s get reported) once --max-wait-s is used up.
import { describe, expect, it } from 'vitest';
import { KeyPool, rateLimitsOf } from '../src/pacing.ts';
import { stderrProgress } from '../src/progress.ts';
import { loadApi } from '../src/spec-model.ts';

const api = loadApi();

describe('rate limits read from the spec', () => {
  it('every operation counts against the default limit; card issuance against its own too', () => {
    expect(rateLimitsOf(api, api.byId.get('getBankingBalance'))).toEqual([{ bucket: 'default', limit: 600, windowMs: 900_000 }]);
    expect(rateLimitsOf(api, api.byId.get('issueCard'))).toEqual([
      { bucket: 'default', limit: 600, windowMs: 900_000 },
      { bucket: 'issueCard', limit: 60, windowMs: 900_000 },
    ]);
  });
});

describe('KeyPool', () => {
  const cards = rateLimitsOf(api, api.byId.get('issueCard'));
  const clock = () => {
    let now = 0;
    return { now: () => now, sleep: async (ms: number) => void (now += ms) };
  };

  it('takes a new key when one nears its budget (95% of the limit), never over it', async () => {
    const { now, sleep } = clock();
    let made = 0;
    const pool = new KeyPool({ primary: 'k0', provision: async () => `k${++made}`, maxWaitMs: 0, now, sleep });
    const used = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const key = await pool.take(cards);
      used.set(key, (used.get(key) ?? 0) + 1);
    }
    expect([...used.values()].every((n) => n <= 57)).toBe(true);
    expect(pool.stats.keys).toBe(4);
    expect(pool.stats.waitedMs).toBe(0);
  });

  it('without the admin API, waits for the window to have room, and says so first (which limit, how long)', async () => {
    const { now, sleep } = clock();
    const waits: [number, string][] = [];
    const pool = new KeyPool({ primary: 'k0', maxWaitMs: 3_600_000, now, sleep, onWait: (ms, limit) => waits.push([ms, limit.bucket]) });
    for (let i = 0; i < 57; i++) await pool.take(cards);
    expect(now()).toBe(0);
    expect(waits).toEqual([]);
    await pool.take(cards);
    expect(now()).toBe(900_001);
    expect(waits).toEqual([[900_001, 'issueCard']]); // card issuance's own 60 per 15 min, not the 600
    expect(pool.stats.overBudget).toBe(0);
  });

  it('past --max-wait-s, sends over the budget and counts it (the 429s that follow are reported)', async () => {
    const { now, sleep } = clock();
    const pool = new KeyPool({ primary: 'k0', maxWaitMs: 0, now, sleep });
    for (let i = 0; i < 60; i++) await pool.take(cards);
    expect(pool.stats.overBudget).toBe(3);
    expect(now()).toBe(0);
  });
});

describe('progress while the run waits', () => {
  it('a log (no terminal) gets a line saying how long and for what', () => {
    let written = '';
    const progress = stderrProgress({ isTTY: false, write: (text: string) => (written += text) }, 60_000);
    progress.begin(3);
    progress.waiting?.(842_400, 'the rate limit of issueCard');
    progress.end();
    expect(written).toContain('contract-kit: waiting 843 s for room in the rate limit of issueCard\n');
  });
});
