// What refused requests cost the sandbox, journal included (issue 25, deliver 2): the one kind of traffic
// whose journal entry has no transaction of its own (the bench in run.ts measures served requests only).
// Each --module is a copy of the sandbox (path/to/sandbox.ts, as run.ts's --candidate), measured on
// node:sqlite (a file) and on PostgreSQL (a database of its own in one throwaway cluster) under the same
// load: `--concurrency` keep-alive connections sending POST /v1/banking/transfers with a body the spec
// refuses (400 invalid_request), a new Idempotency-Key each. Rounds rotate the order (bench/lib/rounds.ts's
// way); a row is the median over rounds of req/s and of CPU µs per request (the sandbox process, plus
// PostgreSQL's processes on PostgreSQL). Run it from the repository root:
//
//   node bench/sandbox/journal-refusals.ts --module A/sandbox.ts --module B/sandbox.ts [--rounds 5]
//     [--duration-ms 1500] [--warmup-ms 500] [--concurrency 32] [--skip-postgres]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../tools/lib/postgres.ts';
import { childrenOf } from '../lib/proc.ts';
import { median } from '../lib/stats.ts';
import { forkService, type Service } from '../lib/service.ts';
import { FUNDING, TRANSFERS_PATH, type LoadResult, type LoadSpec } from './ops.ts';
import { KeyPool } from './provision.ts';
import type { ServerConfig, ServerReady } from './server.ts';

const here = dirname(fileURLToPath(import.meta.url));
const sandboxNodeFlags = (JSON.parse(readFileSync(join(here, '..', '..', 'packages', 'sandbox', 'node-flags.json'), 'utf8')) as { flags: string[] }).flags;
const { values: args } = parseArgs({
  options: {
    module: { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '5' },
    'duration-ms': { type: 'string', default: '1500' },
    'warmup-ms': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '32' },
    'skip-postgres': { type: 'boolean', default: false },
  },
});
const modules = args.module.map((m) => resolve(m));
if (!modules.length) throw new Error('give at least one --module path/to/sandbox.ts');
const rounds = Number(args.rounds);
const window = { warmupMs: Number(args['warmup-ms']), durationMs: Number(args['duration-ms']) };
const concurrency = Number(args.concurrency);
const progress = (message: string) => process.stderr.write(`[journal-refusals] ${message}\n`);
const load = () => `load average (1 min) ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs`;

interface Target {
  label: string;
  url: string;
  service: Service<ServerReady>;
  pool: KeyPool;
  dbParent?: number;
  rps: number[];
  cpuUs: number[];
}

const owned: (() => Promise<unknown>)[] = [];
const tempDir = mkdtempSync(join(tmpdir(), 'journal-refusals-'));
owned.push(async () => rmSync(tempDir, { recursive: true, force: true }));

async function adminCall(url: string, token: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  if (res.status >= 300) throw new Error(`admin POST ${path} → ${res.status} ${await res.text()}`);
  return res.json();
}

async function startTarget(label: string, module: string, store: { file: string } | { databaseUrl: string }, dbParent?: number): Promise<Target> {
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const config: ServerConfig = { kind: 'sandbox', adminToken, module, ...store };
  const service = await forkService<ServerReady>(join(here, 'server.ts'), { args: [JSON.stringify(config)], execArgv: sandboxNodeFlags, startTimeoutMs: 60_000 });
  owned.push(() => service.stop(15_000));
  const url = `http://127.0.0.1:${service.ready.port}`;
  const org = await adminCall(url, adminToken, '/organizations', { name: 'journal refusals', banking: true, funding: FUNDING });
  return { label, url, service, pool: new KeyPool({ url, adminToken }, org.id), ...(dbParent ? { dbParent } : {}), rps: [], cpuUs: [] };
}

async function measure(loadgen: Service<{ type: 'ready' }>, target: Target, block: number): Promise<void> {
  const best = Math.max(20_000, ...target.rps);
  await target.pool.ensure(Math.ceil((best * 2 * (window.warmupMs + window.durationMs)) / 1000) + concurrency * 2);
  const spec: LoadSpec = {
    url: target.url,
    keys: target.pool.keys,
    budgets: target.pool.budgets,
    concurrency,
    client: 'raw',
    ...window,
    requestTimeoutMs: 10_000,
    serverPids: [target.service.pid, ...childrenOf(target.service.pid)],
    ...(target.dbParent ? { dbParent: target.dbParent } : {}),
    method: 'POST',
    path: TRANSFERS_PATH,
    body: JSON.stringify({ recipientId: 'rcp_01JD7Q3Z8X4K2M9N5P6R7S8T9V', amount: 'x' }), // not an amount: the spec's schema refuses it
    idempotency: 'new',
    idempotencyPrefix: `refused-${block}`,
    expectStatus: 400,
  };
  const { result } = await loadgen.request<{ result: LoadResult }>('run', { spec }, window.warmupMs + window.durationMs + 60_000);
  target.pool.settle(result.used);
  if (result.errors) throw new Error(`${target.label}: ${result.errors} unexpected answers, e.g. ${result.errorSamples.join('; ')}`);
  target.rps.push(result.rps);
  target.cpuUs.push(((result.serverCpu + result.dbCpu) * 10_000) / result.rps); // % of one core → µs per request
  progress(`${target.label}: ${Math.round(result.rps)} req/s, ${Math.round(target.cpuUs.at(-1)!)} µs CPU/req (server ${Math.round(result.serverCpu)}%, PG ${Math.round(result.dbCpu)}%, others ${Math.round(Math.max(0, result.machineCpu - result.serverCpu - result.dbCpu - result.loadgenCpu))}%)`);
}

async function main(): Promise<void> {
  let pg: ThrowawayPostgres | undefined;
  if (!args['skip-postgres']) {
    pg = await startThrowawayPostgres();
    owned.push(() => pg!.stop());
  }
  const postmaster = pg ? Number(readFileSync(join(pg.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) : undefined;
  const targets: Target[] = [];
  for (const [i, module] of modules.entries()) {
    targets.push(await startTarget(`${module} node:sqlite`, module, { file: join(tempDir, `m${i}.db`) }));
    if (pg) targets.push(await startTarget(`${module} PostgreSQL`, module, { databaseUrl: await pg.createDatabase(`refusals_${i}`) }, postmaster));
  }
  const loadgen = await forkService<{ type: 'ready' }>(join(here, 'loadgen.ts'), { startTimeoutMs: 30_000 });
  owned.push(() => loadgen.stop(15_000));
  progress(`start: ${load()}`);
  let block = 0;
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const target of round % 2 ? order.reverse() : order) await measure(loadgen, target, ++block);
  }
  process.stdout.write(`\nRefused requests (400), ${concurrency} connections, ${rounds} rounds of ${window.durationMs} ms; end: ${load()}\n`);
  process.stdout.write('| module, store | req/s median | CPU µs/req median | CPU µs/req range |\n|---|---|---|---|\n');
  for (const t of targets) {
    process.stdout.write(`| ${t.label} | ${Math.round(median(t.rps))} | ${Math.round(median(t.cpuUs))} | ${Math.round(Math.min(...t.cpuUs))}–${Math.round(Math.max(...t.cpuUs))} |\n`);
  }
}

try {
  await main();
} finally {
  for (const stop of owned.reverse()) await stop().catch((err: unknown) => progress(`stopping failed: ${String(err)}`));
}
