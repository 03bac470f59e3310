// npm start: build the contract, then run the sandbox on 127.0.0.1 (PORT, default 8080; a busy port falls
// back to a free one) with the docs at /docs/ and the bundled spec at /openapi.yaml|json; create (or reuse)
// a demo organization with every product enabled and print the base URL, the docs URL, a fresh demo API key
// and the admin token. State is kept in .sandbox-data/sandbox.db (node:sqlite), or in PostgreSQL when
// DATABASE_URL is set. Runs until Ctrl-C / SIGTERM, then closes the server and the store and exits 0.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { jsonLogger } from '../../packages/sandbox/src/http.ts';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import type { Organization } from '../../packages/sandbox/src/store/types.ts';
import { lintAdminSpec } from '../lib/admin-contract.ts';
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { bundledJson, bundledYaml, docsHtml, root } from '../lib/paths.ts';
import { isPortFree, parsePort, stopSignals } from '../lib/prism.ts';
import { log, main, step } from '../lib/steps.ts';

const DEMO_NAME = 'Demo organization (npm start)';

await main(async () => {
  const stop = stopSignals();
  const wanted = parsePort(process.env.PORT, 8080, 'PORT');
  await buildContract();
  await buildDocs();
  await lintAdminSpec();

  const dataDir = join(root, '.sandbox-data');
  mkdirSync(dataDir, { recursive: true });
  const port = wanted === 0 || (await isPortFree(wanted)) ? wanted : 0;
  if (port !== wanted) log(`  port ${wanted} is busy: using a free port instead`);
  const sandbox = await step('start the sandbox', () =>
    startSandbox({
      port,
      ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { file: join(dataDir, 'sandbox.db') }),
      ...(process.env.SANDBOX_ADMIN_TOKEN ? { adminToken: process.env.SANDBOX_ADMIN_TOKEN } : {}),
      logger: jsonLogger((text) => process.stderr.write(text)),
      staticFiles: {
        '/docs/': { file: docsHtml, type: 'text/html; charset=utf-8' },
        '/docs': { file: docsHtml, type: 'text/html; charset=utf-8' },
        '/openapi.yaml': { file: bundledYaml, type: 'application/yaml' },
        '/openapi.json': { file: bundledJson, type: 'application/json' },
      },
    }),
  );
  const demoKey = await step('demo organization and API key', () => demoOrganization(sandbox));

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

/** The demo organization (created once, every product on), with a new key: keys are shown only once. */
async function demoOrganization(sandbox: RunningSandbox): Promise<string> {
  const { key, hash, prefix } = generateApiKey();
  await sandbox.store.transaction(async (tx) => {
    const now = new Date().toISOString();
    let org: Organization | undefined = (await tx.listOrganizations()).find((o) => o.name === DEMO_NAME);
    if (!org) {
      org = {
        id: `org_${randomUUID().replace(/-/g, '')}`,
        name: DEMO_NAME,
        apiAccess: true,
        banking: true,
        cards: true,
        checkout: true,
        walletTransfers: true,
        cardTermsAccepted: true,
        checkoutPix: true,
        funding: { BRL: '100000.00', USD: '50000.00' },
        createdAt: now,
      };
      await tx.insertOrganization(org);
    }
    await tx.insertApiKey({ id: `key_${randomUUID().replace(/-/g, '')}`, organizationId: org.id, hash, prefix, createdAt: now, revokedAt: null });
  });
  return key;
}
