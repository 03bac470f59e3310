// What this machine's PostgreSQL alone can do with the statements the sandbox sends: the ceiling of the
// shared mode, with no Node.js in the way. It starts a throwaway server (fsync and synchronous_commit on),
// runs the real sandbox on it, records every statement the store sends for one request of each kind (a new
// POST transfer, its replay, a GET balance), and replays each recording through pgbench: prepared
// statements, 32 clients, `--seconds` each. A new key, transfer id and request id per pgbench transaction
// keep every POST a first request. Nothing here is a second copy of the store's SQL: the statements are
// the ones the store sent. They are a lone request's: under load the store shares its statements outside a
// transaction between the requests of one event-loop turn (postgres-per-turn.ts), so a GET can go beyond
// this figure; a POST's transaction is its own. The statements the store sent while another of the
// request's was still in flight (its pipelined transaction) count as one round trip, and pgbench sends them
// in one pipeline (\startpipeline … \endpipeline) too. The sandbox bench runs pgCeiling() on its own server
// after its rounds, so each PostgreSQL row reads as a share of it. Beside pgbench, each POST's transaction is
// also sent by node-postgres from this process with nothing else around it (pg-driver-floor.ts): the most
// a sandbox on that driver can reach on this machine.
//
//   node tools/launch.mjs bench-pg-ceiling [-- --seconds 10 --clients 32]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { BALANCE_SLOTS, createPostgresStore } from '../../packages/sandbox/src/store/postgres.ts';
import { demoOrganization } from '../../tools/lib/demo-organization.ts';
import { recordRoundTrips, type Sent } from '../../tools/lib/pg-round-trips.ts';
import { startThrowawayPostgres } from '../../tools/lib/postgres.ts';
import { median, mostShared } from '../lib/stats.ts';
import { machineCpuMs } from '../lib/proc.ts';
import { driverFloor, type DriverFloor } from './pg-driver-floor.ts';

/**
 * Which parameter of `text` is the balance slot (of an INSERT INTO balances whose VALUES follow its column
 * list, read from the statement itself), or -1.
 */
function balanceSlotParam(text: string): number {
  const insert = /INSERT INTO balances \(([^)]*)\) VALUES \(([^)]*)\)/.exec(text); // alone, or among a statement's writes
  if (!insert) return -1;
  const column = insert[1]!.split(',').findIndex((name) => name.trim() === 'slot');
  const value = insert[2]!.split(',')[column]?.trim();
  return value?.startsWith('$') ? Number(value.slice(1)) - 1 : -1;
}
/** Runs of each request recorded: enough to see every value the store picks at random (16 balance slots). */
const RECORDINGS = 64;
const progress = (message: string) => process.stderr.write(`[pg-ceiling] ${message}\n`);

/**
 * A pgbench script of one request's recorded statements (several recordings of the same request): values
 * inlined; the request's own ids (key, resource id) made new per transaction; the balance slot the client's
 * own, as it is the pooled connection's own; another integer that differed between recordings (a time)
 * drawn at random from the range seen.
 */
/**
 * The recordings with first the one whose grouping into round trips most runs share. Which round trip a
 * statement joins can depend on which of two answers Node read first (a replay's journal INSERT, sent once the
 * key's read answered, while the recipient's read-ahead may still be in flight): one run's race must not decide
 * how pgbench groups the statements.
 */
export function typical(runs: Sent[][]): { recordings: Sent[][]; shared: number } {
  const { item: first, count: shared } = mostShared(runs, (sent) => sent.map((s) => s.roundTrip).join(','));
  return { recordings: [first, ...runs.filter((sent) => sent !== first)], shared };
}

