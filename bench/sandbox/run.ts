// Sandbox bench: throughput and latency of the sandbox (embedded node:sqlite on a file, PostgreSQL with fsync
// on, and two sandbox processes on one PostgreSQL database) next to Prism's stateless mock and a bare
// node:http server, under the same load from another process; the balance read of organizations holding
// 20, 100,000 and 1,000,000 transfers (seeded in SQL, seed.ts); and the sandbox process's memory at idle and
// after 1,000,000 transfers made through the API (PostgreSQL: 100,000 at most); after the rounds, in the same run, PostgreSQL's
// ceiling (pg-ceiling.ts) and node:sqlite's (sqlite-ceiling.ts), the stores alone with the sandbox's statements. Verdicts: issue 25's targets. Run it through the task:
//
//   node tools/launch.mjs bench-sandbox [-- --quick | --rounds 5 --duration-ms 2500 ...]
//
// Processes: this harness; every server under test in its own process (bench/sandbox/server.ts for the
// sandbox and the bare server, Prism via tools/lib/prism.ts, PostgreSQL via tools/lib/postgres.ts); one
// load generator (bench/sandbox/loadgen.ts) that keeps `--concurrency` keep-alive connections busy. So
// load generator, server and harness never share an event loop (on this machine's cores they do share CPUs:
// the table shows how much each used). Each block is one (operation, server) for a warm-up plus a fixed
// window; every round runs every block once, in an order that rotates and reverses from round to round
// (bench/lib/rounds.ts); a row's value is the median over rounds.
//
// Options: --quick (3 rounds of 1 s windows, 10,000 transfers for the memory reading), --rounds N,
// --duration-ms N (measured window per block), --warmup-ms N (unmeasured start of every block),
// --warmup-block-ms N (one unmeasured block per contender before round 1), --concurrency N (32), --client
// raw|http (the load generator's HTTP client: raw-http.ts, default, or node:http's), --wait-quiet-s N (wait up
// to N s before starting for other processes to leave the CPUs idle; the wait is outside --budget-s),
// --open-loop F (after the rounds, the latency targets' operations on each sandbox again, open loop: requests due at F ×
// the row's median rate, a table of their latencies below saturation; informational), --transfers N (1000000), --profile auto|on|off (CPU profiles of the sandbox under load; auto = when a
// throughput verdict FAILs), --profile-ms N, --keep-profiles DIR (the .cpuprofile files are kept there, for
// Chrome DevTools' Performance panel or VS Code; otherwise only their summary is printed), --candidate path/to/sandbox.ts (a scratch copy of the sandbox,
// measured as one more server, embedded; with --candidate-postgres also on PostgreSQL, a database of its
// own; a table of its same-round ratios over the sandbox closes the report; --candidate-no-compile-cache runs it
// with Node's compile cache off, e.g. packages/sandbox/dist/sandbox.js as an installed package runs), --skip-postgres, --pg-pool N (connections per PostgreSQL sandbox's
// pool; the store's default otherwise), --pool-sweep (two more PostgreSQL sandboxes, pools of 8 and 32, in the
// same rounds as sandbox-postgres; a table of same-round ratios against it), --pg-socket (one more PostgreSQL
// sandbox, connected over the cluster's Unix socket instead of TCP; a table of same-round ratios against
// sandbox-postgres), --log (the sandbox writes its JSON request log
// to a file, as npm start does to stderr; off by default), --budget-s N (give up after N s), --strict (exit
// 1 when a verdict FAILs). Tables and verdicts on stdout, progress on stderr. The SQLite files and the
// PostgreSQL cluster live under the system's temp folder (the SQLite one is printed at the start):
// `TMPDIR=/dev/shm` puts them on tmpfs, where an fsync costs nothing, which shows the disk's share of the
// latency (the embedded UUID-key POST p99, measured: 5.7–8.7 ms on this machine's disk, 4.6–6.0 on tmpfs).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../tools/lib/postgres.ts';
import { startPrism, type PrismServer } from '../../tools/lib/prism.ts';
import { childrenOf, machineCpuMs, memoryOf } from '../lib/proc.ts';
import { runRounds, type Contender } from '../lib/rounds.ts';
import { median } from '../lib/stats.ts';
import { forkService, type Service } from '../lib/service.ts';
import { BALANCE_PATH, isBalance, opLabel, OPS, POOL_SWEEP, SEEDED_BALANCE, SERVERS, TRANSFERS_PATH, type LoadResult, type LoadSpec, type OpId, type ServerId } from './ops.ts';
import { pgCeiling, type CeilingRow } from './pg-ceiling.ts';
import { sqliteCeiling } from './sqlite-ceiling.ts';
import { seedTransfers } from './seed.ts';
import { summarizeProfile } from './profile.ts';
import { createTenant, KEY_BUDGET, KeyPool, type SandboxRef, type Tenant } from './provision.ts';
import {
  balanceScaleVerdict,
  candidateTable,
  ceilingTable,
  sqliteCeilingTable,
  overPostgresTable,
  embeddedVerdict,
  legend,
  medianRps,
  memoryTable,
  OPEN_LOOP_OPS,
  openLoopTable,
  postgresVerdict,
  rowKey,
  TARGETS,
  rssVerdict,
  throughputTable,
  type Ceiling,
  type SqliteCeiling,
  type MemoryRow,
  type Rows,
  type Verdict,
} from './report.ts';
import type { ServerConfig, ServerReady } from './server.ts';

