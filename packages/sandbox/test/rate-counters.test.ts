// The embedded store's in-memory rate-limit counters: counts per bucket and window, and a memory bound (windows of buckets that are never hit again are swept once they are a day old).
import { expect, it } from 'vitest';
import { RateCounters } from '../src/store/rate-counters.ts';

const W = 1_790_000_000_000;
const DAY = 86_400_000;

it('counts per bucket and window', () => {
  const counters = new RateCounters();
  expect([counters.hit('a', W), counters.hit('a', W), counters.hit('b', W), counters.hit('a', W + 900_000)]).toEqual([1, 2, 1, 1]);
  expect(counters.hit('a', W)).toBe(3);
  expect(() => counters.hit('a', 1.5)).toThrow(TypeError);
});

it('forgets day-old windows: of the bucket at its next window, of every bucket now and then', () => {
  const counters = new RateCounters();
  counters.hit('once', W); // never hit again
  counters.hit('a', W);
  counters.hit('a', W + DAY + 1); // a's own day-old window goes at once
  expect(counters.hit('a', W)).toBe(1);
  expect(counters.size()).toBeGreaterThanOrEqual(2);
  // 10,000 new windows later, a day past W, the sweep has removed 'once' (and every bucket left empty).
  for (let i = 0; i < 10_000; i++) counters.hit(`k${i}`, W + 2 * DAY);
  expect(counters.hit('once', W)).toBe(1);
  expect(counters.size()).toBe(10_002);
});
