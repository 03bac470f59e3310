// Client bench: per-call time of our client against bare openapi-fetch and a hand-made fetch, on a stub
// transport (pure client overhead) and on a real HTTP server in another process; then bundle sizes.
// Verdicts against issue 25's targets: our client ≤ 1.25× openapi-fetch on the stub and ≤ 1.10× over
// loopback HTTP (medians of same-round ratios), createPaymentsClient tree-shaken ≤ 4,000 B min+gzip and
// the whole entry point ≤ 4,500 B (sizes.ts).
// Run it through the task, which compiles packages/ first and exposes the GC:
//
//   node tools/launch.mjs bench-client [-- --rounds 15 --stub-calls 1000 ...]
//
// Options: --rounds N, --stub-calls N, --http-calls N, --warmup N (calls per contender before measuring),
// --transport stub|http|both, --breakdown auto|on|off (where our layer's time goes; auto = when the
// latency verdict FAILs), --breakdown-calls N, --candidate path/to/index.ts (another build of the
// client, e.g. a scratch copy with a fix, measured in the same rounds), --skip-sizes, --sizes-only (the
// bundle sizes and their verdicts alone: a second or two, no timing), --budget-s N (give
// up after N s), --strict (exit 1 when a verdict FAILs), --clock wall|cpu (wall: per-call latency, the
// default; cpu: the measuring process's CPU time per call, which other processes' load barely moves: use
// it on a busy machine, and read the HTTP rows as client-side cost, without the server's or the wire's
// time). Tables and verdicts on stdout, progress on stderr.
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { forkServer, runWorker, type ChildServer } from '../lib/processes.ts';
import type { PhaseConfig, PhaseResult } from './phase.ts';
import { breakdownTable, latencyTable, latencyVerdict, memoryTable, sizesTable, sizeVerdicts, type Phase, type Verdict } from './report.ts';
import { loadEsbuild, measureSizes } from './sizes.ts';

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = join(here, '..', '..', 'packages', 'client');
const STUB_BASE_URL = 'https://api.bench.invalid';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    'stub-calls': { type: 'string', default: '1000' },
    'http-calls': { type: 'string', default: '300' },
    warmup: { type: 'string' },
    transport: { type: 'string', default: 'both' },
    breakdown: { type: 'string', default: 'auto' },
    'breakdown-calls': { type: 'string', default: '500' },
    candidate: { type: 'string' },
    'skip-sizes': { type: 'boolean', default: false },
    'sizes-only': { type: 'boolean', default: false },
    'budget-s': { type: 'string', default: '300' },
    strict: { type: 'boolean', default: false },
    clock: { type: 'string', default: 'wall' },
  },
  allowPositionals: false,
});

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer (got ${value})`);
  return n;
}
const rounds = positive('rounds', args.rounds);
const stubCalls = positive('stub-calls', args['stub-calls']);
const httpCalls = positive('http-calls', args['http-calls']);
const breakdownCalls = positive('breakdown-calls', args['breakdown-calls']);
const warmup = args.warmup === undefined ? undefined : positive('warmup', args.warmup);
const budgetMs = positive('budget-s', args['budget-s']) * 1000;
if (!['stub', 'http', 'both'].includes(args.transport)) throw new Error('--transport must be stub, http or both');
if (!['auto', 'on', 'off'].includes(args.breakdown)) throw new Error('--breakdown must be auto, on or off');
if (args.clock !== 'wall' && args.clock !== 'cpu') throw new Error('--clock must be wall or cpu');
if (args['sizes-only'] && args['skip-sizes']) throw new Error('--sizes-only and --skip-sizes exclude each other');
const clock = args.clock;

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
/** Other processes' load skews every number: say how busy the machine was. */
const load = () => {
  const [one = 0] = loadavg();
  const busy = one > cpus().length * 0.5 ? ` — busy: other processes compete for the ${cpus().length} CPUs, expect noise` : '';
  return `load average (1 min) ${one.toFixed(2)}${busy}`;
};
const out = (text: string) => process.stdout.write(text);
const started = performance.now();
const deadline = started + budgetMs;
const verdicts: Verdict[] = [];
const candidate = args.candidate ? resolve(args.candidate) : undefined;
let server: ChildServer | undefined;

// Watchdog: whatever hangs, the run ends, and the server with it (each worker has its own time limit too).
const watchdog = setTimeout(() => {
  progress(`gave up after ${budgetMs / 1000 + 30} s`);
  if (server) process.kill(server.pid, 'SIGKILL');
  process.exit(1);
}, budgetMs + 30_000);
watchdog.unref();

/** One phase in a fresh process (bench/client/phase.ts), so no phase inherits another's timers or heap. */
function phase(name: PhaseConfig['phase'], baseUrl: string, calls: number): Promise<PhaseResult> {
  const budget = deadline - performance.now();
  if (budget <= 0) throw new Error(`time budget (--budget-s) used up before the ${name} phase`);
  const config: PhaseConfig = { phase: name, baseUrl, rounds, calls, warmupCalls: warmup ?? calls, budgetMs: budget, candidate, clock };
  return runWorker<PhaseResult>(join(here, 'phase.ts'), config, { timeoutMs: budget + 10_000, execArgv: ['--expose-gc'] });
}

async function clientPhase(name: 'stub' | 'http', baseUrl: string, calls: number): Promise<Phase> {
  const { results, memory } = await phase(name, baseUrl, calls);
  if (memory.length) out(`\nMemory\n\n${memoryTable(memory, calls)}\n`);
  return { transport: name, calls, results: results as Phase['results'] };
}

async function sizes(): Promise<void> {
  const esbuild = await loadEsbuild();
  if (!esbuild) {
    verdicts.push({ name: 'size', pass: false, line: 'VERDICT size: not measured: esbuild is not installed (pnpm install at the root)' });
    return;
  }
  progress(`sizes: bundling with esbuild ${esbuild.version}`);
  const measured = await measureSizes(esbuild, clientDir);
  out(`\nBundle sizes (esbuild ${esbuild.version}: esm, minify, platform neutral; gzip level 9)\n\n${sizesTable(measured)}\n`);
  verdicts.push(...sizeVerdicts(measured));
}

/** The per-call phases (stub, then loopback HTTP), their table and verdicts, and the breakdown when asked. */
async function latency(): Promise<void> {
  if (candidate) progress(`candidate: createPaymentsClient from ${candidate}`);
  const phases: Phase[] = [];
  if (args.transport !== 'http') phases.push(await clientPhase('stub', STUB_BASE_URL, stubCalls));
  if (args.transport !== 'stub') phases.push(await httpPhase());
  out(`\nPer-call time\n\n${latencyTable(phases)}\n`);
  for (const p of phases) {
    verdicts.push(latencyVerdict(p, 'our client', ''));
    if (candidate) verdicts.push({ ...latencyVerdict(p, 'candidate', ' (candidate, informational)'), name: 'candidate' });
  }
  // The breakdown takes the stub's rows apart: run it when the stub's verdict fails.
  const stubFailed = verdicts.some((v) => v.name === 'latency stub our client' && !v.pass);
  if (args.breakdown === 'on' || (args.breakdown === 'auto' && stubFailed)) {
    const { results } = await phase('breakdown', STUB_BASE_URL, breakdownCalls);
    out(`\nWhere our layer's time goes (stub ×${breakdownCalls}, POST transfer; each row = bare openapi-fetch + that one piece)\n\n${breakdownTable(results)}\n`);
  }
}

