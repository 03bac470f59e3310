// A throwaway PostgreSQL server for tests and benchmarks: a fresh cluster (initdb) in a temp folder, started
// with pg_ctl on a free 127.0.0.1 port, its Unix socket inside that folder, deleted again by stop(). The
// server binaries come from PATH or /usr/lib/postgresql/*/bin; on a machine without them, when we run as
// root with apt-get, Debian's postgresql package is installed now, otherwise this fails with the command to
// run. It never skips silently. PostgreSQL refuses to run as root: as root, the folder belongs to the
// `postgres` user and every server command runs through `runuser -u postgres --` (see the toolchain notes,
// section "Embedded storage"). `fsync` is off unless asked for (see ThrowawayPostgresOptions).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { acceptsConnections } from './net.ts';

const HOST = '127.0.0.1';
const APT_GET = '/usr/bin/apt-get';
const UPDATE_TIMEOUT_MS = 5 * 60_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const LOCK_TIMEOUT_S = 120;
const INITDB_TIMEOUT_MS = 120_000;
const START_TIMEOUT_S = 60;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_S = 30;
const PORT_ATTEMPTS = 3;

const HOW_TO_INSTALL =
  "Install the PostgreSQL server binaries (initdb, pg_ctl): as root on Debian/Ubuntu `apt-get update && apt-get install -y postgresql` " +
  '(they land in /usr/lib/postgresql/<version>/bin), or put a directory holding initdb and pg_ctl on PATH.';

const say = (message: string) => process.stderr.write(`[postgres] ${message}\n`);

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication, superuser `postgres`). */
  url: string;
  port: number;
  /** The temp folder holding the cluster (`data/`), its log (`log`) and its Unix socket. */
  dir: string;
  /** A new, empty database in the cluster (`createdb`); its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl restart -m <mode>` (immediate: a crash, recovered from the WAL on start), on the same port. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl stop -m fast`, then deletes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /**
   * Server settings (`-c name=value`) over the defaults. The default turns `fsync` off: the data is thrown
   * away anyway, and with it creating databases and stopping the server are several times faster. Pass
   * `{ fsync: 'on' }` for a benchmark that should pay for durable commits like a real server.
   */
  settings?: Record<string, string>;
}

const DEFAULT_SETTINGS: Record<string, string> = { fsync: 'off' };

export interface PostgresBinaries {
  dir: string;
  initdb: string;
  pgCtl: string;
  /** pg_isready from the same directory, when present. */
  pgIsReady: string | undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function binariesIn(dir: string): PostgresBinaries | undefined {
  const initdb = join(dir, 'initdb');
  const pgCtl = join(dir, 'pg_ctl');
  if (!isExecutable(initdb) || !isExecutable(pgCtl)) return undefined;
  const pgIsReady = join(dir, 'pg_isready');
  return { dir, initdb, pgCtl, pgIsReady: isExecutable(pgIsReady) ? pgIsReady : undefined };
}

/**
 * initdb and pg_ctl from one directory: the first on PATH that has both, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian's layout). `undefined` when there is none.
 */
export function findPostgresBinaries(
  searchPath: string = process.env.PATH ?? '',
  libRoot = '/usr/lib/postgresql',
): PostgresBinaries | undefined {
  for (const dir of searchPath.split(delimiter)) {
    const found = dir ? binariesIn(dir) : undefined;
    if (found) return found;
  }
  let versions: string[] = [];
  try {
    versions = readdirSync(libRoot);
  } catch {
    return undefined;
  }
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a) || b.localeCompare(a));
  for (const version of versions) {
    const found = binariesIn(join(libRoot, version, 'bin'));
    if (found) return found;
  }
  return undefined;
}

interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a command with output captured; never rejects for a non-zero exit, only reports it. Bounded by `timeoutMs`. */
function run(cmd: string, args: string[], timeoutMs: number, cwd?: string): Promise<RunResult & { timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-64 * 1024);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: `could not run ${cmd}: ${err.message}`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

async function runOrThrow(what: string, cmd: string, args: string[], timeoutMs: number, cwd?: string): Promise<string> {
  const result = await run(cmd, args, timeoutMs, cwd);
  if (result.code === 0 && !result.timedOut) return result.output;
  const why = result.timedOut ? `timed out after ${timeoutMs / 1000} s` : `failed (exit code ${result.code})`;
  throw new Error(`${what} ${why}: \`${[cmd, ...args].join(' ')}\`\n${result.output.trim()}`);
}

let pendingBinaries: Promise<PostgresBinaries> | undefined;

/** The server binaries, installed now from Debian's packages when missing and we may (root + apt-get). */
export function ensurePostgresBinaries(): Promise<PostgresBinaries> {
  pendingBinaries ??= findOrInstall().catch((err: unknown) => {
    pendingBinaries = undefined;
    throw err;
  });
  return pendingBinaries;
}