const here = dirname(fileURLToPath(import.meta.url));
const serverScript = join(here, 'server.ts');
const sandboxNodeFlags = (JSON.parse(readFileSync(join(here, '..', '..', 'packages', 'sandbox', 'node-flags.json'), 'utf8')) as { flags: string[] }).flags;
const loadgenScript = join(here, 'loadgen.ts');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    'duration-ms': { type: 'string' },
    'warmup-ms': { type: 'string' },
    'warmup-block-ms': { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    client: { type: 'string', default: 'raw' },
    transfers: { type: 'string' },
    profile: { type: 'string', default: 'auto' },
    'profile-ms': { type: 'string' },
    'keep-profiles': { type: 'string' },
    candidate: { type: 'string' },
    'candidate-postgres': { type: 'boolean', default: false },
    'candidate-no-compile-cache': { type: 'boolean', default: false },
    'skip-postgres': { type: 'boolean', default: false },
    'pg-pool': { type: 'string' },
    'pool-sweep': { type: 'boolean', default: false },
    'pg-socket': { type: 'boolean', default: false },
    log: { type: 'boolean', default: false },
    'budget-s': { type: 'string' },
    'wait-quiet-s': { type: 'string', default: '0' },
    'open-loop': { type: 'string' },
    strict: { type: 'boolean', default: false },
  },
  allowPositionals: false,
});

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer (got ${value})`);
  return n;
}
const quick = args.quick;
const rounds = positive('rounds', args.rounds, quick ? 3 : 5);
const durationMs = positive('duration-ms', args['duration-ms'], quick ? 1000 : 2500);
const warmupMs = positive('warmup-ms', args['warmup-ms'], quick ? 300 : 500);
const warmupBlockMs = positive('warmup-block-ms', args['warmup-block-ms'], quick ? 500 : 1000);
const concurrency = positive('concurrency', args.concurrency, 32);
const transfersTarget = positive('transfers', args.transfers, quick ? 10_000 : 1_000_000);
/** PostgreSQL's memory reading is informational, and filling it is slow: at most this many. */
const pgTransfersTarget = Math.min(transfersTarget, 100_000);
const profileMs = positive('profile-ms', args['profile-ms'], quick ? 2000 : 4000);
const budgetMs = positive('budget-s', args['budget-s'], quick ? 300 : 900) * 1000;
if (!['auto', 'on', 'off'].includes(args.profile)) throw new Error('--profile must be auto, on or off');
if (args.client !== 'raw' && args.client !== 'http') throw new Error('--client must be raw or http');
const client: 'raw' | 'http' = args.client;
/** Connections in each PostgreSQL sandbox's pool (the store's default when not given): for a pool-size sweep. */
const pgPool = args['pg-pool'] === undefined ? undefined : positive('pg-pool', args['pg-pool'], 16);
const candidate = args.candidate ? resolve(args.candidate) : undefined;
if (candidate && !existsSync(candidate)) throw new Error(`--candidate ${candidate} does not exist`);

const openLoopShare = args['open-loop'] === undefined ? undefined : Number(args['open-loop']);
if (openLoopShare !== undefined && !(openLoopShare > 0 && openLoopShare <= 1)) throw new Error('--open-loop must be a share of the measured rate, above 0 and at most 1 (e.g. 0.5)');
const OPEN_LOOP_BLOCKS = 3;
const waitQuietMs = Number(args['wait-quiet-s']) * 1000;
if (!Number.isFinite(waitQuietMs) || waitQuietMs < 0) throw new Error('--wait-quiet-s must be a number of seconds');

const REQUEST_TIMEOUT_MS = 10_000;
const compileCache = process.env.NODE_COMPILE_CACHE;
const FIRST_RATE_GUESS = 40_000; // req/s
const FOREIGN_KEY = `svc_live_${'B'.repeat(32)}`; // Prism and the bare server take any key
const FOREIGN_RECIPIENT = 'rcp_01JD7Q3Z8X4K2M9N5P6R7S8T9V';
const PROFILE_RESERVE_MS = 45_000; // kept for the profiles when a top-up runs long

const started = performance.now();
/** When the run gives up starting new work; set again after --wait-quiet-s. */
let deadline = started + budgetMs;
const progress = (message: string) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
const out = (text: string) => process.stdout.write(text);
const load = () => {
  const [one = 0] = loadavg();
  const busy = one > cpus().length * 0.5 ? ` — busy: other processes compete for the ${cpus().length} CPUs, expect noise` : '';
  return `load average (1 min) ${one.toFixed(2)}${busy}`;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- processes we own, stopped in reverse order on every way out ----------------------------------------

const cleanups: { name: string; fn: () => Promise<void> }[] = [];
const own = (name: string, fn: () => Promise<void>) => cleanups.push({ name, fn });
async function cleanup(): Promise<void> {
  while (cleanups.length) {
    const { name, fn } = cleanups.pop()!;
    try {
      await fn();
    } catch (err) {
      progress(`stopping ${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
// Whatever hangs, the run ends: process.exit runs the exit hooks that SIGKILL every child by PID.
let watchdog: NodeJS.Timeout | undefined;
function armWatchdog(): void {
  if (watchdog) clearTimeout(watchdog);
  deadline = performance.now() + budgetMs;
  watchdog = setTimeout(() => {
    progress(`gave up: the run took longer than --budget-s ${budgetMs / 1000} + 60 s`);
    process.exit(1);
  }, budgetMs + 60_000);
  watchdog.unref();
}
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  // A second signal (a second Ctrl-C, or one sent to the whole process group and forwarded by the task) must
  // not end the run by Node's default, which skips the exit hooks and leaves Prism, in its own process group,
  // running: it exits at once, and the exit hooks SIGKILL every child by PID.
  process.on(sig, () => {
    if (interrupted) process.exit(128 + (osConstants.signals[sig] ?? 15));
    interrupted = true;
    progress(`${sig}: stopping every process this run started`);
    void cleanup().finally(() => process.exit(128 + (osConstants.signals[sig] ?? 15)));
  });
}

// ---- servers ------------------------------------------------------------------------------------------

interface SandboxState {
  ref: SandboxRef;
  tenants: Record<OpId, Tenant>;
  pools: Record<OpId, KeyPool>;
  /** Transfers in its store: seeded ones plus every 201 of a new-key POST. */
  transfers: number;
}

