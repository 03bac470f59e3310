// The bench's tables and verdict lines, from the measured numbers. Pure formatting: nothing runs here.
import type { ContenderResult } from '../lib/rounds.ts';
import { fmtBytes, fmtMicros, fmtRatio, max, median, min, table } from '../lib/stats.ts';
import { kinds, ops, type ClientContender, type Kind, type Op } from './contenders.ts';
import type { Size } from './sizes.ts';

/** Issue 25: our client ≤ 1.25× bare openapi-fetch per call on the stub transport, ≤ 1.10× over loopback HTTP. */
export const LATENCY_TARGETS = { stub: 1.25, http: 1.1 } as const;

export interface Phase {
  transport: 'stub' | 'http';
  calls: number;
  results: (ContenderResult & Pick<ClientContender, 'kind' | 'op'>)[];
}

export interface Verdict {
  name: string;
  pass: boolean;
  line: string;
}

const find = (phase: Phase, kind: Kind, op: Op) => phase.results.find((r) => r.kind === kind && r.op === op);
const signed = (us: number) => `${us >= 0 ? '+' : ''}${fmtMicros(us)}`;
const range = (values: number[]) => `${fmtMicros(min(values))}–${fmtMicros(max(values))}`;

/** `kind`'s time over openapi-fetch's in the same round: paired, so a slow round slows both. */
function pairedRatios(phase: Phase, kind: Kind, op: Op): number[] {
  const bare = find(phase, 'openapi-fetch', op)!.rounds;
  return find(phase, kind, op)!.rounds.map((v, i) => v / bare[i]!);
}

export function latencyTable(phases: Phase[]): string {
  const rows: string[][] = [];
  for (const phase of phases) {
    for (const op of ops) {
      const reference = find(phase, 'openapi-fetch', op)!.medianUs;
      for (const kind of kinds) {
        const r = find(phase, kind, op);
        if (!r) continue;
        rows.push([
          `${kind} · ${op}`,
          `${phase.transport} ×${phase.calls}`,
          fmtMicros(r.medianUs),
          range(r.rounds),
          fmtRatio(r.medianUs / reference),
          kind === 'openapi-fetch' ? '' : signed(r.medianUs - reference),
        ]);
      }
    }
  }
  return table(['contender', 'transport', 'median µs/call', 'range (round min–max)', 'vs openapi-fetch', 'Δ µs'], rows);
}

/**
 * PASS when `kind` is within its transport's target of bare openapi-fetch on every operation. The ratio
 * judged is the median of same-round ratios (a slow round slows both); the ratio of medians is shown beside.
 */
export function latencyVerdict(phase: Phase, kind: Kind, label: string): Verdict {
  const target = LATENCY_TARGETS[phase.transport];
  const parts = ops.map((op) => {
    const ours = find(phase, kind, op)!.medianUs;
    const bare = find(phase, 'openapi-fetch', op)!.medianUs;
    const paired = pairedRatios(phase, kind, op);
    const judged = median(paired);
    const pass = judged <= target;
    return `${pass ? 'PASS' : 'FAIL'} ${op}: median of same-round ratios ${fmtRatio(judged)} (rounds ${fmtRatio(min(paired))}–${fmtRatio(max(paired))}; medians ${fmtMicros(ours)} µs vs ${fmtMicros(bare)} µs = ${fmtRatio(ours / bare)})`;
  });
  const pass = parts.every((p) => p.startsWith('PASS'));
  return {
    name: `latency ${phase.transport} ${kind}`,
    pass,
    line: `VERDICT latency ${phase.transport}${label}: ${kind} ≤ ${target.toFixed(2)}× bare openapi-fetch per call (${phase.transport === 'stub' ? 'stub fetch' : 'loopback HTTP'}) → ${pass ? 'PASS' : 'FAIL'}\n  ${parts.join('\n  ')}`,
  };
}

export function memoryTable(rows: { name: string; bytes: number }[], calls: number): string {
  return table(
    ['contender (stub, first thing in the process)', `heap held after ${calls} calls + full GC, per call`],
    rows.map((r) => [r.name, `${Math.round(r.bytes).toLocaleString('en-US')} B`]),
  );
}

export function breakdownTable(results: ContenderResult[]): string {
  const reference = results[0]!.medianUs;
  return table(
    ['openapi-fetch POST +', 'median µs/call', 'range (round min–max)', 'vs openapi-fetch', 'Δ µs'],
    results.map((r, i) => [r.name, fmtMicros(r.medianUs), range(r.rounds), fmtRatio(r.medianUs / reference), i === 0 ? '' : signed(r.medianUs - reference)]),
  );
}

export function sizesTable(sizes: Size[]): string {
  return table(
    ['bundle', 'minified', 'min+gzip', 'budget (min+gzip)'],
    sizes.map((s) => [s.name, fmtBytes(s.minified), fmtBytes(s.gzipped), s.budget === undefined ? '' : `≤ ${s.budget.toLocaleString('en-US')} B`]),
  );
}

/** One verdict per row with a budget: its min+gzip bytes against it. */
export function sizeVerdicts(sizes: Size[]): Verdict[] {
  return sizes.flatMap((s) => {
    if (s.budget === undefined) return [];
    const pass = s.gzipped <= s.budget;
    const margin = s.budget - s.gzipped;
    return [{
      name: `size ${s.name}`,
      pass,
      line: `VERDICT size: ${s.name} ≤ ${s.budget.toLocaleString('en-US')} B min+gzip → ${pass ? 'PASS' : 'FAIL'}: ${s.gzipped.toLocaleString('en-US')} B (${margin >= 0 ? `${margin} B under` : `${-margin} B over`}; ${s.minified.toLocaleString('en-US')} B minified)`,
    }];
  });
}
