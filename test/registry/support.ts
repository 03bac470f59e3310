// Processes of the registry test: one-shot commands with their output, and long-running commands (the
// sandbox, the mock) in a process group of their own. npx (npm exec) does not pass SIGTERM on to the command
// it runs (it dies of it, leaving the command running), so stop() signals the command's own process, found
// among npx's descendants by its command line, as a CI runner's process-tree kill or `kill <pid>` would, then
// waits for npx to exit with the command's code; SIGTERM, then SIGKILL to the group if it does not stop.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Outcome {
  /** The process group the command ran in (a background job it started is still in it). */
  pid: number | undefined;
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
}

/** Runs a command to its end (killed at the timeout), with its output. */
export function run(cmd: string, args: string[], { cwd, env, timeoutMs }: RunOptions): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ pid: child.pid, code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

export interface Running {
  /** The first match of `ready` in stdout. */
  match: RegExpMatchArray;
  output(): string;
  /** SIGTERM to the command (`target`, else the group); resolves with the exit code (npx's is the command's). */
  stop(): Promise<number | null>;
  /** The command lines (arguments) of the running `target` processes. */
  commandLines(): string[][];
}

/** Descendants of a process (Linux /proc), children first. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The descendants of `pid` whose command line contains `marker` (e.g. `bin/payments-sandbox`). */
export function findDescendants(pid: number | undefined, marker: string): number[] {
  if (pid === undefined) return [];
  return descendants(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}

/** Starts a long-running command and resolves once its stdout matches `ready` (rejects if it exits first). */
export function start(cmd: string, args: string[], ready: RegExp, { cwd, env, timeoutMs }: RunOptions, target?: string): Promise<Running> {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  const output = () => `--- stdout\n${stdout.slice(-8000)}\n--- stderr\n${stderr.slice(-8000)}`;
  const stop = async () => {
    const commands = target ? findDescendants(child.pid, target) : [];
    if (running && commands.length > 0) commands.forEach((pid) => process.kill(pid, 'SIGTERM'));
    else if (running) killGroup(child.pid, 'SIGTERM');
    const term = setTimeout(() => killGroup(child.pid, 'SIGTERM'), 10_000);
    const kill = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(term);
    clearTimeout(kill);
    return code;
  };
  let settled = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      settled = true;
      void stop();
      reject(new Error(`${cmd} ${args.join(' ')} was not ready within ${timeoutMs} ms\n${output()}`));
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
      const match = stdout.match(ready);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        const commandLines = () => findDescendants(child.pid, target ?? cmd).map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
        resolve({ match, output, stop, commandLines });
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    void exited.then((code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited (${code}) before it was ready\n${output()}`));
    });
  });
}
