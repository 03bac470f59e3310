// `payments-sandbox`: the sandbox as a command, the same first run as `npm start` in this repository (the
// docs and the spec served, a demo organization and key, the admin token printed), configured by flags or
// the environment, running until SIGINT/SIGTERM, then closing the server and the store and exiting 0.
// `payments-sandbox admin <command>` is the admin CLI (cli.ts). The bin shim (bin/payments-sandbox.js)
// checks the Node version before this module loads.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { parsePort } from '@payments/spec/cli-support';
import { run as adminCli } from './cli.ts';
import { databaseUnavailable } from './failure.ts';
import { NotASandboxDatabase } from './store/schema.ts';
import { jsonLogger } from './http.ts';
import { logEvent } from './problems.ts';
import { omitSqliteExperimentalWarning } from './node-warnings.ts';
import { banner, PortInUse, serveSandbox, type ServedSandbox } from './serve.ts';
import { packagedSite } from './site.ts';

const PROG = 'payments-sandbox';

export const HELP = `usage: ${PROG} [options]           run the sandbox until Ctrl-C / SIGTERM
       ${PROG} admin <command> …   the admin CLI (organizations, keys, faults, clocks, journal): ${PROG} admin --help

options (each also read from the environment variable in brackets):
  -p, --port N            port to listen on [PORT]; 0 = any free port; a port given is used or the command
                          stops (exit 1); the default, 8080, falls back to a free one when busy
      --host HOST         interface to listen on [HOST]; default 127.0.0.1
      --database-url URL  PostgreSQL (postgres://…) instead of the embedded store [DATABASE_URL]; several
                          instances on one database share their state
      --db FILE           keep the embedded store (node:sqlite) in FILE [SANDBOX_DB]; default: in memory;
                          a flag wins over the other's variable (--db over DATABASE_URL)
      --admin-token T     the admin API's token [SANDBOX_ADMIN_TOKEN]; default: generated and printed
      --journal-cap N     traffic journal entries kept per organization [SANDBOX_JOURNAL_CAP]; default 10000
  -h, --help              this help
  -v, --version           the package version

Prints the API's URL, the docs (/docs/), the spec (/openapi.yaml, /openapi.json), a demo organization's new
API key and the admin token on stdout; one JSON line per request on stderr (API keys never logged).
The sandbox wants a database (or file) of its own: one holding another program's tables is refused (exit 1).
`;

type Env = Readonly<Record<string, string | undefined>>;

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function options(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'database-url': { type: 'string' },
      db: { type: 'string' },
      'admin-token': { type: 'string' },
      'journal-cap': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
    allowPositionals: false,
  }).values;
}

/**
 * `signal`: the first SIGINT/SIGTERM. A second one, while the sandbox closes, finds no handler and ends the
 * process at once (Node's default: a second Ctrl-C forces the stop). `cancel()` stops listening, for a start
 * that failed: the process then ends on a signal as it would without us.
 */
function nextStopSignal(): { signal: Promise<NodeJS.Signals>; cancel(): void } {
  let stop!: (signal: NodeJS.Signals) => void;
  const signal = new Promise<NodeJS.Signals>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return { signal, cancel: () => void process.off('SIGINT', stop).off('SIGTERM', stop) };
}

/** A wrong command line or setting: one line on stderr, a pointer to --help, exit code 2. */
function usageError(message: string): number {
  process.stderr.write(`${PROG}: ${message}\nRun ${PROG} --help for usage.\n`);
  return 2;
}

async function serve(argv: string[], env: Env): Promise<number> {
  let values;
  try {
    values = options(argv);
  } catch (err) {
    return usageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help || values.version) {
    process.stdout.write(values.help ? HELP : `${version()}\n`);
    return 0;
  }
  let port: number;
  try {
    port = parsePort(values.port ?? env.PORT, 8080, values.port !== undefined ? '--port' : 'PORT');
  } catch (err) {
    return usageError((err as Error).message); // was exit 1, unlike every other wrong option (QA)
  }
  const storeChoice = chooseStore(values, env);
  if (typeof storeChoice === 'string') return usageError(storeChoice);
  const { databaseUrl, file } = storeChoice;
  const journalCap = values['journal-cap'] ?? env.SANDBOX_JOURNAL_CAP;
  if (journalCap !== undefined && !/^[1-9]\d*$/.test(journalCap)) {
    // 0, "abc" or "-5" used to start the sandbox silently with the default cap (QA).
    return usageError(`${values['journal-cap'] !== undefined ? '--journal-cap' : 'SANDBOX_JOURNAL_CAP'} must be a whole number of entries, 1 or more, got "${journalCap}"`);
  }
  const embeddedFile = file !== ':memory:' ? file : undefined;
  try {
    if (embeddedFile) mkdirSync(dirname(embeddedFile), { recursive: true });
  } catch (err) {
    process.stderr.write(`${PROG}: cannot create the folder of the database file ${embeddedFile}: ${(err as Error).message}\n`);
    return 1;
  }
  const adminToken = values['admin-token'] ?? (env.SANDBOX_ADMIN_TOKEN || undefined);
  if (adminToken !== undefined && !/^[\x21-\x7e]+$/.test(adminToken)) {
    // QA: "" silently made a new token, and a token with a newline was taken though no client can send it.
    const from = values['admin-token'] !== undefined ? '--admin-token' : 'SANDBOX_ADMIN_TOKEN';
    return usageError(`${from} must be visible ASCII characters without spaces (it goes in an Authorization header), got ${adminToken === '' ? 'an empty value' : JSON.stringify(adminToken)}`);
  }
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const stopped = nextStopSignal();
  let served: ServedSandbox;
  try {
    served = await serveSandbox({
      port,
      fallBack: values.port === undefined && env.PORT === undefined,
      host,
      ...(databaseUrl ? { databaseUrl } : embeddedFile ? { file: embeddedFile } : {}),
      ...(adminToken ? { adminToken } : {}),
      ...(journalCap ? { journalCap: Number(journalCap) } : {}),
      site: packagedSite,
      logger: jsonLogger((text) => process.stderr.write(text)),
    });
  } catch (err) {
    stopped.cancel();
    const why = startFailure(err, { databaseUrl, embeddedFile, host, port });
    if (why === undefined) throw err;
    process.stderr.write(`${PROG}: ${why}\n`);
    return 1;
  }
  if (served.portFellBack) logEvent('warn', `port ${port} is busy: using ${served.sandbox.port} instead`);
  process.stdout.write(banner(served, `npx ${PROG} admin`));
  const signal = await stopped.signal;
  await served.close();
  logEvent('info', `stopped on ${signal}`);
  return 0;
}

