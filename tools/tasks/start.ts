// npm start: build the contract, then run the sandbox on 127.0.0.1 (PORT, default 8080; the default, when busy, falls
// back to a free one) with the docs at /docs/ (their console prefilled with the demo key) and the bundled
// spec at /openapi.yaml|json; create (or reuse) a demo organization with every product enabled and print the
// base URL, the docs URL, a fresh demo API key and the admin token. State is kept in .sandbox-data/sandbox.db
// (node:sqlite), or in PostgreSQL when DATABASE_URL is set. Runs until Ctrl-C / SIGTERM, then closes the
// server and the store and exits 0. The same first run as the package's `payments-sandbox` (serveSandbox),
// serving this repository's build output instead of the package's copy of the docs.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { jsonLogger } from '../../packages/sandbox/src/http.ts';
import { banner, PortInUse, serveSandbox } from '../../packages/sandbox/src/serve.ts';
import { lintAdminSpec } from '../lib/admin-contract.ts';
import { buildContract } from '../lib/contract.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { buildDocs } from '../lib/docs.ts';
import { bundledJson, bundledYaml, docsDir, root } from '../lib/paths.ts';
import { parsePort, stopSignals } from '../lib/prism.ts';
import { log, main, step, StepError } from '../lib/steps.ts';

await main(async () => {
  const stop = stopSignals();
  const wanted = parsePort(process.env.PORT, 8080, 'PORT');
  // A PORT you set is held to: when it is taken, say so now, not after the build (new-contributor QA).
  if (process.env.PORT !== undefined && wanted !== 0 && !(await portFree(wanted))) throw portInUse(wanted);
  await buildContract();
  await buildWorkflows();
  await buildDocs();

  const dataDir = join(root, '.sandbox-data');
  mkdirSync(dataDir, { recursive: true });
  const served = await step('start the sandbox, demo organization and API key', () =>
    serveSandbox({
      port: wanted,
      fallBack: process.env.PORT === undefined, // a PORT someone set is held to (serve.ts)
      ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { file: join(dataDir, 'sandbox.db') }),
      ...(process.env.SANDBOX_ADMIN_TOKEN ? { adminToken: process.env.SANDBOX_ADMIN_TOKEN } : {}),
      logger: jsonLogger((text) => process.stderr.write(text)),
      site: { docsDir, specJson: bundledJson, specYaml: bundledYaml },
    }).catch((err: unknown) => {
      if (err instanceof PortInUse) throw portInUse(err.port);
      throw err;
    }),
  );
  if (served.portFellBack) log(`  port ${wanted} is busy: using ${served.sandbox.port} instead`);
  process.stdout.write(banner(served, 'node tools/launch.mjs packages/sandbox/src/cli.ts')); // works under the machine's Node 20 too

  const reason = await stop.until([]); // the sandbox runs in this process, until a signal
  await step('stop the sandbox', () => served.close());
  log(`stopped on ${reason.kind === 'signal' ? reason.signal : reason.name}`);
});

function portInUse(port: number): StepError {
  return new StepError('start', `PORT=${port}: port ${port} on 127.0.0.1 is in use: stop what holds it, or pick another PORT (0 = any free port)`);
}

/** Whether 127.0.0.1:port can be listened on now (a listener opened and closed at once). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