interface Target {
  id: ServerId;
  url: string;
  /** Several processes sharing one store (sandbox-postgres-x2): the load is spread over them. */
  urls?: string[];
  pid: number;
  /** Other processes of the same target (the second sandbox of sandbox-postgres-x2). */
  morePids?: number[];
  /** Where a sandbox keeps its data (the harness seeds large organizations there). */
  store?: { file: string } | { databaseUrl: string };
  /** The database's parent process (PostgreSQL's postmaster), whose tree's CPU is read; undefined: none. */
  dbParent: () => number | undefined;
  memory?: () => Promise<NodeJS.MemoryUsage>;
  /** Starts, or stops and writes to `file`, a CPU profile inside the server process. */
  profile?: (what: 'start' | 'stop', file: string) => Promise<void>;
  /** Sandboxes: the admin token this harness gave it. */
  adminToken?: string;
  sandbox?: SandboxState;
  stop: () => Promise<void>;
  /** How the server process ended, once it has (else undefined), and what it printed last when known. */
  gone: () => string | undefined;
}

/** A gone() for a process whose exit is `exited`. */
function watchExit(exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>, tail: () => string = () => ''): () => string | undefined {
  let how: string | undefined;
  void exited.then(({ code, signal }) => (how = signal ? `killed by ${signal}` : `exit code ${code}`));
  return () => (how === undefined ? undefined : `${how}${tail() ? `; its last output:\n${tail().trim().split('\n').slice(-8).join('\n')}` : ''}`);
}

const tempDir = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
own('temp folder', async () => rmSync(tempDir, { recursive: true, force: true }));
const profilesDir = args['keep-profiles'] ? resolve(args['keep-profiles']) : tempDir;
if (profilesDir !== tempDir) mkdirSync(profilesDir, { recursive: true });

/** The postmaster's pid (the parent of every PostgreSQL process), from its pid file. */
function postmasterOf(pg: ThrowawayPostgres): () => number | undefined {
  return () => {
    try {
      const postmaster = Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(postmaster) && postmaster > 0 ? postmaster : undefined;
    } catch {
      return undefined;
    }
  };
}

/** A load spec's dbParent, when the target has a database process tree. */
function dbParentOf(target: Target): { dbParent?: number } {
  const parent = target.dbParent();
  return parent === undefined ? {} : { dbParent: parent };
}

async function startServer(id: ServerId, config: ServerConfig, options: { dbParent?: () => number | undefined } = {}): Promise<Target> {
  const service: Service<ServerReady> = await forkService<ServerReady>(serverScript, {
    args: [JSON.stringify(config)],
    // The sandbox runs with its V8 flags, as npm start runs it; the bare server with Node's defaults.
    ...(config.kind === 'sandbox' ? { execArgv: sandboxNodeFlags } : {}),
    // --candidate-no-compile-cache: the candidate compiles its code afresh (as an installed package, whose bin enables no cache).
    ...(config.kind === 'sandbox' && config.module && args['candidate-no-compile-cache'] ? { env: { NODE_DISABLE_COMPILE_CACHE: '1' } } : {}),
    startTimeoutMs: 60_000,
  });
  const url = `http://127.0.0.1:${service.ready.port}`;
  const target: Target = {
    id,
    url,
    pid: service.pid,
    dbParent: options.dbParent ?? (() => undefined),
    memory: async () => (await service.request<{ memory: NodeJS.MemoryUsage }>('memory', {}, 10_000)).memory,
    profile: async (what, file) => {
      await service.request(`profile-${what}`, { file, intervalUs: 500 }, 30_000);
    },
    stop: () => service.stop(15_000),
    gone: watchExit(service.exited),
  };
  return target;
}

async function startSandboxTarget(id: ServerId, store: { file: string } | { databaseUrl: string }, options: { dbParent?: () => number | undefined; module?: string; poolSize?: number } = {}): Promise<Target> {
  const poolSize = options.poolSize ?? pgPool;
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const config: ServerConfig = {
    kind: 'sandbox',
    adminToken,
    ...store,
    ...(args.log ? { log: join(tempDir, `${id}-${process.hrtime.bigint()}.log`) } : {}),
    ...(options.module ? { module: options.module } : {}),
    ...('databaseUrl' in store && poolSize ? { poolSize } : {}),
  };
  const target = await startServer(id, config, options);
  target.adminToken = adminToken;
  target.store = store;
  own(id, target.stop);
  return target;
}

async function setUpTenants(target: Target): Promise<void> {
  if (!target.adminToken) throw new Error(`${target.id} is not a sandbox`);
  const ref: SandboxRef = { url: target.url, adminToken: target.adminToken };
  const tenants = {} as Record<OpId, Tenant>;
  const pools = {} as Record<OpId, KeyPool>;
  let transfers = 0;
  for (const op of OPS) {
    tenants[op] = await createTenant(ref, op);
    pools[op] = new KeyPool(ref, tenants[op].orgId);
    transfers += tenants[op].seededTransfers;
  }
  target.sandbox = { ref, tenants, pools, transfers };
  for (const [op, count] of Object.entries(SEEDED_BALANCE) as [OpId, number][]) {
    const started = performance.now();
    await seedTransfers(target.store!, tenants[op], count);
    progress(`  ${target.id}: ${count.toLocaleString('en-US')} transfers seeded for ${op} in ${((performance.now() - started) / 1000).toFixed(1)} s (SQL, with their running balance)`);
  }
}

// ---- load ---------------------------------------------------------------------------------------------

let loadgen: Service<{ type: 'ready' }>;
const fastest = new Map<string, number>();
let blockSeq = 0;

/** A block's timing: a warm-up and a measured window, or a request count; open loop at `ratePerSecond` when given. */
type Window = { warmupMs: number; durationMs: number; maxRequests?: number; ratePerSecond?: number };

