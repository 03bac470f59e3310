// The crash loop of `chaos --crash-every S`: every S seconds one sandbox process, each instance in turn, is
// killed with SIGKILL and started again on its own port (its clients' URLs stay valid); with PostgreSQL, the
// database server is restarted once in immediate mode (`pg_ctl restart -m immediate`: no shutdown
// checkpoint, recovery from the WAL on start) in place of the second kill. The chaos harness reads what is
// down through `crashes` (packages/sandbox/test/reliability/chaos.ts).
import type { Crashes } from '../../packages/sandbox/test/reliability/chaos.ts';
import type { ChildSandbox } from '../../packages/sandbox/test/reliability/child-sandbox.ts';
import type { ThrowawayPostgres } from './postgres.ts';
import { log } from './steps.ts';

export interface CrashLoopOptions {
  /** The running instances; an instance restarted replaces its entry (so the caller stops the live one). */
  children: ChildSandbox[];
  crashEvery: number;
  restartChild(port: number): Promise<ChildSandbox>;
  pg?: ThrowawayPostgres | undefined;
}

interface Instance {
  kills: number;
  up: Promise<void>;
  down: boolean;
}

export function startCrashLoop(options: CrashLoopOptions): { crashes: Crashes; stop(): Promise<void>; summary(): string } {
  const { children, pg } = options;
  const instances = new Map<string, Instance>(children.map((c) => [new URL(c.url).origin, { kills: 0, up: Promise.resolve(), down: false }]));
  const of = (origin: string) => instances.get(origin) ?? { kills: 0, up: Promise.resolve(), down: false };
  const downtimes: number[] = [];
  let databaseRestarts = 0;
  let databaseUp = Promise.resolve();
  let databaseMs = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) => new Promise<void>((resolve) => ((wake = resolve), setTimeout(resolve, ms)));

  async function crash(index: number): Promise<void> {
    const child = children[index]!;
    const url = new URL(child.url);
    const instance = of(url.origin);
    const started = performance.now();
    let ready!: () => void;
    instance.up = new Promise((resolve) => (ready = resolve));
    instance.down = true;
    instance.kills++;
    await child.kill();
    try {
      children[index] = await options.restartChild(Number(url.port));
    } finally {
      instance.down = false;
      ready();
    }
    downtimes.push(performance.now() - started);
    log(`  crash ${downtimes.length}: pid ${child.pid} SIGKILLed, pid ${children[index]!.pid} listening on ${url.origin} after ${Math.round(performance.now() - started)} ms`);
  }

  async function restartDatabase(): Promise<void> {
    const started = performance.now();
    databaseRestarts++;
    let ready!: () => void;
    databaseUp = new Promise((resolve) => (ready = resolve));
    await pg!.restart('immediate').finally(ready);
    databaseMs = performance.now() - started;
    log(`  database: pg_ctl restart -m immediate, accepting connections after ${Math.round(databaseMs)} ms`);
  }

  const loop = (async () => {
    for (let tick = 1; !stopped; tick++) {
      await sleep(options.crashEvery * 1000);
      if (stopped) break;
      if (pg && tick === 2 && databaseRestarts === 0) await restartDatabase();
      else await crash(tick % children.length);
    }
  })();
  loop.catch(() => {}); // its failure is stop()'s to report

  return {
    crashes: {
      count: (origin) => of(origin).kills,
      down: (origin) => of(origin).down,
      whenUp: (origin) => of(origin).up,
      databaseRestarted: () => databaseRestarts > 0,
      whenDatabaseUp: () => databaseUp,
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
    summary() {
      const sorted = [...downtimes].sort((a, b) => a - b);
      const median = sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]!) : 0;
      return (
        `Crashes: ${downtimes.length} sandbox process(es) SIGKILLed and restarted (every ${options.crashEvery} s, each instance in turn; ` +
        `down ${median} ms median, ${Math.round(sorted.at(-1) ?? 0)} ms max)` +
        (pg ? `; database server restarted in immediate mode ${databaseRestarts} time(s) (${Math.round(databaseMs)} ms)` : '')
      );
    },
  };
}
