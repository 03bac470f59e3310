// Staying within the documented rate limit (the spec's `x-rate-limit`: 600 requests per 15 minutes per key,
// and an operation's own stricter limit, e.g. card issuance). Every request sent with the run's key is
// counted against each bucket it falls in, over a sliding window (the provider does not say which kind of
// window it uses; a sliding count is never more permissive than a fixed one). When the next request would
// pass a bucket's budget, the pool either takes a fresh key (with --admin-token: keys are provisioned through
// the admin API, all in the kit's organization, so idempotency records stay shared) or waits until the window
// has room, up to --max-wait-s; past that it sends anyway, and the 429s that follow are reported.
import { isObject, resolvePointer, type Json } from '@payments/spec';
import type { ApiModel, OperationModel } from './spec-model.ts';

export interface RateLimit {
  /** `default` or the operationId of a stricter limit. */
  bucket: string;
  limit: number;
  windowMs: number;
}

export function rateLimitsOf(api: ApiModel, op: OperationModel | undefined): RateLimit[] {
  const read = (value: Json | undefined, bucket: string): RateLimit | undefined =>
    isObject(value) && typeof value.limit === 'number' && typeof value.windowSeconds === 'number'
      ? { bucket, limit: value.limit, windowMs: value.windowSeconds * 1000 }
      : undefined;
  const limits: RateLimit[] = [];
  const overall = read(api.doc['x-rate-limit'] as Json | undefined, 'default');
  if (overall) limits.push(overall);
  if (op) {
    const own = resolvePointer(api.doc, op.pointer);
    const stricter = isObject(own) ? read(own['x-rate-limit'], op.operationId) : undefined;
    if (stricter) limits.push(stricter);
  }
  return limits;
}

interface PooledKey {
  key: string;
  /** Send times per bucket, oldest first. */
  sent: Map<string, number[]>;
}

export interface PacingStats {
  keys: number;
  waitedMs: number;
  /** Requests sent although a budget was spent (the wait would have passed --max-wait-s). */
  overBudget: number;
}

export class KeyPool {
  readonly #keys: PooledKey[];
  readonly #provision: (() => Promise<string>) | undefined;
  readonly #maxWaitMs: number;
  readonly #paced: boolean;
  readonly #margin: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #onWait: ((ms: number, limit: RateLimit) => void) | undefined;
  readonly stats: PacingStats = { keys: 1, waitedMs: 0, overBudget: 0 };
  #queue: Promise<unknown> = Promise.resolve();

  /** `onWait`: told before each wait for room, with the limit waited on (progress: a long run must say why it sits still). */
  constructor(options: {
    primary: string;
    provision?: () => Promise<string>;
    maxWaitMs: number;
    /** false: a target that enforces no rate limit (Prism's mock): every take answers the primary key at once. */
    paced?: boolean;
    margin?: number;
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
    onWait?: (ms: number, limit: RateLimit) => void;
  }) {
    this.#keys = [{ key: options.primary, sent: new Map() }];
    this.#provision = options.provision;
    this.#maxWaitMs = options.maxWaitMs;
    this.#paced = options.paced ?? true;
    this.#margin = options.margin ?? 0.95;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#onWait = options.onWait;
  }

  get primary(): string {
    return this.#keys[0]!.key;
  }

  /** Whether `key` is one of the pool's (the run's own keys, not a probe's foreign or revoked one). */
  owns(key: string): boolean {
    return this.#keys.some((k) => k.key === key);
  }

  /** A key with room in every bucket of `limits`, counted as used. Serialized: concurrent takers queue. */
  take(limits: RateLimit[]): Promise<string> {
    if (!this.#paced) return Promise.resolve(this.primary);
    const next = this.#queue.then(() => this.#take(limits));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #take(limits: RateLimit[]): Promise<string> {
    for (let round = 0; round < 1000; round++) {
      const now = this.#now();
      const free = this.#keys.find((k) => limits.every((l) => this.#used(k, l, now) < Math.floor(l.limit * this.#margin)));
      if (free) return this.#count(free, limits, now);
      if (this.#provision) {
        const key = { key: await this.#provision(), sent: new Map<string, number[]>() };
        this.#keys.push(key);
        this.stats.keys++;
        return this.#count(key, limits, now);
      }
      const { wait, limit } = this.#keys.map((k) => this.#waitFor(k, limits, now)).reduce((a, b) => (b.wait < a.wait ? b : a));
      if (this.stats.waitedMs + wait > this.#maxWaitMs) {
        this.stats.overBudget++;
        return this.#count(this.#keys[0]!, limits, now);
      }
      this.stats.waitedMs += wait;
      if (limit) this.#onWait?.(wait, limit);
      await this.#sleep(wait);
    }
    throw new Error('pacing: no key became free (bounded loop)');
  }

  #used(k: PooledKey, l: RateLimit, now: number): number {
    const list = k.sent.get(l.bucket) ?? [];
    while (list.length > 0 && list[0]! <= now - l.windowMs) list.shift();
    return list.length;
  }

  /** How long until `k` has room in every bucket, and the limit that takes longest. */
  #waitFor(k: PooledKey, limits: RateLimit[], now: number): { wait: number; limit?: RateLimit } {
    let found: { wait: number; limit?: RateLimit } = { wait: 0 };
    for (const l of limits) {
      const list = k.sent.get(l.bucket) ?? [];
      const budget = Math.floor(l.limit * this.#margin);
      const wait = list.length >= budget ? list[list.length - budget]! + l.windowMs - now + 1 : 0;
      if (wait > found.wait) found = { wait, limit: l };
    }
    return found;
  }

  #count(k: PooledKey, limits: RateLimit[], now: number): string {
    for (const l of limits) {
      const list = k.sent.get(l.bucket) ?? [];
      list.push(now);
      k.sent.set(l.bucket, list);
    }
    return k.key;
  }
}
