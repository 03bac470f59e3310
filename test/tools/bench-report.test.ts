// The PostgreSQL ceiling verdict says how much of the ceiling this machine's cores could give at the row's
// measured CPU per request (the load generator's included): pgbench's ceiling counts none of the sandbox's CPU,
// so that bound tells an unreachable share from a slow arrangement of waits. Rows of known shape hold it.
import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../bench/sandbox/ops.ts';
import { cpuBound, postgresVerdict, rowKey, type Rows } from '../../bench/sandbox/report.ts';

/** A measured round: `rps` answers a second, CPU as % of one core. */
const round = (rps: number, serverCpu: number, dbCpu: number, loadgenCpu: number): LoadResult =>
  ({ rps, serverCpu, dbCpu, loadgenCpu, machineCpu: 0, p50: 1, p90: 2, p99: 3, max: 4, measured: rps, windowMs: 1000, sent: rps, ok: rps, errors: 0, errorSamples: [], used: [], exhausted: false }) as LoadResult;

describe('the ceiling verdict\'s CPU bound', () => {
  // 2,000 req/s with 80% + 80% + 10% of a core: 850 µs a request; two busy cores give 2,353 req/s at most.
  const rows: Rows = new Map([
    [rowKey('transfer-new', 'sandbox-postgres'), [round(2000, 80, 80, 10), round(1000, 40, 40, 5), round(4000, 160, 160, 20)]],
    [rowKey('transfer-new', 'prism'), [round(1500, 100, 0, 10)]],
  ]);

  it('is the cores over the median CPU per request, the load generator counted', () => {
    const bound = cpuBound(rows, 'transfer-new', 'sandbox-postgres', 2);
    expect(bound.usPerRequest).toBeCloseTo(850, 6);
    expect(bound.loadgenUs).toBeCloseTo(50, 6);
    expect(bound.rps).toBeCloseTo(2e6 / 850, 6);
  });

  it('is printed beside the share of the ceiling, as a share of it too', () => {
    const verdict = postgresVerdict(rows, 'sandbox-postgres', { 'transfer-new': { tps: 3000, roundTrips: 4, statements: 5, writes: 4 } }, 2);
    const line = JSON.stringify(verdict);
    expect(line).toContain('2,000 vs 3,000 tps = 0.67×');
    expect(line).toContain('850 µs, of it the load generator 50), 2 busy cores give at most 2,353 req/s = 0.78× the ceiling');
  });
});
