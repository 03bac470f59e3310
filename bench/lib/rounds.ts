// Alternating rounds: every round runs every contender for `calls` sequential awaited calls and records
// the mean time per call of that block. The order rotates by one each round and runs backwards every
// other round, so no contender always runs first, and none always runs right after the same one (what a
// block leaves behind, garbage or pending timers, lands on its successor). A contender's result is the
// median of its round values, which shrugs off the odd round hit by a GC or a noisy neighbour; min/max
// show how noisy it was.
import { median } from './stats.ts';

export interface Contender {
  /** Unique within one runRounds call. */
  name: string;
  /** One call, awaited. It should throw when the answer is not the expected one. */
  call: () => Promise<unknown>;
}

export interface RoundsOptions {
  rounds: number;
  calls: number;
  /** Calls per contender before the first measured round (JIT warm-up, connection set-up). */
  warmupCalls: number;
  /** performance.now() value after which the run gives up instead of starting another block. */
  deadline: number;
  /** Run between blocks (e.g. a full GC) so one contender's garbage is not collected on another's clock. */
  between?: (() => void) | undefined;
  progress?: ((message: string) => void) | undefined;
  /** What a block is timed with, in ms (default: wall time, performance.now). See `cpuClock`. */
  clock?: (() => number) | undefined;
}

/**
 * This process's CPU time (user + system, all its threads: GC helpers included), in ms. On a machine
 * shared with other busy processes, wall time counts the waits for a CPU; CPU time does not, so same-round
 * ratios stay readable. It measures cost, not latency: the time a call spends waiting (on a server, on I/O)
 * is not in it.
 */
export const cpuClock = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export interface ContenderResult {
  name: string;
  /** Mean µs per call in each round, in round order. */
  rounds: number[];
  medianUs: number;
}

async function block(contender: Contender, calls: number, clock: () => number): Promise<number> {
  const started = clock();
  for (let i = 0; i < calls; i++) await contender.call();
  return ((clock() - started) * 1000) / calls;
}

function checkDeadline(deadline: number, what: string): void {
  if (performance.now() > deadline) throw new Error(`time budget exceeded before ${what}; lower --rounds or the call counts`);
}

export async function runRounds(contenders: readonly Contender[], options: RoundsOptions): Promise<ContenderResult[]> {
  const { rounds, calls, warmupCalls, deadline, between, progress } = options;
  const clock = options.clock ?? (() => performance.now());
  for (const contender of contenders) {
    checkDeadline(deadline, `warming up ${contender.name}`);
    between?.();
    await block(contender, warmupCalls, clock);
  }
  progress?.(`warmed up ${contenders.length} contenders × ${warmupCalls} calls`);

  const perRound = contenders.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const roundStarted = performance.now();
    for (let j = 0; j < contenders.length; j++) {
      const n = contenders.length;
      const index = r % 2 === 0 ? (r + j) % n : (((r - j) % n) + n) % n;
      const contender = contenders[index]!;
      checkDeadline(deadline, `round ${r + 1}, ${contender.name}`);
      between?.();
      perRound[index]!.push(await block(contender, calls, clock));
    }
    progress?.(`round ${String(r + 1).padStart(2)}/${rounds} done (${Math.round(performance.now() - roundStarted)} ms)`);
  }
  return contenders.map((c, i) => ({ name: c.name, rounds: perRound[i]!, medianUs: median(perRound[i]!) }));
}
