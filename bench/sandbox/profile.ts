// Reading a V8 CPU profile (a .cpuprofile JSON file, as `node --cpu-prof` or the inspector writes it) of the
// server under load: where its CPU time goes, as three tables — by area (SQLite, Ajv, node:http, crypto, GC,
// idle…), the top functions by self time, and the sandbox's own functions by inclusive time (their
// synchronous parts: an async function's code after an `await` is a separate stack that starts from the
// microtask queue).
//
// node:sqlite's methods (StatementSync#run/get/all, DatabaseSync#exec) show as native frames named after
// the method, called from the embedded store's files (sqlite.ts, sqlite-group-commit.ts, caller-cache.ts):
// their self time is SQLite's. A fourth table gives that time by the store operation that asked for it
// (debitedTotals, appendJournal, readIdempotency, the batch's COMMIT…): which statements a request pays for.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { table } from '../lib/stats.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SANDBOX_SRC = /packages\/sandbox\/src\/|\/sandbox-candidate\//;
/** The embedded store's files that call node:sqlite. */
const SQLITE_CALLERS = /store\/(sqlite[\w-]*|caller-cache)\.ts$/;
/** node:sqlite's methods, as native frames. */
const SQLITE_METHODS = new Set(['all', 'get', 'run', 'exec', 'iterate', 'prepare']);
/** The store's helpers between an operation and node:sqlite: skipped when naming the operation that asked. */
const STORE_HELPERS = new Set(['(anonymous)', 'sql', 'exec', 'all', 'first', 'write', 'run', 'count', 'guarded', 'update', 'whenUnlocked', 'step']);
const SMALL = 0.005; // areas under 0.5% of the profile are summed into one row

