// node tools/launch.mjs bench-pg-ceiling [-- --seconds 10 --clients 32]: PostgreSQL alone with the statements
// the sandbox sends for a new POST transfer, its replay and a GET balance (bench/sandbox/pg-ceiling.ts), the
// ceiling of the shared mode on this machine. Needs the bundled spec and the admin spec (built here when
// missing) and pgbench (PostgreSQL's client package). Not part of `npm test`.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adminBundledJson, lintAdminSpec } from '../lib/admin-contract.ts';
import { buildContract } from '../lib/contract.ts';
import { bundledJson, bundledYaml, root } from '../lib/paths.ts';
import { main, StepError } from '../lib/steps.ts';

await main(async () => {
  if (!existsSync(bundledJson) || !existsSync(bundledYaml)) await buildContract();
  if (!existsSync(adminBundledJson)) await lintAdminSpec();
  const passed = process.argv.slice(2);
  const child = spawn(process.execPath, [join(root, 'bench', 'sandbox', 'pg-ceiling.ts'), ...passed], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  if (code !== 0) throw new StepError('bench-pg-ceiling', `bench/sandbox/pg-ceiling.ts exited with ${code}`);
});
