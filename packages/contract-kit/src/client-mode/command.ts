// The client under test as a command in any language: spawned once per scenario, without a shell, with
// the scenario in its environment. Its output is kept (the last 4 kB) for the report; it is stopped when
// it outlives the timeout.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Drive, ScenarioContext } from './run.ts';

/** The environment a command gets (documented in the kit's README). */
export function commandEnvironment(context: ScenarioContext, admin: { adminToken: string; testClock: boolean }): Record<string, string> {
  return {
    PAYMENTS_BASE_URL: context.baseUrl,
    PAYMENTS_API_KEY: context.apiKey,
    PAYMENTS_SCENARIO: context.scenario.name,
    PAYMENTS_OPERATION: context.scenario.operation,
    ...(context.recipientId ? { PAYMENTS_RECIPIENT_ID: context.recipientId } : {}),
    // With a test clock the command may advance it (a virtual sleep): POST $SANDBOX_URL/admin/organizations/$PAYMENTS_ORGANIZATION_ID/clock/advance
    ...(admin.testClock ? { PAYMENTS_ORGANIZATION_ID: context.organizationId, SANDBOX_URL: context.baseUrl, SANDBOX_ADMIN_TOKEN: admin.adminToken } : {}),
  };
}

export function commandDrive(argv: readonly string[], options: { adminToken: string; testClock: boolean; timeoutMs: number }): Drive {
  return (context) =>
    new Promise((resolve) => {
      const [file, ...args] = argv;
      const child = spawn(file!, args, { env: { ...process.env, ...commandEnvironment(context, options) }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      let stopped = false; // by us, at the timeout: the client did not end by itself, whatever its exit
      const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4096));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = setTimeout(() => {
        stopped = true;
        output += `\n[contract-kit] stopped after ${options.timeoutMs} ms`;
        child.kill('SIGKILL');
      }, options.timeoutMs);
      child.on('error', (err) => {
        clearTimeout(timer);
        resolve({ exitCode: 127, output: `cannot start ${file}: ${err.message}` });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ exitCode: code ?? (signal ? 128 : 1), output, ...(stopped ? { stoppedAfterMs: options.timeoutMs } : {}) });
      });
    });
}

/**
 * Whether the command can be started: a path to an executable file, or a name found on PATH. Checked once
 * before any scenario (QA: `client -- jav …` made every scenario an ERROR of its own, and exit 1).
 */
export function commandFound(file: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (isAbsolute(file) || file.includes('/')) return executable(resolve(file));
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, file)));
}
