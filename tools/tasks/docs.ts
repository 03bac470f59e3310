// npm run docs: build the contract and render the docs to dist/docs/index.html.
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { docsHtml } from '../lib/paths.ts';
import { log, main } from '../lib/steps.ts';

await main(async () => {
  await buildContract();
  await buildDocs();
  log(`docs: ${docsHtml}`);
});