async function findOrInstall(): Promise<PostgresBinaries> {
  const found = findPostgresBinaries();
  if (found) return found;

  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !existsSync(APT_GET)) {
    const why = !isRoot ? 'not running as root' : 'apt-get is not available';
    throw new Error(
      `PostgreSQL is required (a throwaway server for the PostgreSQL store tests) but initdb/pg_ctl were found neither on PATH nor in /usr/lib/postgresql/*/bin (${why}, so they cannot be installed automatically). ${HOW_TO_INSTALL}`,
    );
  }

  say("initdb/pg_ctl not found: installing Debian's postgresql package (apt-get update, apt-get install postgresql; may take a few minutes)");
  const started = performance.now();
  try {
    // Wait for a dpkg lock held by another apt run instead of failing at once (bounded by the timeout).
    const lock = ['-o', `DPkg::Lock::Timeout=${LOCK_TIMEOUT_S}`];
    await runOrThrow('apt-get update', APT_GET, [...lock, 'update'], UPDATE_TIMEOUT_MS);
    await runOrThrow('apt-get install', APT_GET, [...lock, 'install', '-y', '--no-install-recommends', 'postgresql'], INSTALL_TIMEOUT_MS);
  } catch (err) {
    throw new Error(`Installing PostgreSQL failed: ${err instanceof Error ? err.message : String(err)}\n${HOW_TO_INSTALL}`);
  }
  const installed = findPostgresBinaries();
  if (!installed) throw new Error(`apt-get installed the postgresql package but initdb/pg_ctl are still missing. ${HOW_TO_INSTALL}`);
  say(`installed PostgreSQL server binaries in ${installed.dir} (${Math.round((performance.now() - started) / 1000)} s)`);
  return installed;
}

function findRunuser(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];
  return dirs.map((dir) => join(dir, 'runuser')).find((path) => isExecutable(path));
}

/** uid and gid of the `postgres` user. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
  } catch {
    // fall through
  }
  throw new Error(
    'Running as root, and PostgreSQL refuses to run as root, but there is no `postgres` user to run it as ' +
      "(Debian's postgresql package creates it). Create one (`useradd --system postgres`) or run as a non-root user.",
  );
}

/** A port that was free on 127.0.0.1 a moment ago (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a fresh PostgreSQL cluster on a free 127.0.0.1 port. The server also goes away when this process
 * exits without stop() (an exit handler, plus a small watchdog process for when we are killed).
 */
