// The sandbox bench's tables and verdict lines, from the measured numbers. Pure formatting: nothing runs here.
import { max, median, min, table } from '../lib/stats.ts';
import type { LoadResult, OpId, ServerId } from './ops.ts';
import { opLabel, OPS, serverLabel } from './ops.ts';

export const POST_TARGET = 10; // POST transfer on the sandbox ≥ 10× Prism's req/s
export const GET_TARGET = 0.5; // GET balance on the sandbox ≥ 0.5× the bare node:http server
export const IDLE_RSS_TARGET = 120e6; // idle RSS < 120 MB (MB = 10^6 B: the stricter reading)
export const LOADED_RSS_TARGET = 250e6; // RSS after 100k transfers < 250 MB (embedded)

export type Rows = Map<string, LoadResult[]>;
export const rowKey = (op: OpId, server: ServerId) => `${op}|${server}`;

/** The server each operation's ratio is taken against: the floor for GET, Prism for the POSTs. */
export const referenceOf = (op: OpId): ServerId => (op === 'balance' ? 'bare' : 'prism');

const fmtRps = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
const fmtMs = (n: number) => (!Number.isFinite(n) ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1));
const fmtPct = (n: number) => (Number.isFinite(n) ? `${Math.round(n)}%` : '-');
const fmtX = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)}×` : '-');
export const fmtMB = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1e6).toFixed(1)} MB` : '-');
export const fmtMiB = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(1)} MiB` : '-');

const pick = (results: LoadResult[], f: (r: LoadResult) => number) => results.map(f);

export function medianRps(rows: Rows, op: OpId, server: ServerId): number {
  const results = rows.get(rowKey(op, server));
  return results ? median(pick(results, (r) => r.rps)) : Number.NaN;
}

/** `server`'s req/s over the reference's in the same round (they ran minutes apart at most). */
export function pairedRatios(rows: Rows, op: OpId, server: ServerId): number[] {
  const ours = rows.get(rowKey(op, server)) ?? [];
  const ref = rows.get(rowKey(op, referenceOf(op))) ?? [];
  return ours.map((r, i) => r.rps / (ref[i]?.rps ?? Number.NaN)).filter(Number.isFinite);
}

export function throughputTable(rows: Rows, servers: readonly ServerId[]): string {
  const out: string[][] = [];
  for (const op of OPS) {
    const ref = medianRps(rows, op, referenceOf(op));
    for (const server of servers) {
      const results = rows.get(rowKey(op, server));
      if (!results?.length) continue;
      const rps = pick(results, (r) => r.rps);
      const serverCpu = median(pick(results, (r) => r.serverCpu));
      const cpuPerReq = cpuPerRequest(rows, op, server);
      out.push([
        opLabel[op],
        server,
        fmtRps(median(rps)),
        `${fmtRps(min(rps))}–${fmtRps(max(rps))}`,
        fmtMs(median(pick(results, (r) => r.p50))),
        fmtMs(median(pick(results, (r) => r.p99))),
        server === referenceOf(op) ? '1.00× (ref)' : fmtX(median(rps) / ref),
        fmtPct(serverCpu),
        server === 'sandbox-postgres' ? fmtPct(median(pick(results, (r) => r.dbCpu))) : '',
        Number.isFinite(cpuPerReq) ? `${Math.round(cpuPerReq)}` : '-',
        fmtPct(median(pick(results, (r) => r.loadgenCpu))),
        fmtPct(median(pick(results, (r) => r.harnessCpu ?? Number.NaN))),
        fmtPct(median(pick(results, (r) => r.othersCpu ?? Number.NaN))),
      ]);
    }
  }
  return table(
    ['operation', 'server', 'req/s median', 'range (rounds)', 'p50 ms', 'p99 ms', 'ratio', 'server CPU', 'PG CPU', 'CPU µs/req', 'loadgen CPU', 'harness CPU', 'others CPU'],
    out,
    ['left', 'left'],
  );
}

export function legend(servers: readonly ServerId[]): string {
  return [
    '  GET balance = GET /v1/banking/balance; POST transfer = POST /v1/banking/transfers with a new Idempotency-Key',
    '  per request (new key: <prefix>-<n>, consecutive keys that sort together; new UUID key: crypto.randomUUID(), as our',
    '  client sends, landing all over the key index) or one key and one body sent again and again (replay: the stored answer).',
    ...servers.map((s) => `  ${s.padEnd(16)} ${serverLabel[s]}`),
    '  ratio: req/s median over the reference’s (GET: bare node:http; POSTs: Prism). p50/p99: medians over rounds of',
    '  each round’s percentiles. server CPU: % of one core over the measured window, the server process only;',
    '  PG CPU: the PostgreSQL server’s processes; CPU µs/req: server (+ PG) CPU time per answered request;',
    '  loadgen / harness CPU: the load generator and this harness (Prism’s request log is read by the harness);',
    '  others CPU: what the rest of the machine used meanwhile (/proc/stat busy minus all of the above) — noise.',
  ].join('\n');
}

export interface Verdict {
  name: string;
  pass: boolean;
  line: string;
}

/** Median server (+ PostgreSQL) CPU time per answered request, µs: less sensitive to other processes than req/s. */
export function cpuPerRequest(rows: Rows, op: OpId, server: ServerId): number {
  const results = rows.get(rowKey(op, server));
  // % of one core → µs per request; PostgreSQL's processes count for the sandbox on PostgreSQL.
  return results ? median(pick(results, (r) => ((r.serverCpu + r.dbCpu) * 10_000) / r.rps)) : Number.NaN;
}

function ratioPart(rows: Rows, op: OpId, server: ServerId, target: number): { pass: boolean; text: string } {
  const ours = medianRps(rows, op, server);
  const ref = medianRps(rows, op, referenceOf(op));
  const paired = pairedRatios(rows, op, server);
  const ratio = ours / ref;
  const pass = ratio >= target;
  const cpuOurs = cpuPerRequest(rows, op, server);
  const cpuRef = cpuPerRequest(rows, op, referenceOf(op));
  return {
    pass,
    text:
      `${pass ? 'PASS' : 'FAIL'} ${opLabel[op]}: ${fmtRps(ours)} vs ${fmtRps(ref)} req/s = ${fmtX(ratio)} (same-round ratios ${fmtX(min(paired))}–${fmtX(max(paired))}; ` +
      `by CPU time per request ${Math.round(cpuOurs)} vs ${Math.round(cpuRef)} µs = ${fmtX(cpuRef / cpuOurs)})`,
  };
}

export function postVerdict(rows: Rows, server: ServerId, label: string): Verdict {
  const parts = (['transfer-new', 'transfer-uuid', 'transfer-replay'] as const).map((op) => ratioPart(rows, op, server, POST_TARGET));
  const pass = parts.every((p) => p.pass);
  return {
    name: `post ${server}`,
    pass,
    line: `VERDICT POST transfer on the sandbox (${label}) ≥ ${POST_TARGET}× Prism's req/s for the same operation → ${pass ? 'PASS' : 'FAIL'}\n  ${parts.map((p) => p.text).join('\n  ')}`,
  };
}

