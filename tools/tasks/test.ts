// npm test: everything the tests need on a fresh machine (Chromium for the docs test, PostgreSQL's server
// binaries for the sandbox's shared store, the third-party tools of tools/interop), then the build (a
// lint failure stops here with the linter's message), then every vitest suite. Ends with the line
// `N passed, N failed` that CI reads.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildContract } from '../lib/contract.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { buildDocs } from '../lib/docs.ts';
import { checkBreaking } from '../lib/breaking/gate.ts';
import { compilePackages, generateCode } from '../lib/codegen.ts';
import { ensureChromium } from '../lib/chromium.ts';
import { ensurePostgresBinaries } from '../lib/postgres.ts';
import { ensureInteropTool, INTEROP_TOOLS } from '../lib/interop.ts';
import { bin, root } from '../lib/paths.ts';
import { log, step, StepError } from '../lib/steps.ts';

const report = join(root, '.reports', 'vitest.json');

function summary(passed: number, failed: number): never {
  const line = `${passed} passed, ${failed} failed`;
  mkdirSync(join(root, '.reports'), { recursive: true });
  writeFileSync(join(root, '.reports', 'summary.txt'), `${line}\n`);
  process.stdout.write(`${line}\n`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

try {
  await ensureChromium();
  await ensurePostgresBinaries();
  await step(`install ${INTEROP_TOOLS.join(', ')} (tools/interop)`, () => INTEROP_TOOLS.forEach(ensureInteropTool));
  await buildContract();
  await step('breaking-change gate (spec vs openapi/released)', () => checkBreaking());
  await buildWorkflows();
  await buildDocs();
  await generateCode({ check: Boolean(process.env.CI) });
  await compilePackages();
} catch (err) {
  log(err instanceof StepError ? `\n✗ ${err.step} failed:\n\n${err.output.trim()}\n` : `\n✗ ${String(err)}`);
  summary(0, 1);
}

mkdirSync(join(root, '.reports'), { recursive: true });
rmSync(report, { force: true });
const args = ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync(bin('vitest'), args, { cwd: root, stdio: 'inherit' });
let passed = 0;
let failed = 0;
try {
  const result = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number };
  passed = result.numPassedTests;
  failed = result.numFailedTests;
} catch {
  log('vitest wrote no report (it crashed or found no tests)');
}
if (run.status !== 0 && failed === 0) failed = 1; // a suite that failed to load counts as a failure
summary(passed, failed);
