// Bench work in other processes. forkServer: a server in its own process (so the load generator and the
// server don't share an event loop), a script that listens on 127.0.0.1 and sends `{ port }` over IPC once
// it does; stopped by its PID. runWorker: one measuring phase in a fresh process, so what one phase leaves
// behind (pending timers, a grown heap) cannot slow the next; it answers one `{ type: 'result' }` message.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { withTimeout } from './timeout.ts';

export interface ChildServer {
  pid: number;
  port: number;
  /** Asks the child for a message of its own (it answers `{ type: 'stats', ... }` to `'stats'`). */
  stats(timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM by PID, then SIGKILL if it has not exited within `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return once(child, 'exit').then(() => undefined);
}

export async function forkServer(script: string, options: { startTimeoutMs?: number; execArgv?: string[] } = {}): Promise<ChildServer> {
  const child = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: options.execArgv ?? [] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${script}`);

  const ready = new Promise<number>((resolve, reject) => {
    child.on('message', (message: { type?: string; port?: number }) => {
      if (message?.type === 'listening' && typeof message.port === 'number') resolve(message.port);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`${script} exited before listening (${signal ?? `code ${code}`})`)));
  });
  let port: number;
  try {
    port = await withTimeout(ready, options.startTimeoutMs ?? 10_000, `starting ${script}`);
  } catch (err) {
    process.kill(pid, 'SIGKILL');
    throw err;
  }

  return {
    pid,
    port,
    stats(timeoutMs = 5_000) {
      const answer = new Promise<Record<string, unknown>>((resolve) => {
        const onMessage = (message: { type?: string }) => {
          if (message?.type !== 'stats') return;
          child.off('message', onMessage);
          resolve(message as Record<string, unknown>);
        };
        child.on('message', onMessage);
        child.send('stats');
      });
      return withTimeout(answer, timeoutMs, 'server stats');
    },
    async stop(timeoutMs = 5_000) {
      const gone = exited(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, 'SIGTERM');
      try {
        await withTimeout(gone, timeoutMs, `stopping pid ${pid}`);
      } catch {
        process.kill(pid, 'SIGKILL');
        await withTimeout(gone, timeoutMs, `killing pid ${pid}`);
      }
    },
  };
}

/** Forks `script` with `config` as its one argument (JSON), resolves with its `{ type: 'result', result }`. */
export function runWorker<T>(script: string, config: unknown, options: { timeoutMs: number; execArgv?: string[] }): Promise<T> {
  const child = fork(script, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: options.execArgv ?? [] });
  const pid = child.pid;
  if (pid === undefined) return Promise.reject(new Error(`could not start ${script}`));
  let result: { value: T } | undefined;
  child.on('message', (message: { type?: string; result?: T }) => {
    if (message?.type === 'result') result = { value: message.result as T };
  });
  const done = new Promise<T>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (result && code === 0) resolve(result.value);
      else reject(new Error(`${script} (pid ${pid}) ended with ${signal ?? `code ${code}`}${result ? '' : ' before its result'}`));
    });
  });
  return withTimeout(done, options.timeoutMs, `worker ${script}`).catch((err: unknown) => {
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
    throw err;
  });
}
