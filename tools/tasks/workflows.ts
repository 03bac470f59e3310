// npm run workflows [-- --server URL --admin-url URL --admin-token T --api-key K --workflow id --json F --junit F]:
// build what the workflows need (the contract, the admin document, the workflows linted and shipped into
// packages/spec/dist/workflows/), then run them with the contract kit's `workflows` command (default: against a
// fresh sandbox). Its exit code is this task's: 0 passed, 1 a workflow failed, 2 usage.
import { buildContract } from '../lib/contract.ts';
import { main } from '../lib/steps.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { workflowsMain } from '../../packages/contract-kit/src/workflows/cli.ts';

await main(async () => {
  const argv = process.argv.slice(2);
  if (!argv.includes('--help') && !argv.includes('-h')) {
    await buildContract();
    await buildWorkflows();
  }
  process.exitCode = await workflowsMain(argv);
});
