// Running `redocly respect` (@redocly/cli) on one Arazzo file: the sources' servers (-S), the inputs (-i), the
// JSON log it writes (--json-output), read back. Respect prints its own report; we keep it for --verbose.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export class RespectMissing extends Error {}

/** `redocly` from $REDOCLY_BIN, else the nearest node_modules/.bin/redocly above the working folder or the kit. */
export function findRedocly(): string {
  if (process.env.REDOCLY_BIN) return process.env.REDOCLY_BIN;
  for (const start of [process.cwd(), dirname(fileURLToPath(import.meta.url))]) {
    for (let dir = resolve(start), i = 0; i < 64; dir = dirname(dir), i++) {
      const candidate = join(dir, 'node_modules', '.bin', 'redocly');
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new RespectMissing('redocly (@redocly/cli ≥ 2.77) was not found: install it next to the kit (npm i -D @redocly/cli) or set REDOCLY_BIN');
}

export interface RespectRun {
  /** Respect's JSON log (undefined when it wrote none: it failed before running). */
  log: RespectLog | undefined;
  /** What Respect printed (its own report), for --verbose and for errors. */
  output: string;
  exitCode: number;
}

export interface RespectCheck {
  name: string;
  passed: boolean;
  message?: string;
  condition?: string;
  severity?: string;
}

export interface RespectStep {
  type: 'step' | 'workflow';
  stepId: string;
  workflowId: string;
  request?: { method: string; url: string; headers?: Record<string, string>; body?: unknown };
  response?: { statusCode: number; body?: unknown; headers?: Record<string, string>; time?: number; size?: number };
  checks?: RespectCheck[];
  executedSteps?: RespectStep[];
  totalTimeMs?: number;
  status?: string;
}

export interface RespectWorkflow {
  workflowId: string;
  status: string;
  totalTimeMs: number;
  executedSteps: RespectStep[];
}

export interface RespectLog {
  files: Record<string, { executedWorkflows: RespectWorkflow[] }>;
}

/** `warnings`: Respect's checks run as warnings (it records them and goes on); the caller judges them. */
export function runRespect(file: string, options: { servers: Record<string, string>; inputs: Record<string, string>; workflows: string[]; timeoutMs: number; warnings?: readonly string[] }): Promise<RespectRun> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-workflows-'));
  const json = join(dir, 'respect.json');
  const args = ['respect', file, '--json-output', json, '--max-fetch-timeout', String(options.timeoutMs)];
  if (options.warnings?.length) args.push('--severity', options.warnings.map((check) => `${check}=warn`).join(','));
  for (const [name, url] of Object.entries(options.servers)) args.push('-S', `${name}=${url}`);
  for (const [name, value] of Object.entries(options.inputs)) args.push('-i', `${name}=${value}`);
  for (const id of options.workflows) args.push('-w', id);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(findRedocly(), args, {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', (err) => {
      rmSync(dir, { recursive: true, force: true });
      reject(new RespectMissing(`could not start redocly: ${err.message}`));
    });
    child.on('close', (code) => {
      const log = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as RespectLog) : undefined;
      rmSync(dir, { recursive: true, force: true });
      resolvePromise({ log, output, exitCode: code ?? 1 });
    });
  });
}
