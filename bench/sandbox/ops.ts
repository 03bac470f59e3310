// What the sandbox bench measures, shared by the harness (run.ts), the load generator (loadgen.ts) and the
// bare server (server.ts): the operations, the servers, the messages between harness and load generator.
// No side effects: every process can import it.

export const BALANCE_PATH = '/v1/banking/balance';
export const TRANSFERS_PATH = '/v1/banking/transfers';
export const RECIPIENTS_PATH = '/v1/banking/recipients';
/** Every transfer: USD ACH (no PIX quote limit), one dollar. */
export const AMOUNT = '1.00';
export const FUNDING = { USD: '100000000.00' };
/** What the bare node:http server answers: the sandbox's balance body for a funded org, fixed. */
export const bareBalanceBody = JSON.stringify({ balances: [{ currency: 'USD', available: '100000000.00' }] });

export const OPS = ['balance', 'balance-100k', 'balance-1m', 'transfer-new', 'transfer-uuid', 'transfer-replay'] as const;
export type OpId = (typeof OPS)[number];
/** The balance reads of organizations holding many transfers (seeded before the rounds): sandboxes only. */
export const SEEDED_BALANCE: Partial<Record<OpId, number>> = { 'balance-100k': 100_000, 'balance-1m': 1_000_000 };
export const isBalance = (op: OpId) => op === 'balance' || op in SEEDED_BALANCE;
export const opLabel: Record<OpId, string> = {
  balance: 'GET balance',
  'balance-100k': 'GET balance, 100k transfers',
  'balance-1m': 'GET balance, 1M transfers',
  'transfer-new': 'POST transfer, new key',
  'transfer-uuid': 'POST transfer, new UUID key',
  'transfer-replay': 'POST transfer, replay',
};

export const SERVERS = ['sandbox-sqlite', 'sandbox-postgres', 'sandbox-postgres-x2', 'postgres-pool-8', 'postgres-pool-32', 'postgres-socket', 'candidate-sqlite', 'candidate-postgres', 'prism', 'bare'] as const;
/** --pool-sweep: the same sandbox on PostgreSQL with other pool sizes, in the same rounds as sandbox-postgres. */
export const POOL_SWEEP = { 'postgres-pool-8': 8, 'postgres-pool-32': 32 } as const;
export type ServerId = (typeof SERVERS)[number];
export const serverLabel: Record<ServerId, string> = {
  'sandbox-sqlite': 'sandbox, embedded node:sqlite (file)',
  'sandbox-postgres': 'sandbox, PostgreSQL (fsync on)',
  'sandbox-postgres-x2': 'two sandbox processes on one PostgreSQL database, connections split between them',
  'postgres-pool-8': 'sandbox-postgres with a pool of 8 connections (--pool-sweep), a database of its own',
  'postgres-pool-32': 'sandbox-postgres with a pool of 32 connections (--pool-sweep), a database of its own',
  'postgres-socket': "sandbox-postgres over the cluster's Unix socket instead of TCP on 127.0.0.1 (--pg-socket), a database of its own",
  'candidate-sqlite': 'a scratch copy of the sandbox (--candidate), node:sqlite (file): informational',
  'candidate-postgres': 'the scratch copy on PostgreSQL (--candidate with --candidate-postgres), a database of its own: informational',
  prism: 'Prism mock (stateless)',
  bare: 'bare node:http, fixed JSON (GET only)',
};

/** One load-generator run: `concurrency` request loops on keep-alive connections, for a time or a count. */
export interface LoadSpec {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Several servers sharing one store: the connections are spread over them, round robin. */
  urls?: string[];
  method: 'GET' | 'POST';
  path: string;
  /** The request body (JSON text), the same on every request. */
  body?: string;
  /**
   * POSTs: `new` sends `${idempotencyPrefix}-${n}` (never reused; consecutive keys sort together), `uuid` a
   * fresh crypto.randomUUID() (what our client sends: keys land all over the store's key index), `fixed`
   * sends `idempotencyKey` on every request.
   */
  idempotency?: 'new' | 'uuid' | 'fixed';
  idempotencyPrefix?: string;
  idempotencyKey?: string;
  /** API keys, used round robin; `budgets[i]` is how many requests key i may still carry. */
  keys: string[];
  budgets: number[];
  concurrency: number;
  /** `raw`: raw-http.ts (default); `http`: node:http's client with a keep-alive Agent. */
  client: 'raw' | 'http';
  /** Not measured: connections, JIT, caches. */
  warmupMs: number;
  /** The measured window. Ignored when `maxRequests` is set (then the whole run is the window). */
  durationMs: number;
  /** Stop after this many requests instead (the run ends when they have all been answered). */
  maxRequests?: number;
  /** Hard stop for a `maxRequests` run, ms. */
  limitMs?: number;
  /** Every answer must have this status… */
  expectStatus: number;
  /** …and contain this text (e.g. the replayed transfer's id), when given… */
  expectText?: string;
  /** …and echo its own Idempotency-Key (a created transfer carries it), when true. */
  expectEcho?: boolean;
  requestTimeoutMs: number;
  /**
   * Open loop: requests are due at this rate, evenly spaced from the start, instead of each connection sending
   * its next as soon as its answer is read. A request that leaves late because every connection was busy
   * counts its latency from when it was due (no coordinated omission); one that waited for its time, from
   * when it was sent.
   */
  ratePerSecond?: number;
  /** Processes whose CPU time is read (from /proc) at the start and end of the window: the server's. */
  serverPids: number[];
  /** The database server's parent process (PostgreSQL's postmaster): its whole tree's CPU time is read the same way (treeCpuMsOf). */
  dbParent?: number;
}

export interface LoadResult {
  /** Answers completed inside the measured window, and their rate. */
  measured: number;
  windowMs: number;
  rps: number;
  /** Latency (request written → response fully read), ms, of the answers inside the window. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** All requests sent, answered as expected, and not (status, body, network or timeout), warm-up included. */
  sent: number;
  ok: number;
  errors: number;
  errorSamples: string[];
  /** Requests each key carried (same order as `keys`). */
  used: number[];
  /** The key budget ran out before the run ended (the harness sizes pools so this never happens). */
  exhausted: boolean;
  /** CPU over the window, % of one core: the load generator itself, and the server's processes. */
  loadgenCpu: number;
  serverCpu: number;
  dbCpu: number;
  /** The whole machine's busy CPU over the window (all processes), same unit: 200% = both cores of two. */
  machineCpu: number;
  /** Filled in by the harness: its own CPU over the run (Prism's request log passes through it). */
  harnessCpu?: number;
  /** Filled in by the harness: the machine's busy CPU minus all of ours (server, PG, load generator, harness). */
  othersCpu?: number;
}
