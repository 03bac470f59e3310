// The load generator, in its own process (run.ts forks it once and keeps it): for each `run` request, a
// LoadSpec, it opens `concurrency` keep-alive connections and runs that many request loops, each sending
// its next request as soon as the previous answer is read. Connections: raw-http.ts (one socket per loop,
// the default: cheap enough not to be the bottleneck), or a node:http Agent (`client: 'http'`). It rotates API keys round
// robin within their budgets (the sandbox allows 600 requests per 15 minutes per key), checks every answer
// (status, and the replayed id or echoed Idempotency-Key where asked), and answers a LoadResult.
// Every loop is bounded: by the window's end or the request count, by a per-request timeout, by a cap on
// errors, and by a hard limit on the whole run. It exits when its parent goes away.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMsOf, machineCpuMs, treeCpuMsOf } from '../lib/proc.ts';
import { answer } from '../lib/service.ts';
import type { LoadResult, LoadSpec } from './ops.ts';
import { RawHttpConnection, type Reply } from './raw-http.ts';

const MAX_ERRORS = 50; // a run with this many bad answers stops at once: something is wrong, not slow
const MAX_SAMPLES = 5;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const { hostname, port } = new URL(spec.url);
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);

  const budgets = spec.budgets.slice();
  const used = new Array<number>(spec.keys.length).fill(0);
  let keyCursor = 0;
  /** The next key with budget left, round robin; -1 when every key is spent. */
  const nextKey = (): number => {
    for (let tried = 0; tried < spec.keys.length; tried++) {
      const i = keyCursor;
      keyCursor = (keyCursor + 1) % spec.keys.length;
      if (budgets[i]! > 0) {
        budgets[i]!--;
        used[i]!++;
        return i;
      }
    }
    return -1;
  };

  // One sender per loop. node:http: a shared keep-alive Agent with one socket per loop.
  type Send = (key: string, idempotencyKey: string | undefined) => Promise<Reply>;
  let senders: Send[];
  let closeAll: () => void;
  let sweep: NodeJS.Timeout | undefined;
  if (spec.client === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
    const baseHeaders: Record<string, string> = body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {};
    const send: Send = (key, idempotencyKey) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...baseHeaders, 'x-api-key': key };
        if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
        const req = request({ agent, hostname, port, method: spec.method, path: spec.path, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        });
        req.setTimeout(spec.requestTimeoutMs, () => req.destroy(new Error(`no answer within ${spec.requestTimeoutMs} ms`)));
        req.on('error', reject);
        req.end(body);
      });
    senders = Array.from({ length: spec.concurrency }, () => send);
    closeAll = () => agent.destroy();
  } else {
    const head = `${spec.method} ${spec.path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n`;
    const tail = body ? `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${spec.body}` : '\r\n';
    const servers = (spec.urls ?? [spec.url]).map((u) => new URL(u));
    const connections = Array.from({ length: spec.concurrency }, (_, i) => new RawHttpConnection(servers[i % servers.length]!.hostname, Number(servers[i % servers.length]!.port)));
    senders = connections.map((connection) => (key, idempotencyKey) =>
      connection.request(`${head}x-api-key: ${key}\r\n${idempotencyKey === undefined ? '' : `idempotency-key: ${idempotencyKey}\r\n`}${tail}`),
    );
    sweep = setInterval(() => {
      const now = performance.now();
      for (const c of connections) c.expire(now, spec.requestTimeoutMs);
    }, 250);
    closeAll = () => {
      for (const c of connections) c.close();
    };
  }

  const countMode = spec.maxRequests !== undefined;
  const started = performance.now();
  const windowStart = countMode ? started : started + spec.warmupMs;
  let windowEnd = countMode ? Number.POSITIVE_INFINITY : windowStart + spec.durationMs;
  const hardStop = started + (countMode ? (spec.limitMs ?? 600_000) : spec.warmupMs + spec.durationMs + spec.requestTimeoutMs);

  let latencies = new Float64Array(1 << 16);
  let measured = 0;
  let sent = 0;
  let ok = 0;
  let errors = 0;
  const errorSamples: string[] = [];
  let exhausted = false;
  let stop = false;
  let sequence = 0;
  // Open loop (spec.ratePerSecond): the n-th request is due at started + n × interval, whichever connection takes it.
  const interval = spec.ratePerSecond ? 1000 / spec.ratePerSecond : 0;
  let due = 0;
  const nextDue = (): number | undefined => (interval ? started + interval * due++ : undefined);

  // CPU over the window: ours (process.cpuUsage), the server's and the database's (/proc), read when the
  // window opens/closes. The server's per process (one that is not there at both readings counts 0); the
  // database's as its postmaster's whole tree, so backends and autovacuum workers that start or end inside
  // the window count what they used in it.
  type PerProcess = Map<number, number>;
  type CpuSample = { ours: NodeJS.CpuUsage; server: PerProcess; db: number; machine: number; at: number };
  const cpuOf = (pids: readonly number[]): PerProcess => new Map(pids.flatMap((pid) => { const ms = cpuMsOf(pid); return ms === undefined ? [] : [[pid, ms] as const]; }));
  const usedBetween = (start: PerProcess, end: PerProcess) => [...end].reduce((sum, [pid, ms]) => sum + (start.has(pid) ? ms - start.get(pid)! : 0), 0);
  let cpuStart: CpuSample | undefined;
  let cpuEnd: CpuSample | undefined;
  const sampleCpu = (): CpuSample => ({ ours: process.cpuUsage(), server: cpuOf(spec.serverPids), db: spec.dbParent === undefined ? 0 : (treeCpuMsOf(spec.dbParent) ?? Number.NaN), machine: machineCpuMs()?.busy ?? Number.NaN, at: performance.now() });
  const openTimer = setTimeout(() => (cpuStart = sampleCpu()), Math.max(0, windowStart - performance.now()));
  const closeTimer = countMode ? undefined : setTimeout(() => (cpuEnd = sampleCpu()), Math.max(0, windowEnd - performance.now()));

  const fail = (what: string) => {
    errors++;
    if (errorSamples.length < MAX_SAMPLES) errorSamples.push(what.slice(0, 300));
    if (errors >= MAX_ERRORS) stop = true;
  };

  async function loop(send: Send): Promise<void> {
    while (!stop) {
      const dueAt = nextDue();
      const early = dueAt !== undefined && dueAt > performance.now();
      if (early) await sleep(dueAt - performance.now());
      const now = performance.now();
      if (now >= windowEnd || now >= hardStop) return;
      if (countMode && sent >= spec.maxRequests!) return;
      const k = nextKey();
      if (k < 0) {
        exhausted = true;
        stop = true;
        return;
      }
      const idempotencyKey =
        spec.idempotency === 'new' ? `${spec.idempotencyPrefix}-${++sequence}` : spec.idempotency === 'uuid' ? randomUUID() : spec.idempotency === 'fixed' ? spec.idempotencyKey : undefined;
      sent++;
      const t0 = performance.now();
      let reply: Reply;
      try {
        reply = await send(spec.keys[k]!, idempotencyKey);
      } catch (err) {
        fail(`network: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const t1 = performance.now();
      const from = dueAt === undefined || early ? t0 : dueAt; // late: every connection was busy when it was due
      if (
        reply.status !== spec.expectStatus ||
        (spec.expectText !== undefined && !reply.text.includes(spec.expectText)) ||
        (spec.expectEcho && idempotencyKey !== undefined && !reply.text.includes(`"${idempotencyKey}"`))
      ) {
        fail(`${reply.status} ${reply.text}`);
        continue;
      }
      ok++;
      if (t1 >= windowStart && t1 <= windowEnd) {
        if (measured === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[measured++] = t1 - from;
      }
    }
  }

  try {
    await Promise.all(senders.map((send) => loop(send)));
  } finally {
    clearTimeout(openTimer);
    if (closeTimer) clearTimeout(closeTimer);
    if (sweep) clearInterval(sweep);
    closeAll();
  }
  if (countMode) {
    windowEnd = performance.now();
    cpuStart ??= sampleCpu();
    cpuEnd = sampleCpu();
  }
  cpuEnd ??= sampleCpu();
  cpuStart ??= cpuEnd;
  const cpuWall = Math.max(1, cpuEnd.at - cpuStart.at);
  const oursMs = (cpuEnd.ours.user + cpuEnd.ours.system - cpuStart.ours.user - cpuStart.ours.system) / 1000;
  const windowMs = windowEnd - windowStart;
  const sorted = latencies.subarray(0, measured).sort();
  return {
    measured,
    windowMs,
    rps: (measured * 1000) / windowMs,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: measured ? sorted[measured - 1]! : Number.NaN,
    sent,
    ok,
    errors,
    errorSamples,
    used,
    exhausted,
    loadgenCpu: (100 * oursMs) / cpuWall,
    serverCpu: (100 * usedBetween(cpuStart.server, cpuEnd.server)) / cpuWall,
    dbCpu: (100 * (cpuEnd.db - cpuStart.db)) / cpuWall,
    machineCpu: (100 * (cpuEnd.machine - cpuStart.machine)) / cpuWall,
  };
}

answer('run', async (message) => ({ result: await run(message.spec as LoadSpec) }));
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.send?.({ type: 'ready' });
