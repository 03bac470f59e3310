// node tools/launch.mjs bench-sandbox [-- options]: the sandbox's throughput, latency and memory next to
// Prism's mock and a bare node:http server (bench/sandbox/run.ts; its header lists the options, e.g.
// --quick). Needs the bundled spec and the admin spec: built here when missing (a full `npm run build` is
// not needed). Not part of `npm test`: it measures and prints verdicts; it exits non-zero on a FAIL only
// with --strict.
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
  const script = join(root, 'bench', 'sandbox', 'run.ts');
  const passed = process.argv.slice(2);
  const child = spawn(process.execPath, [script, ...passed], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  if (code !== 0) throw new StepError('bench-sandbox', `bench/sandbox/run.ts exited with ${code}`);
});
