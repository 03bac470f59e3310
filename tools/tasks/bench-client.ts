// node tools/launch.mjs bench-client [-- options]: compile packages/types and packages/client to dist/
// (what the bench loads), then run bench/client/run.ts, which runs each measuring phase in a fresh Node
// process. Not part of `npm test`: it measures and prints verdicts; it exits non-zero on a FAIL only with
// --strict. Options are passed through; see bench/client/run.ts.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { compilePackages } from '../lib/codegen.ts';
import { root } from '../lib/paths.ts';
import { main, StepError } from '../lib/steps.ts';

await main(async () => {
  await compilePackages();
  const script = join(root, 'bench', 'client', 'run.ts');
  const child = spawn(process.execPath, [script, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  const code = await new Promise<number>((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  if (code !== 0) throw new StepError('bench-client', `bench/client/run.ts exited with ${code}`);
});