export function getVerdict(rows: Rows, server: ServerId, label: string): Verdict {
  const part = ratioPart(rows, 'balance', server, GET_TARGET);
  return {
    name: `get ${server}`,
    pass: part.pass,
    line: `VERDICT GET balance on the sandbox (${label}) ≥ ${GET_TARGET}× the bare node:http server → ${part.pass ? 'PASS' : 'FAIL'}\n  ${part.text}`,
  };
}

export function rssVerdict(name: string, what: string, bytes: number, target: number, note = ''): Verdict {
  const pass = bytes < target;
  const margin = `${(Math.abs(bytes - target) / 1e6).toFixed(2)} MB ${pass ? 'under' : 'over'}`;
  return {
    name,
    pass,
    line: `VERDICT ${what} < ${fmtMB(target)} (MB = 10^6 B) → ${pass ? 'PASS' : 'FAIL'}: ${(bytes / 1e6).toFixed(2)} MB = ${fmtMiB(bytes)}, ${margin}${note}`,
  };
}

export interface MemoryRow {
  server: ServerId;
  when: string;
  rss: number;
  peakRss: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}

export function memoryTable(rows: MemoryRow[]): string {
  return table(
    ['server process', 'when', 'RSS (VmRSS)', 'peak (VmHWM)', 'JS heap used / total', 'external + buffers'],
    rows.map((r) => [
      r.server,
      r.when,
      `${fmtMB(r.rss)} (${fmtMiB(r.rss)})`,
      fmtMB(r.peakRss),
      r.heapUsed === undefined || r.heapTotal === undefined ? '-' : `${fmtMB(r.heapUsed)} / ${fmtMB(r.heapTotal)}`,
      r.external === undefined ? '-' : fmtMB(r.external),
    ]),
    ['left', 'left'],
  );
}