async function specFor(target: Target, op: OpId, window: Window): Promise<LoadSpec> {
  const sandbox = target.sandbox;
  let keys = [FOREIGN_KEY];
  let budgets = [Number.MAX_SAFE_INTEGER];
  if (sandbox) {
    const pool = sandbox.pools[op];
    // Twice what the block could use at the fastest rate seen so far, and never less than half the rate of
    // a bare node:http server on such a machine: a cold warm-up block can run at under half of the next
    // block's rate (GET balance: ~9,000 then ~20,000 req/s). Keys are cheap; a pool that runs dry mid-block
    // ends the run.
    const rate = Math.max(fastest.get(rowKey(op, target.id)) ?? FIRST_RATE_GUESS, FIRST_RATE_GUESS / 2);
    const need = window.maxRequests ?? Math.ceil((rate * 2 * (window.warmupMs + window.durationMs)) / 1000);
    const created = await pool.ensure(need + concurrency * 2);
    if (created) progress(`  ${target.id}: +${created} API keys for ${op} (pool: ${pool.keys.length} keys, ${pool.remaining().toLocaleString('en-US')} requests of budget)`);
    keys = pool.keys;
    budgets = pool.budgets;
  }
  const tenant = sandbox?.tenants[op];
  const base = {
    url: target.url,
    ...(target.urls ? { urls: target.urls } : {}),
    keys,
    budgets,
    concurrency,
    client,
    warmupMs: window.warmupMs,
    durationMs: window.durationMs,
    ...(window.maxRequests === undefined ? {} : { maxRequests: window.maxRequests, limitMs: Math.max(10_000, deadline - performance.now()) }),
    ...(window.ratePerSecond === undefined ? {} : { ratePerSecond: window.ratePerSecond }),
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    serverPids: [target.pid, ...childrenOf(target.pid), ...(target.morePids ?? [])],
    ...dbParentOf(target),
  };
  const body = tenant?.transferBody ?? JSON.stringify({ recipientId: FOREIGN_RECIPIENT, amount: '1.00' });
  switch (op) {
    case 'balance':
    case 'balance-100k':
    case 'balance-1m':
      return { ...base, method: 'GET', path: BALANCE_PATH, expectStatus: 200, expectText: sandbox ? '"USD"' : '"balances"' };
    case 'transfer-new':
    case 'transfer-uuid':
      return {
        ...base,
        method: 'POST',
        path: TRANSFERS_PATH,
        body,
        ...(op === 'transfer-new' ? { idempotency: 'new' as const, idempotencyPrefix: `bench-${++blockSeq}` } : { idempotency: 'uuid' as const }),
        expectStatus: 201,
        ...(sandbox ? { expectEcho: true } : { expectText: '"recipientId"' }),
      };
    case 'transfer-replay':
      return {
        ...base,
        method: 'POST',
        path: TRANSFERS_PATH,
        body,
        idempotency: 'fixed',
        idempotencyKey: tenant?.replay?.idempotencyKey ?? 'bench-replay-original',
        expectStatus: 201,
        expectText: tenant?.replay ? tenant.replay.transferId : '"recipientId"',
      };
  }
}

/** This harness's own CPU over the last load run (% of one core): Prism's request log comes through it. */
let harnessCpu = 0;

async function loadRun(target: Target, op: OpId, window: Window): Promise<LoadResult> {
  const spec = await specFor(target, op, window);
  const limit = window.maxRequests === undefined ? window.warmupMs + window.durationMs + REQUEST_TIMEOUT_MS + 30_000 : (spec.limitMs ?? 0) + REQUEST_TIMEOUT_MS + 30_000;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { result } = await loadgen.request<{ result: LoadResult }>('run', { spec }, limit);
  const cpu = process.cpuUsage(cpu0);
  harnessCpu = (100 * (cpu.user + cpu.system)) / 1000 / Math.max(1, performance.now() - t0);
  result.harnessCpu = harnessCpu;
  result.othersCpu = Math.max(0, result.machineCpu - result.serverCpu - result.dbCpu - result.loadgenCpu - harnessCpu);
  if (target.sandbox) {
    target.sandbox.pools[op].settle(result.used);
    if (op === 'transfer-new' || op === 'transfer-uuid') target.sandbox.transfers += result.ok;
  }
  const what = `${opLabel[op]} on ${target.id}`;
  if (result.exhausted) throw new Error(`${what}: the API key pool ran out mid-block (a bench bug: pools are sized at twice the fastest rate seen)`);
  if (result.errors) {
    const gone = target.gone();
    throw new Error(
      `${what}: ${result.errors} unexpected answers of ${result.sent}, e.g.\n  ${result.errorSamples.join('\n  ')}` +
        (gone ? `\n  The server process (pid ${target.pid}) is gone: ${gone}` : ''),
    );
  }
  const seen = Math.max(result.rps, (result.ok * 1000) / Math.max(1, window.warmupMs + (window.maxRequests === undefined ? window.durationMs : result.windowMs)));
  fastest.set(rowKey(op, target.id), Math.max(seen, fastest.get(rowKey(op, target.id)) ?? 0));
  return result;
}

/** A latency for the progress line: none when no answer came in the window (NaN arrives over IPC as null). */
const ms = (n: number | null) => (typeof n === 'number' && Number.isFinite(n) ? `${n.toFixed(1)} ms` : '- (no answer)');
const describe = (r: LoadResult) =>
  `${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${ms(r.p50)}, p99 ${ms(r.p99)} (CPU: server ${Math.round(r.serverCpu)}%${r.dbCpu ? `, PG ${Math.round(r.dbCpu)}%` : ''}, loadgen ${Math.round(r.loadgenCpu)}%, harness ${Math.round(r.harnessCpu ?? 0)}%, other processes ${Math.round(r.othersCpu ?? 0)}%)${(r.othersCpu ?? 0) > 25 ? ' ← disturbed by other processes' : ''}`;

async function snapshot(target: Target, when: string): Promise<MemoryRow> {
  const proc = memoryOf(target.pid);
  if (!proc) throw new Error(`cannot read /proc/${target.pid}/status (${target.id}): this bench reads RSS from Linux's /proc`);
  let heap: NodeJS.MemoryUsage | undefined;
  try {
    heap = target.memory ? await target.memory() : undefined;
  } catch {
    heap = undefined;
  }
  return { server: target.id, when, rss: proc.rss, peakRss: proc.peakRss, ...(heap ? { heapUsed: heap.heapUsed, heapTotal: heap.heapTotal, external: heap.external + heap.arrayBuffers } : {}) };
}