function where(frame: CallFrame): string {
  if (!frame.url) return '(native)';
  const url = frame.url.replace(/^file:\/\//, '');
  const short = SANDBOX_SRC.test(url) ? url.replace(/^.*?(?:packages\/sandbox\/src\/|sandbox-candidate\/src\/)/, 'sandbox/') : url.startsWith('node:') ? url : basename(url);
  return `${short}:${frame.lineNumber + 1}`;
}

const name = (frame: CallFrame) => frame.functionName || '(anonymous)';

/** The area a sample's own frame belongs to; native frames take their JS caller's area into account. */
function area(frame: CallFrame, caller: CallFrame | undefined): string {
  const fn = frame.functionName;
  const url = frame.url;
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)') return 'idle (event loop waiting: I/O, timers)';
  if (fn === '(program)') return 'V8/Node internals (program)';
  if (fn === '(root)') return 'other';
  const callerUrl = caller?.url ?? '';
  if (!url) {
    if (SQLITE_CALLERS.test(callerUrl) && SQLITE_METHODS.has(fn)) return 'node:sqlite calls (SQLite, from the store)';
    if (/^validate\d*$/.test(fn) || /ajv/.test(callerUrl)) return 'Ajv validation (compiled validators)';
    if (/crypto|hash|digest|randomUUID|timingSafeEqual/i.test(fn) || /crypto/.test(callerUrl)) return 'crypto (SHA-256 of keys, randomUUID)';
    if (/JSON|stringify|parse/.test(fn)) return 'JSON parse/stringify';
    if (/^node:(_http|http|net|stream|internal\/(stream|http|net|streams))/.test(callerUrl)) return 'node:http / net / streams';
    if (/pg|pg-protocol/.test(callerUrl)) return 'pg driver (PostgreSQL client)';
    return `native, other (${fn || 'anonymous'})`;
  }
  if (/store\//.test(url) && SANDBOX_SRC.test(url)) return 'sandbox store (JS around the queries)';
  if (SANDBOX_SRC.test(url)) return 'sandbox pipeline (JS: app, operations, contract)';
  if (/node_modules\/(\.pnpm\/)?.*ajv/.test(url) || /^validate\d*$/.test(fn)) return 'Ajv validation (compiled validators)';
  if (/node_modules\/.*pg(-protocol|-pool|-types)?\//.test(url)) return 'pg driver (PostgreSQL client)';
  if (/^node:(internal\/)?(crypto)/.test(url)) return 'crypto (SHA-256 of keys, randomUUID)';
  if (/^node:(_http|http|net|stream|internal\/(stream|http|net|streams|js_stream))/.test(url)) return 'node:http / net / streams';
  if (/^node:(internal\/)?(async_hooks|async_local_storage|process\/task_queues|timers)/.test(url)) return 'async plumbing (promises, AsyncLocalStorage, timers)';
  if (/^node:internal\/url|^node:url/.test(url)) return 'URL parsing';
  if (url.startsWith('node:')) return 'node: other';
  return 'other JS';
}

export interface ProfileSummary {
  totalMs: number;
  samples: number;
  areas: string;
  selfTop: string;
  sandboxInclusive: string;
  /** SQLite's time by the store operation that asked for it; empty when the profile has none (PostgreSQL). */
  sqliteByOperation: string;
}

/** Native socket writes: their cost is mostly the kernel's (loopback TCP, or a Unix socket). */
const SOCKET_WRITES = new Set(['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String', 'writeAsciiString']);

/** Who a native socket write of the profile was for: PostgreSQL when the driver or the PostgreSQL store is on its stack. */
function socketWriteArea(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  for (let at = parent.get(id), depth = 0; at !== undefined && depth < 16; at = parent.get(at), depth++) {
    if (/node_modules\/.*pg(-protocol|-pool)?\/|store\/postgres[\w-]*\.ts$/.test(byId.get(at)!.callFrame.url)) return 'socket writes to PostgreSQL (kernel time)';
  }
  return 'socket writes to HTTP clients (kernel time)';
}

/** The store operation a node:sqlite call was made for: the nearest caller in store/ that is not a helper. */
function operationOf(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  for (let at = parent.get(id), depth = 0; at !== undefined && depth < 12; at = parent.get(at), depth++) {
    const frame = byId.get(at)!.callFrame;
    if (!/store\//.test(frame.url)) return `(from ${name(frame)} ${where(frame)})`;
    if (!STORE_HELPERS.has(name(frame))) return `${name(frame)}  ${where(frame)}`;
  }
  return '(unknown)';
}

export function summarizeProfile(file: string, top = 18): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Self time per node: each sample's time delta goes to the node it landed in.
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0) / 1000; // µs → ms
    self.set(id, (self.get(id) ?? 0) + dt);
  });
  const totalMs = [...self.values()].reduce((a, b) => a + b, 0);
  const busyMs = totalMs - [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, ms]) => a + ms, 0);
  const pct = (ms: number) => `${((100 * ms) / totalMs).toFixed(1)}%`;
  const pctBusy = (ms: number) => `${((100 * ms) / busyMs).toFixed(1)}%`;

  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const sqliteOperations = new Map<string, number>();
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    const callerId = parent.get(id);
    const caller = callerId === undefined ? undefined : byId.get(callerId)?.callFrame;
    const a = !node.callFrame.url && SOCKET_WRITES.has(node.callFrame.functionName) ? socketWriteArea(id, byId, parent) : area(node.callFrame, caller);
    areas.set(a, (areas.get(a) ?? 0) + ms);
    if (a.startsWith('node:sqlite')) {
      const operation = operationOf(id, byId, parent);
      sqliteOperations.set(operation, (sqliteOperations.get(operation) ?? 0) + ms);
    }
    const key = node.callFrame.url ? `${name(node.callFrame)}  ${where(node.callFrame)}` : `${name(node.callFrame)}  (native, called from ${caller ? `${name(caller)} ${where(caller)}` : '?'})`;
    functions.set(key, (functions.get(key) ?? 0) + ms);
  }

  // Inclusive time of the sandbox's functions, each counted once per stack (no double count on recursion).
  const inclusive = new Map<string, number>();
  const total = new Map<number, number>();
  const subtree = (id: number): number => {
    const known = total.get(id);
    if (known !== undefined) return known;
    let sum = self.get(id) ?? 0;
    for (const c of byId.get(id)?.children ?? []) sum += subtree(c);
    total.set(id, sum);
    return sum;
  };
  const walk = (id: number, seen: Set<string>) => {
    const node = byId.get(id)!;
    let next = seen;
    if (SANDBOX_SRC.test(node.callFrame.url)) {
      const key = `${name(node.callFrame)}  ${where(node.callFrame)}`;
      if (!seen.has(key)) {
        inclusive.set(key, (inclusive.get(key) ?? 0) + subtree(id));
        next = new Set(seen).add(key);
      }
    }
    for (const c of node.children ?? []) walk(c, next);
  };
  const rootNode = profile.nodes.find((n) => !parent.has(n.id));
  if (rootNode) walk(rootNode.id, new Set());

  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return {
    totalMs,
    samples: profile.samples.length,
    areas: table(
      ['area (self time)', 'ms', '% of profile', '% of busy'],
      [
        ...sorted(areas)
          .filter(([, ms]) => ms >= SMALL * totalMs)
          .map(([a, ms]) => [a, ms.toFixed(0), pct(ms), a.startsWith('idle') ? '' : pctBusy(ms)]),
        ...(() => {
          const small = sorted(areas).filter(([, ms]) => ms < SMALL * totalMs);
          const ms = small.reduce((sum, [, v]) => sum + v, 0);
          return small.length ? [[`${small.length} more areas, each < ${SMALL * 100}%`, ms.toFixed(0), pct(ms), pctBusy(ms)]] : [];
        })(),
      ],
    ),
    selfTop: table(
      ['function (self time)', 'ms', '% of busy'],
      sorted(functions)
        .filter(([k]) => !k.startsWith('(idle)'))
        .slice(0, top)
        .map(([k, ms]) => [k, ms.toFixed(0), pctBusy(ms)]),
    ),
    sandboxInclusive: table(
      ['sandbox function (inclusive, sync parts)', 'ms', '% of busy'],
      sorted(inclusive)
        .slice(0, top)
        .map(([k, ms]) => [k, ms.toFixed(0), pctBusy(ms)]),
    ),
    sqliteByOperation: sqliteOperations.size
      ? table(
          ['SQLite time, by the store operation that asked', 'ms', '% of busy'],
          sorted(sqliteOperations).map(([k, ms]) => [k, ms.toFixed(0), pctBusy(ms)]),
        )
      : '',
  };
}
