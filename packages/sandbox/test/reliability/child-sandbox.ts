// The sandbox as a CHILD PROCESS, the way it runs in production: `node packages/sandbox/src/main.ts` with its
// environment (PORT=0 so the kernel picks a free port, HOST, SANDBOX_DB or DATABASE_URL, a fixed
// SANDBOX_ADMIN_TOKEN). It is ready when it prints `sandbox listening on <url>` on stderr. Stopped by its PID
// only (SIGTERM, then SIGKILL), or killed outright with SIGKILL (a crash). A child still running when this
// process exits is SIGKILLed by PID, so a failed test never leaves a sandbox behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const sandboxMain = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface ChildSandboxOptions {
  /** The node:sqlite file (SANDBOX_DB); ignored when `databaseUrl` is given. */
  file?: string;
  /** PostgreSQL (DATABASE_URL). */
  databaseUrl?: string;
  adminToken: string;
  /** The port to listen on (default 0: the kernel picks a free one); a restarted sandbox takes its old one. */
  port?: number;
  /** How long it may take to print its URL (default 30 s: a busy 2-core machine). */
  startTimeoutMs?: number;
}

export interface ChildSandbox {
  pid: number;
  url: string;
  adminToken: string;
  /** Settles once the process has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote on stderr (the last 16 KiB). */
  stderr(): string;
  /** SIGTERM by PID (a clean shutdown), SIGKILL when still alive after `timeoutMs`. Safe to call twice. */
  stop(timeoutMs?: number): Promise<void>;
  /** SIGKILL by PID, now: a crash. Resolves once the process is gone. */
  kill(): Promise<void>;
}

const live = new Map<number, ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of live.keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function startChildSandbox(options: ChildSandboxOptions): Promise<ChildSandbox> {
  installExitHook();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(options.port ?? 0), HOST: '127.0.0.1', SANDBOX_ADMIN_TOKEN: options.adminToken };
  delete env.DATABASE_URL;
  delete env.SANDBOX_DB;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else if (options.file) env.SANDBOX_DB = options.file;
  else env.SANDBOX_DB = ':memory:';

  // stdout carries one JSON log line per request: not needed here, and an unread pipe would fill up.
  const child = spawn(process.execPath, [sandboxMain], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${sandboxMain}`);
  live.set(pid, child);

  let errText = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(pid);
      resolve({ code, signal });
    });
  });
  const ready = new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      errText = (errText + chunk).slice(-16 * 1024);
      const match = /sandbox listening on (http:\/\/\S+)/.exec(errText);
      if (match) resolve(match[1]!);
    });
    child.once('error', reject);
    void exited.then(({ code, signal }) => reject(new Error(`the sandbox (pid ${pid}) exited before listening (${signal ?? `code ${code}`}):\n${errText}`)));
  });

  let url: string;
  try {
    url = await withTimeout(ready, options.startTimeoutMs ?? 30_000, `starting the sandbox (pid ${pid})`);
  } catch (err) {
    if (live.has(pid)) process.kill(pid, 'SIGKILL');
    await withTimeout(exited, 10_000, `killing pid ${pid}`).catch(() => {});
    throw err;
  }

  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    pid,
    url,
    adminToken: options.adminToken,
    exited,
    stderr: () => errText,
    async stop(timeoutMs = 10_000) {
      if (gone()) return;
      process.kill(pid, 'SIGTERM');
      try {
        await withTimeout(exited, timeoutMs, `stopping pid ${pid}`);
      } catch {
        if (!gone()) process.kill(pid, 'SIGKILL');
        await withTimeout(exited, timeoutMs, `killing pid ${pid}`);
      }
    },
    async kill() {
      if (!gone()) process.kill(pid, 'SIGKILL');
      await withTimeout(exited, 10_000, `killing pid ${pid}`);
    },
  };
}

/**
 * `count` sandboxes started at the same moment on one store. If any fails to start, those that did are
 * stopped before the error is thrown: a failed start leaves no process behind.
 */
export async function startChildSandboxes(count: number, options: ChildSandboxOptions): Promise<ChildSandbox[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startChildSandbox(options)));
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) {
    await Promise.all(running.map((sandbox) => sandbox.stop()));
    throw failure.reason;
  }
  return running;
}
