// The per-attempt timeouts of one client, on one timer. Every attempt of a client has the same timeoutMs,
// so attempts expire in the order they started: one timer, armed for the oldest attempt in flight, serves
// them all and is re-armed for the next oldest when it fires. A setTimeout and clearTimeout per attempt
// cost about a tenth of a stub call (issue 25, bench/client): Node builds and drops a timer list each time.

/** Starts a timer and returns its cancel: the per-attempt timeout's clock (virtual in tests). */
export type SetTimer = (ms: number, onTimeout: () => void) => () => void;

/** The reason an attempt's signal aborts with when its time is up (one object: a timeout is recognized by it). */
export const TIMEOUT = new DOMException('timeout', 'TimeoutError');

/** Each attempt's timeout: `watch(expire)` calls `expire(TIMEOUT)` once timeoutMs have passed, unless `release(expire)` came first. */
export interface Deadlines {
  watch(expire: (reason: unknown) => void): void;
  release(expire: (reason: unknown) => void): void;
}

/**
 * With `setTimer` (virtual time), its timer and `now`, which tests pair with it. Without, the runtime's
 * setTimeout and a monotonic clock (the injectable `now` of the retry deadline may be virtual or frozen).
 * A Node or Bun timer stays armed while no attempt is in flight, unref'd so that it does not keep the
 * process alive, and the next attempt reuses it (`refable`). Elsewhere (a browser, Deno, an injected
 * `setTimer`) the timer is stopped when the last attempt ends. While an attempt is in flight the timer
 * holds the process: a stalled fetch may hold no other handle, and the call must end.
 */
export function deadlines(timeoutMs: number, setTimer: SetTimer | undefined, now: () => number): Deadlines {
  const clock = setTimer ? now : () => performance.now();
  const pending = new Map<(reason: unknown) => void, number>(); // expire → deadline, in the order the attempts started: the order of their deadlines
  let stop: (() => void) | undefined; // stops the armed timer
  let refable: { ref(): void; unref(): void } | undefined; // the armed timer, where it can let the process exit (Node, Bun)

  /** Arms the timer for the oldest attempt in flight, if there is one and no timer is armed. */
  const armForOldest = () => {
    const [oldest] = pending.values(); // its deadline
    if (oldest === undefined || stop) return;
    const ms = Math.max(0, oldest - clock()); // never a time already past (Node warns of a negative delay)
    if (setTimer) return void (stop = setTimer(ms, fire));
    const timer = setTimeout(fire, ms);
    stop = () => clearTimeout(timer);
    if ((timer as { unref?: unknown }).unref) refable = timer as unknown as typeof refable;
  };
  function fire() {
    stop = refable = undefined;
    for (const [expire, at] of pending) {
      if (at > clock()) break; // read anew: an expiry's abort listeners take time, and the next deadline may pass meanwhile
      pending.delete(expire);
      expire(TIMEOUT); // may start a new attempt: watch() then arms for the oldest, which is not that one
    }
    armForOldest();
  }

  return {
    watch(expire) {
      pending.set(expire, clock() + timeoutMs);
      // An armed timer fires no later than this deadline: it was set for an older one.
      if (stop) refable?.ref();
      else armForOldest();
    },
    release(expire) {
      if (pending.delete(expire) && !pending.size && stop) {
        if (refable) refable.unref();
        else (stop(), (stop = undefined));
      }
    },
  };
}