/** The HTTP phase against the bench server in its own process, stopped whatever happens. */
async function httpPhase(): Promise<Phase> {
  server = await forkServer(join(here, 'server.ts'));
  progress(`http: server pid ${server.pid} on 127.0.0.1:${server.port}`);
  try {
    const measured = await clientPhase('http', `http://127.0.0.1:${server.port}`, httpCalls);
    const stats = await server.stats();
    if (stats.rejected !== 0) throw new Error(`the bench server rejected ${stats.rejected} of ${stats.requests} requests`);
    progress(`http: server answered ${stats.requests} requests, none rejected`);
    return measured;
  } finally {
    await server.stop();
    progress(`http: server pid ${server.pid} stopped`);
    server = undefined;
  }
}

try {
  const fetchVersion = (await import('../../packages/client/node_modules/openapi-fetch/package.json', { with: { type: 'json' } })).default.version;
  const timing = args['sizes-only']
    ? 'bundle sizes only'
    : `${rounds} alternating rounds, medians of per-round mean µs/call (${clock === 'cpu' ? 'CPU time of the measuring process' : 'wall time'}); each phase in a fresh process, full GC between blocks`;
  out(`Client bench: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, openapi-fetch ${fetchVersion}, ${timing}\nAt start: ${load()}\n`);
  if (!args['sizes-only']) await latency();
  if (!args['skip-sizes']) await sizes();
  out(`\nAt end: ${load()}\n\n${verdicts.map((v) => v.line).join('\n')}\n`);
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = args.strict && verdicts.some((v) => v.name !== 'candidate' && !v.pass) ? 1 : 0;
} catch (err) {
  progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  if (server) process.kill(server.pid, 'SIGKILL');
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
}
