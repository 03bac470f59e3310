// What node:sqlite alone can do with the statements the embedded sandbox runs: the ceiling of the embedded
// store on this machine, as pg-ceiling.ts is PostgreSQL's. It runs the real sandbox in this process on a
// SQLite file, records every statement the store runs for one request of each kind the bench measures (GET
// balance, POST transfer with a new key, with a new UUID key, a replay), then runs each recording again and
// again on its own connection to the same file: no HTTP, no pipeline, no JavaScript of the sandbox's, one
// thread, the store's file settings, a COMMIT per `batch` requests (the group commit: under the bench's 32
// connections no batch holds more than 32), with the batch's own statements once per batch. A new key and transfer id per run keep every new-key POST a first
// request. Nothing here is a second copy of the store's SQL: the statements are the ones the store ran.
// Left out: the journal's trim (a DELETE per 1,000 entries of an organization, in a transaction of its own)
// and the caller lookup's SELECT (cached between requests). So this is a ceiling: the sandbox cannot run
// these statements faster than SQLite does alone.
//
//   node tools/launch.mjs bench-sqlite-ceiling [-- --seconds 2 --batch 32]
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SQLInputValue, StatementSync } from 'node:sqlite';
import { newId } from '../../packages/sandbox/src/ids.ts';
import { startSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { createSqliteStore, FILE_SETTINGS } from '../../packages/sandbox/src/store/sqlite.ts';
import { BALANCE_PATH, TRANSFERS_PATH, type OpId } from './ops.ts';
import { createTenant } from './provision.ts';
import { mostShared } from '../lib/stats.ts';

/** The operations measured: those of the embedded targets (the balance reads at 100k and 1M run the same statements). */
export const CEILING_OPS = ['balance', 'transfer-new', 'transfer-uuid', 'transfer-replay'] as const satisfies readonly OpId[];
type CeilingOp = (typeof CEILING_OPS)[number];

/** Runs of each request recorded (after two unrecorded ones, which warm the caller cache). */
const RECORDINGS = 8;
/**
 * The statements a batch runs once, around its requests' (sqlite-group-commit.ts): BEGIN IMMEDIATE, COMMIT, and
 * the caller cache's check for another connection's commits, made at each BEGIN and by a caller lookup outside a
 * batch (a lone request makes both; under load the first of a turn's lookups, the others finding the batch open).
 */
const DATA_VERSION = 'PRAGMA data_version';
const BATCH_STATEMENTS = new Set(['BEGIN IMMEDIATE', 'COMMIT', DATA_VERSION]);
const METHODS = ['all', 'get', 'run'] as const;
const progress = (message: string) => process.stderr.write(`[sqlite-ceiling] ${message}\n`);

/** One statement call the store made: its text, the StatementSync method, the parameters. */
interface Call {
  sql: string;
  method: (typeof METHODS)[number];
  params: SQLInputValue[];
}

export interface SqliteCeilingRow {
  op: CeilingOp;
  /** The statements of one request, in order (the batch's own, BATCH_STATEMENTS, not among them). */
  statements: string[];
  /** CPU time of this process (node:sqlite and SQLite) per request, µs. */
  cpuUsPerRequest: number;
  /** Requests per second, one thread. */
  rps: number;
}

export interface SqliteCeilingOptions {
  /** Seconds each operation's statements run. */
  seconds: number;
  /** Requests per COMMIT. */
  batch: number;
  /** The folder of the database file (its own file; the folder is left in place). */
  dir?: string;
}

/**
 * Records StatementSync calls while `work` runs (the prototype's methods, wrapped meanwhile): every statement
 * the store runs goes through one of them.
 */
async function recordCalls<T>(work: () => Promise<T>): Promise<{ calls: Call[]; result: T }> {
  const { StatementSync } = process.getBuiltinModule('node:sqlite');
  const proto = StatementSync.prototype as unknown as Record<string, (this: StatementSync, ...params: SQLInputValue[]) => unknown>;
  const originals = METHODS.map((method) => [method, proto[method]!] as const);
  const calls: Call[] = [];
  for (const [method, original] of originals) {
    proto[method] = function (this: StatementSync, ...params: SQLInputValue[]) {
      calls.push({ sql: this.sourceSQL, method, params });
      return original.apply(this, params);
    };
  }
  try {
    return { calls, result: await work() };
  } finally {
    for (const [method, original] of originals) proto[method] = original;
  }
}

/** A request's statements, as the real sandbox ran them for each operation (RECORDINGS runs each, the most shared one kept). */
async function recordRequests(file: string): Promise<{ op: CeilingOp; calls: Call[]; ids: string[] }[]> {
  const store = createSqliteStore({ file });
  const adminToken = `adm_${randomBytes(24).toString('base64url')}`;
  const sandbox = await startSandbox({ store, port: 0, host: '127.0.0.1', adminToken });
  try {
    const ref = { url: sandbox.url, adminToken };
    const recorded: { op: CeilingOp; calls: Call[]; ids: string[] }[] = [];
    for (const op of CEILING_OPS) {
      const tenant = await createTenant(ref, op);
      const created = await fetch(`${sandbox.url}/admin/organizations/${tenant.orgId}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
      const { key } = (await created.json()) as { key: string };
      const send = async (run: number) => {
        const idempotencyKey = op === 'transfer-new' ? `ceiling-new-${run}` : op === 'transfer-uuid' ? randomUUID() : tenant.replay?.idempotencyKey;
        const response = await fetch(`${sandbox.url}${op === 'balance' ? BALANCE_PATH : TRANSFERS_PATH}`, {
          method: op === 'balance' ? 'GET' : 'POST',
          headers: { 'x-api-key': key, ...(op === 'balance' ? {} : { 'content-type': 'application/json', 'idempotency-key': idempotencyKey! }) },
          ...(op === 'balance' ? {} : { body: tenant.transferBody }),
        });
        const body = (await response.json()) as { id?: string };
        if (response.status >= 300) throw new Error(`${op}: ${response.status} ${JSON.stringify(body)}`);
        return [idempotencyKey, body.id].filter((id): id is string => typeof id === 'string');
      };
      for (let run = 0; run < 2; run++) await send(run);
      const runs: { calls: Call[]; ids: string[] }[] = [];
      for (let run = 2; run < 2 + RECORDINGS; run++) {
        const { calls, result: ids } = await recordCalls(() => send(run));
        runs.push({ calls: calls.filter((c) => !BATCH_STATEMENTS.has(c.sql)), ids });
      }
      // The run whose statements most runs share (a run that met a trim, say, differs).
      const { calls, ids } = mostShared(runs, (r) => r.calls.map((c) => c.sql).join('\n')).item;
      // A new-key POST's key and transfer id are made new for each run; a replay's and a GET's stay.
      recorded.push({ op, calls, ids: op === 'transfer-new' || op === 'transfer-uuid' ? ids : [] });
    }
    return recorded;
  } finally {
    await sandbox.close();
    await store.close();
  }
}

/** `value` with each of `from` replaced by the same place's `to` (ids inside a JSON body too). */
function substituted(value: SQLInputValue, from: readonly string[], to: readonly string[]): SQLInputValue {
  if (typeof value !== 'string') return value;
  let text = value;
  from.forEach((id, i) => (text = text.split(id).join(to[i]!)));
  return text;
}

/** Runs `calls` as one request after another, `batch` per COMMIT, for `seconds`; new ids per run where `ids` are given. */
function replay(file: string, op: CeilingOp, calls: Call[], ids: string[], options: SqliteCeilingOptions): SqliteCeilingRow {
  const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(file);
  try {
    db.exec(FILE_SETTINGS);
    const prepared = new Map<string, StatementSync>();
    const statements = calls.map((c) => {
      if (!prepared.has(c.sql)) prepared.set(c.sql, db.prepare(c.sql));
      return { statement: prepared.get(c.sql)!, method: c.method, params: c.params };
    });
    const [dataVersion, begin] = [db.prepare(DATA_VERSION), db.prepare('BEGIN IMMEDIATE')];
    const commit = db.prepare('COMMIT');
    const idPrefix = ids[1]?.split('_')[0];
    const newIds = (n: number) => [op === 'transfer-uuid' ? randomUUID() : `ceiling-replayed-${n}`, newId(idPrefix ?? 'trf')];
    let requests = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    for (let batches = 0; performance.now() < deadline && batches < 10_000_000; batches++) {
      dataVersion.get();
      begin.run();
      for (let i = 0; i < options.batch; i++, requests++) {
        const to = ids.length ? newIds(requests) : [];
        for (const { statement, method, params } of statements) statement[method](...(ids.length ? params.map((p) => substituted(p, ids, to)) : params));
      }
      commit.run();
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { op, statements: calls.map((c) => c.sql), cpuUsPerRequest: (cpu.user + cpu.system) / requests, rps: requests / seconds };
  } finally {
    db.close();
  }
}

/** The ceiling of each operation: recorded from the real sandbox, then each request's statements alone. */
export async function sqliteCeiling(options: SqliteCeilingOptions): Promise<SqliteCeilingRow[]> {
  const dir = mkdtempSync(join(options.dir ?? tmpdir(), 'sqlite-ceiling-'));
  try {
    const file = join(dir, 'ceiling.db');
    const recorded = await recordRequests(file);
    return recorded.map(({ op, calls, ids }) => {
      progress(`${op}: ${calls.length} statements a request, alone for ${options.seconds} s, ${options.batch} requests per COMMIT`);
      return replay(file, op, calls, ids, options);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, batch: { type: 'string', default: '32' } } });
  const options = { seconds: Number(args.seconds), batch: Number(args.batch) };
  if (!(options.seconds > 0) || !Number.isSafeInteger(options.batch) || options.batch < 1) throw new Error('--seconds must be > 0 and --batch a positive integer');
  const rows = await sqliteCeiling(options);
  console.log(`\nnode:sqlite alone with the embedded sandbox's statements (one thread, ${options.batch} requests per COMMIT, WAL, synchronous=NORMAL, ${options.seconds} s each; the file in ${tmpdir()})\n`);
  for (const r of rows) console.log(`${r.op.padEnd(16)} ${String(r.statements.length).padStart(2)} statements  ${Math.round(r.rps).toLocaleString('en-US').padStart(8)} req/s  ${r.cpuUsPerRequest.toFixed(1).padStart(6)} µs of CPU a request`);
  console.log('\nThe statements of each request, in order:');
  for (const r of rows) {
    console.log(`  ${r.op}:`);
    for (const s of r.statements) console.log(`    ${s.replace(/\s+/g, ' ').slice(0, 110)}`);
  }
}