function pgbenchScript(recordings: Sent[][], perTransaction: string[]): string {
  const [template, ...others] = recordings;
  const shape = (sent: Sent[]) => sent.map((s) => s.text).join('\n');
  if (!template || others.some((sent) => shape(sent) !== shape(template))) throw new Error('the recordings of one request sent different statements');
  const lines = ['\\set n random(1, 1000000000000)'];
  const literal = (value: unknown): string => {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`; // the statements a turn's requests share
    let text = String(value);
    for (const [i, id] of perTransaction.entries()) text = text.split(id).join(`\u0000${i}\u0000`);
    // An escape string (E'…'): pgbench reads a colon anywhere as a variable, so a colon is written \x3a.
    const quoted = `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/:/g, '\\x3a')}'`;
    // A per-transaction id inside a literal: concatenated with pgbench's :n variable.
    return quoted.replace(/\u0000(\d+)\u0000/g, (_, i: string) => `' || 'r${i}_' || :n || E'`);
  };
  const value = (statement: number, param: number): string => {
    const seen = recordings.map((sent) => sent[statement]!.values[param]);
    const integers = seen.map(Number);
    // The balance slot is the pooled connection's own (postgres.ts): each pgbench client gets its own too.
    if (param === balanceSlotParam(template[statement]!.text)) return `(:client_id % ${BALANCE_SLOTS})`;
    if (new Set(seen.map(String)).size === 1 || !seen.every((v) => typeof v !== 'object' && /^-?\d+$/.test(String(v)))) return literal(seen[0]);
    const name = `v${statement}_${param}`;
    lines.push(`\\set ${name} random(${Math.min(...integers)}, ${Math.max(...integers)})`);
    return `:${name}`;
  };
  // Statements the store sent together (one round trip) are sent together here too (a pgbench pipeline).
  const together = (trip: number) => template.filter((s) => s.roundTrip === trip).length > 1;
  template.forEach(({ text, roundTrip }, statement) => {
    if (together(roundTrip) && template[statement - 1]?.roundTrip !== roundTrip) lines.push('\\startpipeline');
    const inlined = text.replace(/\$(\d+)/g, (_, i: string) => value(statement, Number(i) - 1));
    lines.push(`${inlined.replace(/\s+/g, ' ').trim()};`);
    if (together(roundTrip) && template[statement + 1]?.roundTrip !== roundTrip) lines.push('\\endpipeline');
  });
  return lines.join('\n') + '\n';
}

/** What pgbench did with one request's statements. */
export interface CeilingRow {
  name: 'POST transfer, new key' | 'POST transfer, replay' | 'GET balance';
  statements: number;
  roundTrips: number;
  /** Socket writes to PostgreSQL of one request (the recordings' median). */
  writes: number;
  tps: number;
  latencyMs: number;
  /** CPU time the whole machine (PostgreSQL and pgbench, on a quiet machine) used per transaction, µs. */
  machineUsPerRequest: number;
  /** The statements of one recording, each with its round trip. */
  sent: Sent[];
  /** The transaction's statements sent by node-postgres from one Node.js process, nothing else (pg-driver-floor.ts); none for a GET. */
  floor?: DriverFloor;
}

function pgbench(url: string, script: string, work: string, options: CeilingOptions): { tps: number; latencyMs: number; machineUsPerRequest: number } {
  const file = join(work, 'script.sql');
  writeFileSync(file, script);
  const before = machineCpuMs();
  const run = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(options.clients), '-j', '2', '-T', String(options.seconds), '-f', file, url], { encoding: 'utf8' });
  if (run.error) throw new Error(`pgbench: ${run.error.message} (it ships with the PostgreSQL client package)`);
  const tps = /tps = ([\d.]+)/.exec(run.stdout)?.[1];
  const latency = /latency average = ([\d.]+) ms/.exec(run.stdout)?.[1];
  if (!tps) throw new Error(`pgbench failed:\n${run.stdout}\n${run.stderr}`);
  const busyMs = (machineCpuMs()?.busy ?? Number.NaN) - (before?.busy ?? Number.NaN);
  return { tps: Number(tps), latencyMs: Number(latency), machineUsPerRequest: (busyMs * 1000) / (Number(tps) * options.seconds) };
}

export interface CeilingOptions {
  seconds: number;
  clients: number;
}

/**
 * The ceiling on the database at `url` (a database of its own: the sandbox migrates it and makes an
 * organization there): records each request's statements through an in-process sandbox, then runs pgbench.
 */
