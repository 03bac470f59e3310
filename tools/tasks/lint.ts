// npm run lint: our layout rules (.spectral-layout.yaml) and Redocly on the source, then Spectral (oas, OWASP,
// our rules) on the bundle.
import { buildContract } from '../lib/contract.ts';
import { log, main } from '../lib/steps.ts';

await main(async () => {
  await buildContract();
  log('lint clean');
});
