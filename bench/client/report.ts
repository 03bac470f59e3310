// The bench's tables and verdict lines, from the measured numbers. Pure formatting: nothing runs here.
import type { ContenderResult } from '../lib/rounds.ts';
import { fmtBytes, fmtMicros, fmtRatio, max, median, min, table } from '../lib/stats.ts';
import { kinds, ops, type ClientContender, type Kind, type Op } from './contenders.ts';
import type { Size } from './sizes.ts';

export const LATENCY_TARGET = 1.25; // our client ≤ 1.25× bare openapi-fetch per call, on the stub transport
export const SIZE_TARGET = 4000; // our code ≤ 4 kB min+gzip, openapi-fetch excluded (kB = 1000 B: the stricter reading)

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

/** PASS when `kind` is within LATENCY_TARGET of bare openapi-fetch on every operation (stub transport). */
export function latencyVerdict(stub: Phase, kind: Kind, label: string): Verdict {
  const parts = ops.map((op) => {
    const ours = find(stub, kind, op)!.medianUs;
    const bare = find(stub, 'openapi-fetch', op)!.medianUs;
    const paired = pairedRatios(stub, kind, op);
    const pass = ours / bare <= LATENCY_TARGET;
    return `${pass ? 'PASS' : 'FAIL'} ${op}: ${fmtMicros(ours)} µs vs ${fmtMicros(bare)} µs = ${fmtRatio(ours / bare)} (same-round ratios ${fmtRatio(min(paired))}–${fmtRatio(max(paired))}, median ${fmtRatio(median(paired))})`;
  });
  const pass = parts.every((p) => p.startsWith('PASS'));
  return {
    name: `latency ${kind}`,
    pass,
    line: `VERDICT latency${label}: ${kind} ≤ ${LATENCY_TARGET}× bare openapi-fetch per call on the stub fetch → ${pass ? 'PASS' : 'FAIL'}\n  ${parts.join('\n  ')}`,
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
    ['bundle', 'minified', 'min+gzip'],
    sizes.map((s) => [s.name, fmtBytes(s.minified), fmtBytes(s.gzipped)]),
  );
}

export function sizeVerdict(ours: Size): Verdict {
  const pass = ours.gzipped <= SIZE_TARGET;
  return {
    name: 'size',
    pass,
    line: `VERDICT size: our code ≤ ${SIZE_TARGET} B min+gzip (openapi-fetch excluded) → ${pass ? 'PASS' : 'FAIL'}: ${ours.gzipped} B min+gzip (${ours.minified} B minified)`,
  };
}
