// One measuring phase, in its own process (run.ts forks it with --expose-gc): the contenders over one
// transport, or the breakdown. Its argument is a PhaseConfig as JSON; it sends one `{ type: 'result' }`
// message with a PhaseResult and exits. Progress goes to stderr.
import { pathToFileURL } from 'node:url';
import { retainedPerCall } from '../lib/memory.ts';
import { cpuClock, runRounds, type ContenderResult } from '../lib/rounds.ts';
import { breakdownContenders } from './breakdown.ts';
import { contenders, httpTransport, stubTransport, type ClientFactory, type Kind, type Op } from './contenders.ts';

export interface PhaseConfig {
  phase: 'stub' | 'http' | 'breakdown';
  baseUrl: string;
  rounds: number;
  calls: number;
  warmupCalls: number;
  /** ms this phase may take before it stops with an error. */
  budgetMs: number;
  /** Path of another build's index.ts/js exporting createPaymentsClient. */
  candidate?: string | undefined;
  /** `wall` (latency, default) or `cpu` (this process's CPU time: cost, robust to other processes' load). */
  clock?: 'wall' | 'cpu' | undefined;
}

export interface PhaseResult {
  results: (ContenderResult & { kind?: Kind; op?: Op })[];
  /** Heap held per POST call after a full GC, measured first thing (stub phase only). */
  memory: { name: string; bytes: number }[];
}

process.on('disconnect', () => process.exit(1)); // the orchestrator is gone: stop measuring

const config = JSON.parse(process.argv[2] ?? '{}') as PhaseConfig;
const progress = (message: string) => process.stderr.write(`[bench] ${config.phase}: ${message}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
const deadline = performance.now() + config.budgetMs;
const clock = config.clock === 'cpu' ? cpuClock : undefined;
const rounds = { rounds: config.rounds, calls: config.calls, warmupCalls: config.warmupCalls, deadline, between: gc, progress, clock };

async function clientPhase(): Promise<PhaseResult> {
  const candidate = config.candidate
    ? ((await import(pathToFileURL(config.candidate).href)) as { createPaymentsClient: ClientFactory }).createPaymentsClient
    : undefined;
  const list = contenders(config.phase === 'stub' ? stubTransport : httpTransport, config.baseUrl, candidate);
  for (const c of list) await c.verify();
  progress(`${list.length} contenders verified; ${config.rounds} rounds × ${config.calls} calls each`);
  const memory: PhaseResult['memory'] = [];
  if (config.phase === 'stub' && gc) {
    // First, while nothing else is pending: what one call leaves on the heap (held until its timers fire).
    for (const c of list.filter((c) => c.op === 'POST transfer' && c.kind !== 'bare fetch')) {
      await retainedPerCall(c.call, 500, undefined); // warm
      memory.push({ name: c.name, bytes: (await retainedPerCall(c.call, config.calls, gc))! });
    }
  }
  const results = await runRounds(list, rounds);
  return { results: results.map((r, i) => ({ ...r, kind: list[i]!.kind, op: list[i]!.op })), memory };
}

async function breakdownPhase(): Promise<PhaseResult> {
  progress(`${config.rounds} rounds × ${config.calls} calls each`);
  return { results: await runRounds(breakdownContenders(stubTransport, config.baseUrl), rounds), memory: [] };
}

try {
  const result = config.phase === 'breakdown' ? await breakdownPhase() : await clientPhase();
  process.send!({ type: 'result', result }, () => process.exit(0));
} catch (err) {
  progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
}
