// Reading a V8 CPU profile (a .cpuprofile JSON file, as `node --cpu-prof` or the inspector writes it) of the
// server under load: where its CPU time goes, as three tables — by area (SQLite, Ajv, node:http, crypto, GC,
// idle…), the top functions by self time, and the sandbox's own functions by inclusive time (their
// synchronous parts: an async function's code after an `await` is a separate stack that starts from the
// microtask queue).
//
// node:sqlite's methods (exec, StatementSync#run/get/all) do not show as frames of their own: the time
// SQLite spends in them is the self time of the JS function that calls them. In the sandbox's sqlite store
// those are thin wrappers (begin, runTransaction's COMMIT, run, get, all, sumTransfers), so their self time
// is counted as SQLite's.
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
/** The sqlite store's functions whose self time is node:sqlite's native calls (see above). */
const SQLITE_WRAPPERS = new Set(['begin', 'runTransaction', 'rollback', 'run', 'get', 'all', 'sumTransfers', 'migrate', 'prepare']);
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
    if (/store\/sqlite\.ts$/.test(callerUrl)) return 'node:sqlite calls (SQLite, from the store)';
    if (/^validate\d*$/.test(fn) || /ajv/.test(callerUrl)) return 'Ajv validation (compiled validators)';
    if (/crypto|hash|digest|randomUUID|timingSafeEqual/i.test(fn) || /crypto/.test(callerUrl)) return 'crypto (SHA-256 of keys, randomUUID)';
    if (/JSON|stringify|parse/.test(fn)) return 'JSON parse/stringify';
    if (/^node:(_http|http|net|stream|internal\/(stream|http|net|streams))/.test(callerUrl)) return 'node:http / net / streams';
    if (/pg|pg-protocol/.test(callerUrl)) return 'pg driver (PostgreSQL client)';
    return `native, other (${fn || 'anonymous'})`;
  }
  if (/store\/sqlite\.ts$/.test(url) && SQLITE_WRAPPERS.has(fn)) return 'SQLite (node:sqlite calls: BEGIN, COMMIT, statements)';
  if (/store\/(sqlite|postgres)\.ts$/.test(url)) return 'sandbox store (JS around the queries)';
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
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    const callerId = parent.get(id);
    const caller = callerId === undefined ? undefined : byId.get(callerId)?.callFrame;
    const a = area(node.callFrame, caller);
    areas.set(a, (areas.get(a) ?? 0) + ms);
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
  };
}
