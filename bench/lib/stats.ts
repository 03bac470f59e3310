// Small statistics and a plain-text table for the benches. No dependencies, so any bench can reuse it.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function min(values: readonly number[]): number {
  return values.length ? Math.min(...values) : Number.NaN;
}

export function max(values: readonly number[]): number {
  return values.length ? Math.max(...values) : Number.NaN;
}

/** The first item whose key most items share, and how many share it (items: at least one). */
export function mostShared<T>(items: readonly T[], key: (item: T) => string): { item: T; count: number } {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  const [most, count] = [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  return { item: items.find((item) => key(item) === most)!, count };
}

/** Relative spread of the values around their median: (max - min) / median. */
export function spread(values: readonly number[]): number {
  return (max(values) - min(values)) / median(values);
}

/** `12.3` for microseconds: one decimal below 100, none above. */
export function fmtMicros(us: number): string {
  if (!Number.isFinite(us)) return '-';
  return us < 100 ? us.toFixed(1) : us.toFixed(0);
}

export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : '-';
}

export function fmtBytes(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} B (${(bytes / 1024).toFixed(2)} KiB)`;
}

export type Align = 'left' | 'right';

/** A fixed-width table: a header row, a rule, then the rows. Numbers are right-aligned unless told. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => ((align[i] ?? (i === 0 ? 'left' : 'right')) === 'left' ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
