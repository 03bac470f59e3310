// Fixed-window rate-limit counters of the embedded store, in the process's memory rather than in SQLite: in
// the database, every request (a GET balance included) would cost a write and a share of a COMMIT; here, a
// Map lookup. Given up on purpose: counts start over when the process restarts, and two processes on one
// SQLite file count separately (shared limits are PostgreSQL's). A rollback does not take a hit back.

/** A bucket's windows older than this, relative to a new window of the same bucket, are dropped. */
const KEEP_MS = 86_400_000;
/** Every this many new windows, windows older than KEEP_MS before the newest one seen are swept. */
const SWEEP_EVERY = 10_000;

export class RateCounters {
  /** bucket → window start (epoch ms) → count */
  private readonly buckets = new Map<string, Map<number, number>>();
  private newWindows = 0;
  private newest = 0;

  /** Counts one request in `bucket`'s window starting at `windowStart`; returns the count so far. */
  hit(bucket: string, windowStart: number): number {
    if (!Number.isSafeInteger(windowStart)) throw new TypeError(`windowStart must be an integer (epoch ms), got ${windowStart}`);
    let windows = this.buckets.get(bucket);
    if (!windows) this.buckets.set(bucket, (windows = new Map()));
    const count = (windows.get(windowStart) ?? 0) + 1;
    windows.set(windowStart, count);
    if (count === 1) this.opened(windows, windowStart);
    return count;
  }

  /** Buckets held (for tests of the memory bound). */
  size(): number {
    return this.buckets.size;
  }

  /** A new window: the bucket's day-old windows go, and now and then every bucket's. */
  private opened(windows: Map<number, number>, windowStart: number): void {
    for (const start of windows.keys()) if (start < windowStart - KEEP_MS) windows.delete(start);
    this.newest = Math.max(this.newest, windowStart);
    if (++this.newWindows % SWEEP_EVERY !== 0) return;
    for (const [bucket, perBucket] of this.buckets) {
      for (const start of perBucket.keys()) if (start < this.newest - KEEP_MS) perBucket.delete(start);
      if (perBucket.size === 0) this.buckets.delete(bucket);
    }
  }
}