/** New-key transfers on `target` until its store holds `total`, in chunks (progress); stops at `stopBy`. */
async function topUp(target: Target, total: number, stopBy: number): Promise<{ reached: number; rps: number }> {
  const sandbox = target.sandbox!;
  const chunk = Math.max(2_000, Math.ceil(total / 5));
  let sent = 0;
  let ms = 0;
  while (sandbox.transfers < total) {
    const left = stopBy - performance.now();
    const rate = fastest.get(rowKey('transfer-uuid', target.id)) ?? 300;
    if (left < 5_000) break;
    // No chunk longer than the time left at the rate seen so far.
    const n = Math.min(chunk, total - sandbox.transfers, Math.max(500, Math.floor((rate * 0.8 * left) / 1000)));
    const t0 = performance.now();
    const r = await loadRun(target, 'transfer-uuid', { warmupMs: 0, durationMs: 0, maxRequests: n }); // keys as clients make them
    sent += r.ok;
    ms += performance.now() - t0;
    progress(`  ${target.id}: ${sandbox.transfers.toLocaleString('en-US')}/${total.toLocaleString('en-US')} transfers (${Math.round(r.rps).toLocaleString('en-US')} req/s, server CPU ${Math.round(r.serverCpu)}%)`);
  }
  return { reached: sandbox.transfers, rps: ms ? (sent * 1000) / ms : Number.NaN };
}

// ---- profiles -----------------------------------------------------------------------------------------

/** A fresh sandbox, warmed up with `op`, then profiled (V8's sampling profiler, 0.5 ms) over one load window of `op`. */
async function profileRun(id: ServerId, store: { file: string } | { databaseUrl: string }, op: OpId, dbParent?: () => number | undefined): Promise<string> {
  const target = await startSandboxTarget(id, store, dbParent ? { dbParent } : {});
  await setUpTenants(target);
  await loadRun(target, op, { warmupMs: 0, durationMs: Math.min(2_000, profileMs) });
  const file = join(profilesDir, `${id}-${op}.cpuprofile`);
  await target.profile!('start', file);
  const r = await loadRun(target, op, { warmupMs: 0, durationMs: profileMs });
  await target.profile!('stop', file);
  progress(`  profiled ${op} on ${id}: ${describe(r)}`);
  await target.stop();
  const summary = summarizeProfile(file);
  return (
    `\nCPU profile: ${opLabel[op]} on ${id} (${(summary.totalMs / 1000).toFixed(1)} s, ${summary.samples} samples at 0.5 ms; ` +
    `the load meanwhile: ${describe(r)}; the profiler slows it somewhat)${profilesDir === tempDir ? '' : `; kept in ${file}`}\n\n${summary.areas}\n\n${summary.selfTop}\n\n${summary.sandboxInclusive}\n${summary.sqliteByOperation && `\n${summary.sqliteByOperation}\n`}`
  );
}

/** The machine's busy CPU over `ms`, in % of one core (this process is idle meanwhile). */
async function machineBusy(ms: number): Promise<number> {
  const a = machineCpuMs();
  const t0 = performance.now();
  await sleep(ms);
  const b = machineCpuMs();
  return a && b ? (100 * (b.busy - a.busy)) / (performance.now() - t0) : Number.NaN;
}

/** --wait-quiet-s: before starting, wait (bounded) until other processes leave the CPUs mostly idle. */
async function waitForQuiet(): Promise<string> {
  if (!waitQuietMs) return '';
  const until = performance.now() + waitQuietMs;
  let busy = await machineBusy(3_000);
  while (busy > 25 && performance.now() < until) {
    progress(`waiting for a quieter machine: other processes use ${Math.round(busy)}% of a core (--wait-quiet-s)`);
    busy = await machineBusy(5_000);
  }
  return `other processes used ${Math.round(busy)}% of a core just before the start${busy > 25 ? ` (still busy after waiting ${waitQuietMs / 1000} s)` : ''}; `;
}

// ---- the run ------------------------------------------------------------------------------------------