export async function startThrowawayPostgres(options: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const settings = { ...DEFAULT_SETTINGS, ...options.settings, listen_addresses: HOST };
  for (const [name, value] of Object.entries(settings)) {
    // They pass through the shell pg_ctl starts the server with.
    if (!/^[a-z_.]+$/i.test(name) || !/^[\w.:/*,-]+$/.test(value)) throw new Error(`unsupported server setting ${name}=${value}`);
  }
  const bins = await ensurePostgresBinaries();
  const isRoot = process.getuid?.() === 0;
  let asServerUser = (cmd: string, args: string[]): [string, string[]] => [cmd, args];
  const dir = mkdtempSync(join(tmpdir(), 'payments-pg-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    if (/['"\s\\$`]/.test(dir)) throw new Error(`the temp folder ${dir} has characters pg_ctl's -o cannot take: set TMPDIR to a plain path`);
    if (isRoot) {
      const runuser = findRunuser();
      if (!runuser) throw new Error('Running as root, and PostgreSQL refuses to run as root, but `runuser` (util-linux) is missing to run it as the `postgres` user.');
      const { uid, gid } = postgresUser();
      chownSync(dir, uid, gid);
      asServerUser = (cmd, args) => [runuser, ['-u', 'postgres', '--', cmd, ...args]];
    }
  } catch (err) {
    removeDir();
    throw err;
  }

  const data = join(dir, 'data');
  const log = join(dir, 'log');
  const pgCtl = (...args: string[]) => asServerUser(bins.pgCtl, ['-D', data, ...args]);

  // If this process exits (or is killed) without stop(), take the server and its folder with it.
  const emergencyStop = () => {
    const [cmd, args] = pgCtl('stop', '-m', 'immediate', '-w', '-t', '10');
    spawnSync(cmd, args, { stdio: 'ignore', timeout: 15_000, cwd: dir });
    try {
      removeDir();
    } catch {
      // best effort while exiting
    }
  };
  process.on('exit', emergencyStop);
  const [stopCmd, stopArgs] = pgCtl('stop', '-m', 'immediate', '-w', '-t', '10');
  const watchdog = spawn(
    '/bin/sh',
    [
      '-c',
      'p=$1; d=$2; shift 2; while kill -0 "$p" 2>/dev/null; do sleep 1; done; "$@" >/dev/null 2>&1; rm -rf "$d"',
      'pg-watchdog',
      String(process.pid),
      dir,
      stopCmd,
      ...stopArgs,
    ],
    { detached: true, stdio: 'ignore', cwd: '/' },
  );
  watchdog.on('error', () => {});
  watchdog.unref();
  const killWatchdog = () => {
    if (watchdog.pid === undefined || watchdog.exitCode !== null || watchdog.signalCode !== null) return;
    try {
      process.kill(-watchdog.pid, 'SIGTERM'); // its own process group: the shell and its `sleep`
    } catch {
      // already gone
    }
  };

  let stopping: Promise<void> | undefined;
  let started = false;
  const stop = () =>
    (stopping ??= (async () => {
      try {
        if (started || existsSync(join(data, 'postmaster.pid'))) {
          const [cmd, args] = pgCtl('stop', '-m', 'fast', '-w', '-t', String(STOP_TIMEOUT_S));
          const fast = await run(cmd, args, (STOP_TIMEOUT_S + 10) * 1000, dir);
          if ((fast.code !== 0 || fast.timedOut) && existsSync(join(data, 'postmaster.pid'))) {
            const [icmd, iargs] = pgCtl('stop', '-m', 'immediate', '-w', '-t', String(STOP_TIMEOUT_S));
            const immediate = await run(icmd, iargs, (STOP_TIMEOUT_S + 10) * 1000, dir);
            if (immediate.code !== 0 && existsSync(join(data, 'postmaster.pid'))) {
              throw new Error(`could not stop the PostgreSQL server in ${data}:\n${fast.output.trim()}\n${immediate.output.trim()}`);
            }
          }
        }
      } finally {
        process.off('exit', emergencyStop);
        killWatchdog();
        removeDir();
      }
    })());

  try {
    const [initCmd, initArgs] = asServerUser(bins.initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    await runOrThrow('initdb', initCmd, initArgs, INITDB_TIMEOUT_MS, dir);

    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      // -w: pg_ctl waits until the server reports that it accepts connections (bounded by -t).
      const [cmd, args] = pgCtl('-o', [`-p ${port} -k ${dir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' '), '-l', log, '-w', '-t', String(START_TIMEOUT_S), 'start');
      const result = await run(cmd, args, (START_TIMEOUT_S + 15) * 1000, dir);
      started = true;
      if (result.code !== 0 || result.timedOut) {
        const serverLog = readLog(log);
        if (/could not bind|address already in use/i.test(serverLog) && attempt < PORT_ATTEMPTS) {
          await stopQuietly(pgCtl);
          continue;
        }
        throw new Error(`pg_ctl start failed (exit code ${result.code}${result.timedOut ? ', timed out' : ''}):\n${result.output.trim()}\n--- server log ---\n${serverLog.trim()}`);
      }
      await waitUntilReady(bins, port, log);
      const createDatabase = async (name: string) => {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
        // Beside the real initdb (PATH may hold only links to initdb and pg_ctl), as Debian's package installs it.
        const createdb = join(dirname(realpathSync(bins.initdb)), 'createdb');
        await runOrThrow('createdb', createdb, ['-h', HOST, '-p', String(port), '-U', 'postgres', name], 30_000, dir);
        return `postgres://postgres@${HOST}:${port}/${name}`;
      };
      const restart = async (mode: 'fast' | 'immediate') => {
        const [rcmd, rargs] = pgCtl('restart', '-m', mode, '-l', log, '-w', '-t', String(START_TIMEOUT_S));
        await runOrThrow('pg_ctl restart', rcmd, rargs, (START_TIMEOUT_S + 15) * 1000, dir);
        await waitUntilReady(bins, port, log);
      };
      return { url: `postgres://postgres@${HOST}:${port}/postgres`, port, dir, createDatabase, restart, stop };
    }
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

function readLog(path: string): string {
  try {
    return execFileSync('tail', ['-c', '8000', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '(no server log)';
  }
}

async function stopQuietly(pgCtl: (...args: string[]) => [string, string[]]): Promise<void> {
  const [cmd, args] = pgCtl('stop', '-m', 'immediate', '-w', '-t', '10');
  await run(cmd, args, 20_000);
}

/** Until a client can connect (pg_isready when present, else a TCP connect), bounded. */
async function waitUntilReady(bins: PostgresBinaries, port: number, log: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    if (bins.pgIsReady) {
      const probe = await run(bins.pgIsReady, ['-h', HOST, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-t', '2'], 5_000);
      if (probe.code === 0) return;
      last = probe.output.trim();
    } else if (await acceptsConnections(HOST, port)) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`PostgreSQL on ${HOST}:${port} did not accept connections within ${READY_TIMEOUT_MS / 1000} s (${last})\n--- server log ---\n${readLog(log).trim()}`);
}