export async function pgCeiling(url: string, options: CeilingOptions): Promise<CeilingRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'pg-ceiling-'));
  const store = createPostgresStore({ url });
  const sandbox = await startSandbox({ store, port: 0, host: '127.0.0.1' });
  let open = true;
  const close = async () => {
    if (!open) return;
    open = false;
    await sandbox.close();
    await store.close();
  };
  try {
    const key = await demoOrganization(sandbox, generateApiKey());
    const api = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
      fetch(`${sandbox.url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const recipient = (await (await api('POST', '/v1/banking/recipients', { nickname: 'ceiling', rail: 'brl_pix', pixKey: 'ceiling@example.com' }, 'rcp-ceiling')).json()) as { id: string };
    /** The statements each of `times` runs of a request sent (each run numbered, from 0). */
    const record = async (times: number, request: (run: number) => Promise<Response>) => {
      const runs: { body: Record<string, unknown>; sent: Sent[]; writes: number }[] = [];
      for (let run = 0; run < times; run++) {
        const { sent, writes, result: response } = await recordRoundTrips(url, () => request(run));
        const body = (await response.json()) as Record<string, unknown>;
        if (response.status >= 300) throw new Error(`${response.status} ${JSON.stringify(body)}`);
        runs.push({ body, sent, writes });
      }
      return runs;
    };
    const transfer = (key: string) => api('POST', '/v1/banking/transfers', { recipientId: recipient.id, amount: '1.00' }, key);
    const posts = await record(RECORDINGS, (run) => transfer(`ceiling-${run}`));
    const replays = await record(RECORDINGS, () => transfer('ceiling-0'));
    const balances = await record(RECORDINGS, () => api('GET', '/v1/banking/balance'));
    await close(); // not competing with pgbench
    const recorded: [CeilingRow['name'], Sent[][], string[], number[]][] = [
      ['POST transfer, new key', posts.map((r) => r.sent), ['ceiling-0', String(posts[0]!.body.id)], posts.map((r) => r.writes)],
      ['POST transfer, replay', replays.map((r) => r.sent), [], replays.map((r) => r.writes)],
      ['GET balance', balances.map((r) => r.sent), [], balances.map((r) => r.writes)],
    ];
    const measured = recorded.map(([name, runs, ids, writes]) => {
      const { recordings, shared } = typical(runs);
      const sent = recordings[0]!;
      const write = median(writes);
      progress(`${name}: ${sent.length} statements in ${sent.at(-1)!.roundTrip} round trips (${write} socket writes; that grouping in ${shared} of ${runs.length} recordings), pgbench for ${options.seconds} s`);
      return { name, statements: sent.length, roundTrips: sent.at(-1)!.roundTrip, writes: write, sent, ids, ...pgbench(url, pgbenchScript(recordings, ids), work, options) };
    });
    const rows: CeilingRow[] = [];
    for (const { ids, ...row } of measured) {
      // From its first statement of its own on: what a request cannot share (the statements before it, the
      // caller and its rate limits, take arrays: one statement for all the requests of an event-loop turn
      // under load). A GET has none of its own.
      const begin = row.sent.findIndex((s) => !s.text.includes('::text[]'));
      if (begin < 0) {
        rows.push(row);
        continue;
      }
      progress(`${row.name}: its transaction's statements through node-postgres for ${options.seconds} s`);
      rows.push({ ...row, floor: await driverFloor(url, row.sent.slice(begin), ids, balanceSlotParam, options) });
    }
    return rows;
  } finally {
    await close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, clients: { type: 'string', default: '32' } } });
  const options = { seconds: Number(args.seconds), clients: Number(args.clients) };
  const server = await startThrowawayPostgres({ settings: { fsync: 'on', synchronous_commit: 'on' } });
  try {
    const rows = await pgCeiling(server.url, options);
    console.log(`\nPostgreSQL alone with the sandbox's statements (pgbench, ${options.clients} clients, prepared, fsync and synchronous_commit on, ${options.seconds} s each)\n`);
    for (const r of rows) {
      console.log(`${r.name.padEnd(24)} ${String(r.statements).padStart(2)} statements in ${String(r.roundTrips).padStart(2)} round trips  ${Math.round(r.tps).toLocaleString('en-US').padStart(8)} tps   ${r.latencyMs} ms average latency, ${Math.round(r.machineUsPerRequest)} µs of CPU per transaction (PostgreSQL and pgbench)`);
      if (r.floor) console.log(`${''.padEnd(24)} its transaction through node-postgres alone: ${Math.round(r.floor.tps).toLocaleString('en-US')} tps (${(r.floor.tps / r.tps).toFixed(2)}× pgbench), ${Math.round(r.floor.cpuUsPerRequest)} µs of Node.js CPU and ${Math.round(r.floor.othersUsPerRequest)} µs of PostgreSQL's per transaction`);
    }
    console.log('\nThe statements of each request, in order, by round trip (a number: sent together, then waited for):');
    for (const r of rows) {
      console.log(`  ${r.name}: ${r.statements} statements in ${r.roundTrips} round trips, ${r.writes} socket writes`);
      for (const s of r.sent) console.log(`    ${String(s.roundTrip).padStart(2)}  ${s.text.replace(/\s+/g, ' ').slice(0, 110)}`);
    }
  } finally {
    await server.stop();
  }
}