/** What stopped a start, in one line naming the place or option (exit 1); undefined for an error we do not know (a bug). */
function startFailure(err: unknown, at: { databaseUrl: string | undefined; embeddedFile: string | undefined; host: string; port: number }): string | undefined {
  const message = String((err as Error | null)?.message);
  if (at.databaseUrl && databaseUnavailable(err)) return `cannot reach the PostgreSQL server at ${hostOf(at.databaseUrl)} (${message}): is it running, and is the URL right?`;
  if (err instanceof NotASandboxDatabase) return `will not use ${at.embeddedFile ? `the database file ${at.embeddedFile}` : `the PostgreSQL database at ${hostOf(at.databaseUrl!)}`}: ${message}`;
  const { code, syscall } = (err ?? {}) as { code?: string; syscall?: string };
  if (at.embeddedFile && code === 'ERR_SQLITE_ERROR') return `cannot use the database file ${at.embeddedFile}: ${message}`;
  // QA: "getaddrinfo ENOTFOUND 999.1.1.1" named neither the option nor what failed.
  if (['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EACCES'].includes(code ?? '') && ['listen', 'getaddrinfo'].includes(syscall ?? '')) return `cannot listen on ${at.host} port ${at.port} (--host, --port): ${message}`;
  if (err instanceof PortInUse) return `port ${err.port} on ${at.host} is in use: stop what holds it, or pick another with --port N (0 = any free port)`;
  return undefined;
}

/**
 * The store, from the flags first, then the environment: `--db FILE` wins over a DATABASE_URL the shell
 * happens to have (before, it was ignored and the sandbox's tables went into that database: QA). Two choices
 * at one level are a usage error, as is a URL that is not PostgreSQL's. Returns the error's text.
 */
function chooseStore(values: { 'database-url'?: string | undefined; db?: string | undefined }, env: Env): { databaseUrl?: string; file?: string } | string {
  const flags = { url: values['database-url'], file: values.db };
  if (flags.url !== undefined && flags.file !== undefined) return 'give one of --database-url (PostgreSQL) and --db (a node:sqlite file), not both';
  if (flags.url === undefined && flags.file === undefined && env.DATABASE_URL && env.SANDBOX_DB) {
    return 'DATABASE_URL and SANDBOX_DB are both set: unset one, or choose with --database-url or --db';
  }
  const fromFlags = flags.url !== undefined || flags.file !== undefined;
  const databaseUrl = fromFlags ? flags.url : env.DATABASE_URL || undefined;
  const file = fromFlags ? flags.file : env.SANDBOX_DB || undefined;
  const notPostgres = databaseUrl !== undefined ? postgresUrlProblem(databaseUrl) : undefined;
  if (notPostgres) return `${flags.url !== undefined ? '--database-url' : 'DATABASE_URL'} ${notPostgres}`;
  return databaseUrl !== undefined ? { databaseUrl } : file !== undefined ? { file } : {};
}

/** Why a database URL is not a PostgreSQL one (postgres:// or postgresql://), without echoing its password; undefined when it is. */
function postgresUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL: give postgres://user:password@host:port/database';
  }
  return ['postgres:', 'postgresql:'].includes(parsed.protocol) ? undefined : `must be a PostgreSQL URL (postgres://user:password@host:port/database), not ${parsed.protocol}//…`;
}

/** Where a URL points: host:port, or the Unix socket folder node-postgres reads from `?host=/…`. */
const hostOf = (url: string): string => {
  const { hostname, port, searchParams } = new URL(url);
  const socketFolder = searchParams.get('host');
  if (socketFolder?.startsWith('/')) return `the Unix socket in ${socketFolder}`;
  return `${hostname || 'localhost'}:${port || 5432}`;
};

export function main(argv: string[], env: Env = process.env): Promise<number> {
  omitSqliteExperimentalWarning(); // stderr is the request log (node-warnings.ts)
  if (argv[0] === 'admin') {
    return adminCli(argv.slice(1), { env, stdout: process.stdout, stderr: process.stderr, fetch: globalThis.fetch, prog: `${PROG} admin` });
  }
  return serve(argv, env);
}
