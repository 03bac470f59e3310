// npm start: build the contract, then run the sandbox on 127.0.0.1 (PORT, default 8080; a busy port falls
// back to a free one) with the docs at /docs/ (their console prefilled with the demo key) and the bundled
// spec at /openapi.yaml|json; create (or reuse) a demo organization with every product enabled and print the
// base URL, the docs URL, a fresh demo API key and the admin token. State is kept in .sandbox-data/sandbox.db (node:sqlite), or in PostgreSQL when
// DATABASE_URL is set. Runs until Ctrl-C / SIGTERM, then closes the server and the store and exits 0.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLogger } from '../../packages/sandbox/src/http.ts';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { buildContract } from '../lib/contract.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { demoOrganization } from '../lib/demo-organization.ts';
import { buildDocs } from '../lib/docs.ts';
import { docsSiteFiles } from '../lib/docs-site.ts';
import { root } from '../lib/paths.ts';
import { isPortFree, parsePort, stopSignals } from '../lib/prism.ts';
import { log, main, step } from '../lib/steps.ts';

await main(async () => {
  const stop = stopSignals();
  const wanted = parsePort(process.env.PORT, 8080, 'PORT');
  await buildContract();
  await buildWorkflows();
  await buildDocs();

  const dataDir = join(root, '.sandbox-data');
  mkdirSync(dataDir, { recursive: true });
  const apiKey = generateApiKey(); // made first, so the sandbox can serve it to the docs console
  const port = wanted === 0 || (await isPortFree(wanted)) ? wanted : 0;
  if (port !== wanted) log(`  port ${wanted} is busy: using a free port instead`);
  const sandbox = await step('start the sandbox', () =>
    startSandbox({
      port,
      ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { file: join(dataDir, 'sandbox.db') }),
      ...(process.env.SANDBOX_ADMIN_TOKEN ? { adminToken: process.env.SANDBOX_ADMIN_TOKEN } : {}),
      logger: jsonLogger((text) => process.stderr.write(text)),
      // The docs console prefills the demo key from /docs/console.json (never from the built HTML).
      staticFiles: docsSiteFiles({ demoApiKey: apiKey.key }),
    }),
  );
  const demoKey = await step('demo organization and API key', () => demoOrganization(sandbox, apiKey));

  process.stdout.write(
    [
      '',
      `  Sandbox API:  ${sandbox.url}   (store: ${sandbox.store.kind})`,
      `  Docs:         ${sandbox.url}/docs/`,
      `  Spec:         ${sandbox.url}/openapi.yaml`,
      `  Demo API key: ${demoKey}`,
      `  Admin token:  ${sandbox.adminToken}`,
      '',
      `  curl -s -H 'x-api-key: ${demoKey}' ${sandbox.url}/v1/banking/balance`,
      `  node packages/sandbox/src/cli.ts --url ${sandbox.url} --token ${sandbox.adminToken} fault list`,
      '',
      '  Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  const reason = await stop.until([]); // the sandbox runs in this process, until a signal
  await step('stop the sandbox', () => sandbox.close());
  log(`stopped on ${reason.kind === 'signal' ? reason.signal : reason.name}`);
});
