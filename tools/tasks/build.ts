// npm run build: lint the source, bundle, lint the bundle, render the docs.
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { log, main } from '../lib/steps.ts';

await main(async () => {
  const started = performance.now();
  await buildContract();
  await buildDocs();
  log(`build done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});
