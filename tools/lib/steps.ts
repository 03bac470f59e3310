// Running the build's external tools as named steps: a header, the tool's own output when it fails, a
// timing when it succeeds. A failing step throws StepError carrying the tool's message.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { root } from './paths.ts';

export class StepError extends Error {
  readonly step: string;
  readonly output: string;
  constructor(step: string, output: string) {
    super(`${step} failed:\n${output.trim()}`);
    this.step = step;
    this.output = output;
  }
}

const isTty = process.stderr.isTTY;
const dim = (s: string) => (isTty ? `\x1b[2m${s}\x1b[0m` : s);

// Under vitest the build steps run inside tests: their progress lines would bury the test report.
const silent = Boolean(process.env.VITEST);

export function log(message: string): void {
  if (!silent) process.stderr.write(`${message}\n`);
}

/** Runs `cmd args` (in the repository's root unless `cwd`), capturing output; resolves with stdout, or throws StepError with everything it printed. */
export function runTool(step: string, cmd: string, args: string[], opts: { quiet?: boolean; cwd?: string } = {}): Promise<string> {
  const started = performance.now();
  if (!opts.quiet) log(`▶ ${step}`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let all = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      all += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      all += chunk;
    });
    child.on('error', (err) => reject(new StepError(step, `could not start ${cmd}: ${err.message}`)));
    child.on('close', (code) => {
      if (code !== 0) return reject(new StepError(step, all));
      if (!opts.quiet) log(dim(`  ✓ ${step} (${Math.round(performance.now() - started)} ms)`));
      resolvePromise(stdout);
    });
  });
}

/** Runs an in-process step with the same header and timing. */
export async function step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  log(`▶ ${name}`);
  try {
    const result = await fn();
    log(dim(`  ✓ ${name} (${Math.round(performance.now() - started)} ms)`));
    return result;
  } catch (err) {
    if (err instanceof StepError) throw err;
    throw new StepError(name, err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
}

/** Entry wrapper for tasks: prints a StepError as the tool's own message and exits 1. */
export async function main(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    // An option the task does not know (node:util parseArgs): a usage error, not a crash; --help, the task's
    // own header (its usage and options), on stdout.
    if (String((err as { code?: unknown } | null)?.code).startsWith('ERR_PARSE_ARGS_')) {
      const script = process.argv[1] ?? '';
      if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
        process.stdout.write(`${headerOf(script)}\n`);
        process.exit(0);
      }
      log(`✗ ${(err as Error).message}; --help prints the options (also in the README's table of scripts and in ${relative(root, script)})\n`);
      process.exit(2);
    }
    if (err instanceof StepError) {
      log(`\n✗ ${err.step} failed:\n\n${err.output.trim()}\n`);
    } else {
      log(`\n✗ ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exit(1);
  }
}

/** The leading comment block of a task file, without its `// ` (a task's header is its usage). */
function headerOf(file: string): string {
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = lines.slice(0, lines.findIndex((line) => !line.startsWith('//')));
  return header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n').trim();
}
