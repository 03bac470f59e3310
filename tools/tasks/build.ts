// npm run build: lint the source, bundle, lint the bundle, the sandbox's handlers, the breaking-change gate, render the docs, generate the types and the
// client's spec rules (under CI=true only check that the committed generated files match the spec).
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { checkBreaking } from '../lib/breaking/gate.ts';
import { checkSandboxHandlers } from '../lib/sandbox-coverage.ts';
import { compilePackages, generateCode } from '../lib/codegen.ts';
import { log, main, step } from '../lib/steps.ts';

await main(async () => {
  const started = performance.now();
  await buildContract();
  await checkSandboxHandlers();
  await step('breaking-change gate (spec vs openapi/released)', () => checkBreaking());
  await buildWorkflows();
  await buildDocs();
  await generateCode({ check: Boolean(process.env.CI) });
  await compilePackages();
  log(`build done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});
