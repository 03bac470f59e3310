// A long-lived bench process that answers requests over IPC: a server under test, or a load generator.
// Like processes.ts's forkServer, but the script gets arguments, says `{ type: 'ready', ... }` with
// whatever it wants the parent to know (a port, an admin token), and answers any number of requests
// `{ type, id, ... }` with `{ type: 'answer', id, ... }` (or `{ type: 'answer', id, error }`). Stopped
// by its PID (SIGTERM, then SIGKILL), and killed with this process if that exits first.
import { fork, type ChildProcess } from 'node:child_process';
import { withTimeout } from './timeout.ts';

export interface Service<Ready> {
  pid: number;
  /** The script's `ready` message. */
  ready: Ready;
  /** Settles when the process has exited, however it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `{ type, id, ...message }` and resolves with the matching answer; rejects on `error`, exit or timeout. */
  request<T>(type: string, message: Record<string, unknown>, timeoutMs: number): Promise<T>;
  /** SIGTERM by PID, then SIGKILL when it has not exited within `timeoutMs`; waits until it is gone. Safe to call twice. */
  stop(timeoutMs?: number): Promise<void>;
}

export interface ServiceOptions {
  args?: string[];
  execArgv?: string[];
  /** How long the script may take to send `ready` (default 30 s). */
  startTimeoutMs?: number;
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export async function forkService<Ready extends { type: 'ready' }>(script: string, options: ServiceOptions = {}): Promise<Service<Ready>> {
  const child: ChildProcess = fork(script, options.args ?? [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: options.execArgv ?? [],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${script}`);
  const killOnExit = () => kill(pid, 'SIGKILL');
  process.on('exit', killOnExit);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      resolve({ code, signal });
    });
  });
  let gone = false;
  void exited.then(() => (gone = true));

  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  child.on('message', (message: { type?: string; id?: number; error?: string }) => {
    if (message?.type !== 'answer' || typeof message.id !== 'number') return;
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${script}: ${message.error}`));
    else waiter.resolve(message);
  });
  void exited.then(({ code, signal }) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${script} (pid ${pid}) exited (${signal ?? `code ${code}`}) before answering`));
    pending.clear();
  });

  const ready = new Promise<Ready>((resolve, reject) => {
    child.on('message', (message: { type?: string }) => {
      if (message?.type === 'ready') resolve(message as Ready);
    });
    child.once('error', reject);
    void exited.then(({ code, signal }) => reject(new Error(`${script} exited before it was ready (${signal ?? `code ${code}`})`)));
  });

  let stopping: Promise<void> | undefined;
  const stop = (timeoutMs = 10_000) =>
    (stopping ??= (async () => {
      if (gone) return;
      kill(pid, 'SIGTERM');
      try {
        await withTimeout(exited, timeoutMs, `stopping pid ${pid}`);
      } catch {
        kill(pid, 'SIGKILL');
        await withTimeout(exited, 5_000, `killing pid ${pid}`);
      }
    })());

  let readyMessage: Ready;
  try {
    readyMessage = await withTimeout(ready, options.startTimeoutMs ?? 30_000, `starting ${script}`);
  } catch (err) {
    kill(pid, 'SIGKILL');
    await withTimeout(exited, 5_000, `killing pid ${pid}`).catch(() => {});
    throw err;
  }

  return {
    pid,
    ready: readyMessage,
    exited,
    stop,
    request<T>(type: string, message: Record<string, unknown>, timeoutMs: number) {
      if (gone) return Promise.reject(new Error(`${script} (pid ${pid}) is not running`));
      const id = nextId++;
      const answer = new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      });
      child.send({ ...message, type, id });
      return withTimeout(answer, timeoutMs, `${type} request to ${script}`).finally(() => pending.delete(id));
    },
  };
}

/** For the child side: answers requests of `type` with `handler`'s result, or its error as `error`. */
export function answer(type: string, handler: (message: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>): void {
  process.on('message', (message: { type?: string; id?: number }) => {
    if (message?.type !== type || typeof message.id !== 'number') return;
    const id = message.id;
    Promise.resolve()
      .then(() => handler(message as Record<string, unknown>))
      .then(
        (result) => process.send?.({ ...result, type: 'answer', id }),
        (err: unknown) => process.send?.({ type: 'answer', id, error: err instanceof Error ? err.message : String(err) }),
      );
  });
}
