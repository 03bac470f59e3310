// npm run docs: build the contract and the workflows, and render the docs to dist/docs/index.html.
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { docsHtml } from '../lib/paths.ts';
import { log, main } from '../lib/steps.ts';
import { buildWorkflows } from '../lib/workflows.ts';

await main(async () => {
  await buildContract();
  await buildWorkflows();
  await buildDocs();
  log(`docs: ${docsHtml}`);
});
