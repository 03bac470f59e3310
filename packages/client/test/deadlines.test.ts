// The client's one timer for every attempt's timeout (src/deadlines.ts): each attempt still expires at its
// own deadline, in virtual time and in real time, and nothing stays armed (or holds the process) after
// the last attempt ends.
import { describe, expect, it } from 'vitest';
import { TIMEOUT, deadlines, type SetTimer } from '../src/deadlines.ts';

/** Virtual time: `advance(ms)` fires every armed timer that falls due, in order, like the runtime would. */
function virtualTime() {
  let now = 0;
  const armed = new Set<{ at: number; fire: () => void }>();
  const setTimer: SetTimer = (ms, fire) => {
    const timer = { at: now + ms, fire };
    armed.add(timer);
    return () => armed.delete(timer);
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (let next; (next = [...armed].sort((a, b) => a.at - b.at)[0]) && next.at <= until; ) {
      armed.delete(next);
      now = next.at;
      next.fire();
    }
    now = until;
  };
  /** Time spent in synchronous work (an abort listener): the clock moves, no timer fires. */
  const spend = (ms: number) => void (now += ms);
  return { setTimer, now: () => now, advance, spend, armed };
}

describe('deadlines: one timer, every attempt on time', () => {
  it('attempts started at different times each expire at their own deadline, in order', () => {
    const time = virtualTime();
    const watch = deadlines(100, time.setTimer, time.now);
    const expired: string[] = [];
    const attempt = (name: string) => (reason: unknown) => expired.push(`${name}@${time.now()}${reason === TIMEOUT ? '' : ' (wrong reason)'}`);
    const [a, b, c] = [attempt('a'), attempt('b'), attempt('c')];
    watch.watch(a);
    time.advance(10);
    watch.watch(b);
    time.advance(10);
    watch.watch(c);
    expect(time.armed.size).toBe(1); // one timer for three attempts
    time.advance(85); // t = 105
    expect(expired).toEqual(['a@100']);
    watch.release(b); // b's answer came at 105: it never expires
    time.advance(100);
    expect(expired).toEqual(['a@100', 'c@120']);
    expect(time.armed.size).toBe(0);
  });

  it('an expiry that starts a new attempt does not delay the older ones', () => {
    const time = virtualTime();
    const watch = deadlines(100, time.setTimer, time.now);
    const expired: string[] = [];
    const late = () => expired.push(`late@${time.now()}`);
    const b = () => expired.push(`b@${time.now()}`);
    watch.watch(() => {
      expired.push(`a@${time.now()}`);
      watch.watch(late); // e.g. a retry started from an abort listener, at t = 100
    });
    time.advance(10);
    watch.watch(b);
    time.advance(300);
    expect(expired).toEqual(['a@100', 'b@110', 'late@200']);
  });

  it("an expiry's abort listeners that take time: the deadlines that passed meanwhile expire with it, and no timer is armed in the past", () => {
    const time = virtualTime();
    const delays: number[] = [];
    const watch = deadlines(100, (ms, fire) => (delays.push(ms), time.setTimer(ms, fire)), time.now);
    const expired: string[] = [];
    watch.watch(() => {
      expired.push(`a@${time.now()}`);
      time.spend(10); // a's abort listeners run 10 ms: b's deadline (105) passes meanwhile
    });
    time.advance(5);
    watch.watch(() => expired.push(`b@${time.now()}`));
    time.advance(95); // t = 100: a expires
    expect(expired).toEqual(['a@100', 'b@110']);
    expect(delays.filter((ms) => ms < 0)).toEqual([]);
  });

  it('the timer is stopped when the last attempt ends (an injected timer cannot be left idle)', () => {
    const time = virtualTime();
    const watch = deadlines(100, time.setTimer, time.now);
    const expire = () => {
      throw new Error('released, must not expire');
    };
    watch.watch(expire);
    watch.release(expire);
    expect(time.armed.size).toBe(0);
    watch.watch(expire); // the next attempt arms it again
    expect(time.armed.size).toBe(1);
    watch.release(expire);
    time.advance(1000);
  });

  it('real time: an attempt not released expires with TIMEOUT; a released one never does', async () => {
    // A virtual `now` that never moves, as tests pass for the retry deadline: real timers must not read it.
    const watch = deadlines(20, undefined, () => 0);
    expect(await new Promise((resolve) => watch.watch(resolve))).toBe(TIMEOUT);
    let fired = false;
    const released = () => (fired = true);
    watch.watch(released);
    watch.release(released);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(fired).toBe(false);
  }, 10_000);
});
