// A sandbox bench script run as its own process: the bundled spec and the admin spec it reads built first
// when missing (a full `npm run build` is not needed), the task's arguments passed on, signals forwarded.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adminBundledJson, lintAdminSpec } from './admin-contract.ts';
import { buildContract } from './contract.ts';
import { bundledJson, bundledYaml, root } from './paths.ts';
import { StepError } from './steps.ts';

/** Runs `script` (a path from the repository's root) with this process's arguments; a non-zero exit fails `task`. */
export async function runBenchScript(task: string, script: string): Promise<void> {
  if (!existsSync(bundledJson) || !existsSync(bundledYaml)) await buildContract();
  if (!existsSync(adminBundledJson)) await lintAdminSpec();
  const child = spawn(process.execPath, [join(root, script), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  if (code !== 0) throw new StepError(task, `${script} exited with ${code}`);
}