try {
  const quiet = await waitForQuiet();
  armWatchdog();
  out(
    `Sandbox bench: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}${quick ? ', --quick' : ''}\n` +
      `Load: one load-generator process, ${concurrency} keep-alive HTTP/1.1 connections on 127.0.0.1 (${client === 'raw' ? 'a lean client: one socket per connection, prebuilt request text' : "node:http's client, a keep-alive Agent"}),\n` +
      `each sending its next request when the previous answer is read; every answer checked (status; on the sandbox also the echoed\n` +
      `Idempotency-Key, the replayed transfer id, the balance's currency).\n` +
      `Blocks: ${warmupMs} ms warm-up + ${durationMs} ms measured window per (operation, server); one ${warmupBlockMs} ms unmeasured block each before round 1;\n` +
      `${rounds} rounds, order rotating and reversing every round; a row's value is the median over rounds.\n` +
      `Rate limit: the sandbox allows 600 requests / 15 min per API key. Not lifted: each operation runs on its own organization\n` +
      `(funded USD 100,000,000.00, one USD ACH recipient, amount 1.00) with a pool of API keys, rotated round robin, each key carrying at most\n` +
      `${KEY_BUDGET} requests over the whole run; pools grow between blocks (admin API) to twice what a block can use.\n` +
      `Stores: node:sqlite on a file in ${tempDir} (the sandbox's own settings: WAL, synchronous=NORMAL), as npm start; PostgreSQL: a\n` +
      `throwaway cluster with fsync on, the sandbox's default pool. Request log: ${args.log ? 'JSON lines to a file (--log)' : 'off (startSandbox without a logger; --log writes one to a file, as npm start does to stderr)'}.\n` +
      `Sandbox process: node ${sandboxNodeFlags.join(' ')} (packages/sandbox/node-flags.json, as npm start runs it); the bare server: Node's defaults.\n` +
      `Node's compile cache: ${compileCache ? `${compileCache} (warmed by starting one sandbox first)` : 'off (NODE_COMPILE_CACHE not set; run through npm run bench:sandbox)'}.\n` +
      `At start: ${quiet}${load()}\n`,
  );

  // A sandbox started and stopped once, so the measured ones find Node's compile cache warm, as any start
  // after the first does (npm scripts set NODE_COMPILE_CACHE; a cold start also loads the TypeScript stripper).
  // The candidate too: code V8 compiled afresh ran 6–19% faster than the same code from the cache, so a
  // candidate copy started cold looked that much better than the very same code (docs/reports/2026-11-27-c).
  progress(`warming Node's compile cache (${compileCache ?? 'NODE_COMPILE_CACHE not set: nothing to warm'})`);
  for (const module of compileCache ? [undefined, ...(candidate ? [candidate] : [])] : []) {
    const config: ServerConfig = { kind: 'sandbox', adminToken: 'adm_warmup', file: join(tempDir, `warmup-${module ? 'candidate' : 'main'}.db`), ...(module ? { module } : {}) };
    await (await startServer(module ? 'candidate-sqlite' : 'sandbox-sqlite', config)).stop();
  }

  // Servers. PostgreSQL and Prism take a few seconds: start them alongside.
  progress('starting: PostgreSQL (fsync on), Prism, load generator, servers');
  const pgPromise = args['skip-postgres'] ? Promise.resolve(undefined) : startThrowawayPostgres({ settings: { fsync: 'on', max_connections: '300' } }); // several sandboxes' pools at once
  const prismPromise = startPrism();
  let pg: ThrowawayPostgres | undefined;
  let prism: PrismServer | undefined;
  try {
    [pg, prism] = await Promise.all([pgPromise, prismPromise]);
  } finally {
    // Whatever started is ours to stop, even when the other failed.
    void pgPromise.then((p) => p && own('PostgreSQL', p.stop), () => {});
    void prismPromise.then((p) => own('Prism', p.stop), () => {});
  }
  await sleep(0);
  loadgen = await forkService<{ type: 'ready' }>(loadgenScript, { startTimeoutMs: 30_000 });
  own('load generator', () => loadgen.stop());

  const targets: Target[] = [];
  const sqliteTarget = await startSandboxTarget('sandbox-sqlite', { file: join(tempDir, 'sandbox.db') });
  targets.push(sqliteTarget);
  let pgTarget: Target | undefined;
  if (pg) {
    pgTarget = await startSandboxTarget('sandbox-postgres', { databaseUrl: pg.url }, { dbParent: postmasterOf(pg) });
    targets.push(pgTarget);
    // Two instances on one database of their own: tenants made through the first, load split over both.
    const pgTwo = await pg.createDatabase('sandbox_x2');
    const first = await startSandboxTarget('sandbox-postgres-x2', { databaseUrl: pgTwo }, { dbParent: postmasterOf(pg) });
    const second = await startSandboxTarget('sandbox-postgres-x2', { databaseUrl: pgTwo });
    first.urls = [first.url, second.url];
    first.morePids = [second.pid];
    targets.push(first);
    if (args['pool-sweep']) {
      for (const [id, poolSize] of Object.entries(POOL_SWEEP) as [ServerId, number][]) {
        targets.push(await startSandboxTarget(id, { databaseUrl: await pg.createDatabase(id.replaceAll('-', '_')) }, { dbParent: postmasterOf(pg), poolSize }));
      }
    }
    if (args['pg-socket']) {
      // node-postgres reads a socket folder from `host` in the query (the socket's name carries the port), the
      // user too: `postgres:///db?…`, a URL the sandbox's --database-url also takes.
      const database = new URL(await pg.createDatabase('sandbox_socket')).pathname;
      const socketUrl = `postgres://${database}?host=${encodeURIComponent(pg.dir)}&port=${pg.port}&user=postgres`;
      targets.push(await startSandboxTarget('postgres-socket', { databaseUrl: socketUrl }, { dbParent: postmasterOf(pg) }));
    }
  }
  let candidateTarget: Target | undefined;
  if (candidate) {
    candidateTarget = await startSandboxTarget('candidate-sqlite', { file: join(tempDir, 'candidate.db') }, { module: candidate });
    targets.push(candidateTarget);
    if (pg && args['candidate-postgres']) {
      targets.push(await startSandboxTarget('candidate-postgres', { databaseUrl: await pg.createDatabase('sandbox_candidate') }, { module: candidate, dbParent: postmasterOf(pg) }));
    }
  }
  targets.push({ id: 'prism', url: prism!.url, pid: prism!.pid, dbParent: () => undefined, stop: prism!.stop, gone: watchExit(prism!.exited, prism!.output) });
  const bare = await startServer('bare', { kind: 'bare' });
  own('bare server', bare.stop);
  targets.push(bare);
  progress(`servers: ${targets.map((t) => `${t.id} pid ${t.pid}`).join(', ')}; load generator pid ${loadgen.pid}`);

  // Idle memory: after start, before any request, once things have settled.
  await sleep(2_000);
  const memory: MemoryRow[] = [];
  for (const t of targets) memory.push(await snapshot(t, 'idle, after start'));

  // Tenants and first key pools (the admin API; not measured).
  for (const t of targets) if (t.adminToken) await setUpTenants(t);
  progress(`tenants ready (one organization per operation on each sandbox)`);

  // Rounds.
  const servers = SERVERS.filter((s) => targets.some((t) => t.id === s));
  const rows: Rows = new Map();
  const blocksRun = new Map<string, number>();
  const contenders: Contender[] = [];
  for (const op of OPS) {
    for (const t of targets) {
      if (t.id === 'bare' && op !== 'balance') continue;
      if (op in SEEDED_BALANCE && !t.sandbox) continue; // the stateless servers have no organization to fill
      const key = rowKey(op, t.id);
      contenders.push({
        name: key,
        call: async () => {
          const n = blocksRun.get(key) ?? 0;
          blocksRun.set(key, n + 1);
          const warm = n === 0;
          const r = await loadRun(t, op, warm ? { warmupMs: 0, durationMs: warmupBlockMs } : { warmupMs, durationMs });
          if (!warm) rows.set(key, [...(rows.get(key) ?? []), r]);
          progress(`${warm ? 'warm-up' : `round ${n}/${rounds}`} · ${op.padEnd(15)} · ${t.id.padEnd(16)} ${describe(r)}`);
        },
      });
    }
  }
  progress(`${contenders.length} blocks per round, ${rounds} rounds`);
  await runRounds(contenders, { rounds, calls: 1, warmupCalls: 1, deadline, progress });

  // Latency below saturation (--open-loop F): the latency targets' operations on each sandbox, requests due at
  // F × the row's median rate of the rounds, so a request's time is its own work and not the queue of 32.
  const openLoop: Rows = new Map();
  for (const t of openLoopShare === undefined ? [] : targets.filter((x) => x.sandbox)) {
    for (const op of OPEN_LOOP_OPS) {
      const rate = Math.round(openLoopShare! * medianRps(rows, op, t.id));
      if (!(rate > 0) || performance.now() > deadline - PROFILE_RESERVE_MS) continue;
      for (let block = 1; block <= OPEN_LOOP_BLOCKS; block++) {
        const r = await loadRun(t, op, { warmupMs, durationMs, ratePerSecond: rate });
        openLoop.set(rowKey(op, t.id), [...(openLoop.get(rowKey(op, t.id)) ?? []), r]);
        progress(`open loop ${block}/${OPEN_LOOP_BLOCKS} · ${op.padEnd(15)} · ${t.id.padEnd(16)} at ${rate.toLocaleString('en-US')} req/s asked: ${describe(r)}`);
      }
    }
  }

  for (const t of targets) if (t.sandbox) memory.push(await snapshot(t, `after the rounds (${t.sandbox.transfers.toLocaleString('en-US')} transfers)`));

  // Memory after N transfers: the embedded sandbox first (its verdict), then PostgreSQL within the budget.
  const reached = new Map<ServerId, { reached: number; rps: number }>();
  for (const t of [sqliteTarget, ...(candidateTarget ? [candidateTarget] : []), ...(pgTarget ? [pgTarget] : [])]) {
    const total = t === pgTarget ? pgTransfersTarget : transfersTarget;
    progress(`${t.id}: creating transfers through the API until it has made ${total.toLocaleString('en-US')}`);
    const result = await topUp(t, total, deadline - PROFILE_RESERVE_MS);
    reached.set(t.id, result);
    memory.push(await snapshot(t, `after ${result.reached.toLocaleString('en-US')} transfers`));
  }

  // Stop the servers before reporting and profiling: their processes would compete for the CPUs.
  for (const t of targets) await t.stop();
  progress('servers stopped');
  // PostgreSQL's own ceiling on the same server, in this run: alone with the statements the sandbox sends.
  let ceiling: Ceiling | undefined;
  if (pg && performance.now() < deadline) {
    progress('PostgreSQL alone with the sandbox\'s statements (pg-ceiling.ts)');
    const measured = await pgCeiling(await pg.createDatabase('sandbox_ceiling'), { seconds: quick ? 3 : 10, clients: concurrency });
    const ops: Record<CeilingRow['name'], OpId> = { 'POST transfer, new key': 'transfer-new', 'POST transfer, replay': 'transfer-replay', 'GET balance': 'balance' };
    ceiling = Object.fromEntries(measured.map((r) => [ops[r.name], { tps: r.tps, roundTrips: r.roundTrips, statements: r.statements, writes: r.writes, floor: r.floor }]));
  }

  // node:sqlite's own ceiling, in this run: alone with the statements the embedded sandbox runs.
  let sqliteLimits: SqliteCeiling | undefined;
  if (rows.has(rowKey('balance', 'sandbox-sqlite')) && performance.now() < deadline) {
    progress("node:sqlite alone with the embedded sandbox's statements (sqlite-ceiling.ts)");
    const measured = await sqliteCeiling({ seconds: quick ? 1 : 3, batch: concurrency, dir: tempDir });
    sqliteLimits = Object.fromEntries(measured.map((r) => [r.op, { statements: r.statements.length, cpuUs: r.cpuUsPerRequest, rps: r.rps }]));
  }

  out(`\nThroughput and latency (req/s: answers in the window / window; latency: request sent → answer read)\n\n${throughputTable(rows, servers)}\n\n${legend(servers)}\n`);
  if (args['pool-sweep'] && pgTarget) {
    out(`\nPool sweep, same rounds: each pool size's req/s over sandbox-postgres's (pool ${pgPool ?? 16}) in the same round, median (range) over ${rounds} rounds; CPU µs/req as above\n\n${overPostgresTable(rows, ['postgres-pool-8', 'sandbox-postgres', 'postgres-pool-32'])}\n`);
  }
  if (args['pg-socket'] && pgTarget) {
    out(`\nPostgreSQL over its Unix socket, same rounds: req/s over sandbox-postgres's (TCP on 127.0.0.1) in the same round, median (range) over ${rounds} rounds; CPU µs/req as above (server and PostgreSQL)\n\n${overPostgresTable(rows, ['sandbox-postgres', 'postgres-socket'])}\n`);
  }
  if (ceiling) {
    out(`\nPostgreSQL's ceiling, same run: pgbench with the statements one request sends (those sent together in one pipeline), ${concurrency} clients, prepared, fsync on; a row's req/s as a share of it; beside it, the floor under a POST: its transaction's statements (those on its own connection: the caller and rate-limit statements before them are shared by a turn's requests under load) sent by node-postgres from one Node.js process with nothing else, no HTTP, no load generator (pg-driver-floor.ts), and the CPU per transaction of that process and of PostgreSQL\n\n${ceilingTable(rows, servers, ceiling)}\n`);
  }
  if (sqliteLimits) {
    out(`\nThe embedded store's limits, same run: node:sqlite alone with the statements one request runs (recorded from the real sandbox; one thread, ${concurrency} requests per COMMIT, the store's file settings; without the journal's trim and the cached caller lookup), node:http alone (the bare server), and the rest, the sandbox's own JavaScript; each target's req/s as CPU µs per request at one core (the sandbox is one thread), and what that leaves the rest (sqlite-ceiling.ts)\n\n${sqliteCeilingTable(rows, sqliteLimits)}\n`);
  }
  if (openLoop.size) {
    out(`\nLatency below saturation (--open-loop ${openLoopShare}): requests due at ${openLoopShare} × the row's median req/s of the rounds, evenly spaced, over the same ${concurrency} connections; a request that left late because every connection was busy counts from when it was due (no coordinated omission); ${OPEN_LOOP_BLOCKS} blocks each, medians. Informational: the targets' p99s are read in the rounds (closed loop), where 32 connections make the mean latency 32 ÷ req/s\n\n${openLoopTable(rows, openLoop, openLoopShare!)}\n`);
  }
  out(`\nMemory of the server processes (VmRSS from /proc/<pid>/status; JS heap from the process itself over IPC)\n\n${memoryTable(memory)}\n`);
  for (const [id, r] of reached) {
    out(
      Number.isFinite(r.rps)
        ? `  ${id}: sustained ${Math.round(r.rps).toLocaleString('en-US')} req/s of new-key transfers while filling the store to ${r.reached.toLocaleString('en-US')}\n`
        : `  ${id}: the rounds alone left ${r.reached.toLocaleString('en-US')} transfers in its store\n`,
    );
  }
  if (pgTarget) out('  (PostgreSQL rows: the sandbox process only; the PostgreSQL server holds the data in its own processes.)\n');

  const others = [...rows.values()].flat().map((r) => r.othersCpu ?? 0);
  const disturbed = others.filter((o) => o > 25).length;
  out(
    `\nNoise: other processes on this machine used ${Math.round(median(others))}% of a core (median over the ${others.length} measured windows; ` +
      `max ${Math.round(Math.max(...others))}%); ${disturbed} window(s) above 25%.\n`,
  );
  const keyLines = targets
    .filter((t) => t.sandbox)
    .map((t) => `${t.id} ${OPS.map((op) => `${t.sandbox!.pools[op].created} (${op})`).join(', ')}`);
  out(
    `Rate limit (not lifted): API keys created — ${keyLines.join('; ')}. No key carried more than ${KEY_BUDGET} requests in the run ` +
      `(600 allowed per 15 min); no answer was a 429 (any unexpected answer fails the run).\n`,
  );

  const verdicts: Verdict[] = [embeddedVerdict(rows)];
  for (const id of ['sandbox-postgres', 'sandbox-postgres-x2'] as const) if (rows.has(rowKey('transfer-new', id))) verdicts.push(postgresVerdict(rows, id, ceiling, cpus().length));
  for (const t of targets) if (t.sandbox) verdicts.push(balanceScaleVerdict(rows, t.id));
  const stores: [ServerId, string][] = [['sandbox-sqlite', 'embedded node:sqlite'], ...(pgTarget ? ([['sandbox-postgres', 'PostgreSQL']] as [ServerId, string][]) : [])];
  for (const [id, label] of stores) {
    const idle = memory.find((m) => m.server === id && m.when.startsWith('idle'))!;
    verdicts.push(rssVerdict(`idle ${id}`, `idle RSS of the sandbox process (${label}), after start`, idle.rss, TARGETS.idleRss));
  }
  for (const [id, label] of stores) {
    const r = reached.get(id)!;
    const after = memory.filter((m) => m.server === id).at(-1)!;
    const short = r.reached < 1_000_000;
    const note = short ? ` — after ${r.reached.toLocaleString('en-US')} transfers, NOT 1,000,000 (${quick ? '--quick' : id === 'sandbox-sqlite' ? '--transfers or the time budget' : 'PostgreSQL is filled to 100,000 at most'}): not the target's measurement` : '';
    const verdict = rssVerdict(`loaded ${id}`, `RSS of the sandbox process (${label}) after ${r.reached.toLocaleString('en-US')} transfers made through the API${id === 'sandbox-sqlite' ? '' : ' (the target is for embedded; informational)'}`, after.rss, TARGETS.loadedRss, note);
    verdicts.push(id === 'sandbox-sqlite' ? verdict : { ...verdict, name: `info ${id}` });
  }
  if (candidateTarget) {
    const pairs = [['candidate-sqlite', 'sandbox-sqlite'], ['candidate-postgres', 'sandbox-postgres']] as const;
    out(`\nCandidate (${candidate}) over the sandbox, same-round ratios over ${rounds} rounds (informational; a ratio of two copies of the same code shows the noise)\n\n${candidateTable(rows, pairs)}\n`);
  }
  out(`\nAt end: ${load()}\n\n${verdicts.map((v) => v.line).join('\n')}\n`);

  const throughputFailed = verdicts.filter((v) => /^throughput /.test(v.name) && !v.pass);
  if (args.profile === 'on' || (args.profile === 'auto' && throughputFailed.length)) {
    progress("profiling the sandbox under load (V8's CPU profiler inside the server process, via node:inspector)");
    out(`\nWhere the sandbox's CPU goes (${args.profile === 'on' ? '--profile on' : `a throughput verdict FAILed`}; a fresh server, warmed up, then V8's CPU profiler over ${profileMs} ms of the same load)\n`);
    // The embedded targets' operations (new UUID keys, replays, the balance), and PostgreSQL's POST when it failed.
    const profiles: [ServerId, OpId][] = [['sandbox-sqlite', 'transfer-uuid'], ['sandbox-sqlite', 'transfer-replay'], ['sandbox-sqlite', 'balance']];
    if (pg && throughputFailed.some((v) => v.name.includes('sandbox-postgres'))) profiles.push(['sandbox-postgres', 'transfer-new']);
    for (const [id, op] of profiles) {
      if (performance.now() > deadline) {
        out(`\n(profile of ${op} on ${id} skipped: time budget used up)\n`);
        continue;
      }
      const store = id === 'sandbox-postgres' ? { databaseUrl: pg!.url } : { file: join(tempDir, `profile-${op}.db`) };
      out(await profileRun(id, store, op, id === 'sandbox-postgres' ? postmasterOf(pg!) : undefined));
    }
  }
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = args.strict && verdicts.some((v) => !v.name.startsWith('info') && !v.pass) ? 1 : 0;
} catch (err) {
  // After a signal the servers are being stopped under the running block: its errors are not news.
  if (!interrupted) progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
  if (watchdog) clearTimeout(watchdog);
}
