// npm start: build the contract and the docs, then serve
//   - the docs (dist/docs) plus the bundled spec at /openapi.yaml and /openapi.json  (DOCS_PORT, default 8080)
//   - Prism's stateless mock of the bundled spec                                      (MOCK_PORT, default 4010)
// on 127.0.0.1. A busy port falls back to a free one. Runs until Ctrl-C / SIGTERM, then stops both and exits 0.
import { loadSpec } from '@payments/spec';
import { buildContract } from '../lib/contract.ts';
import { buildDocs } from '../lib/docs.ts';
import { bundledJson, bundledYaml, docsDir } from '../lib/paths.ts';
import { exampleCurls, isPortFree, parsePort, PrismStartError, startPrism, stopSignals, type PrismServer } from '../lib/prism.ts';
import { serveStatic, type StaticServer } from '../lib/static-server.ts';
import { log, main, step, StepError } from '../lib/steps.ts';

await main(async () => {
  const stop = stopSignals();
  const docsPort = parsePort(process.env.DOCS_PORT, 8080, 'DOCS_PORT');
  const mockPort = parsePort(process.env.MOCK_PORT, 4010, 'MOCK_PORT');

  await buildContract();
  await buildDocs();

  // Prism's request log goes to stderr once the banner is out (its start-up route list would bury it).
  let forwarding = false;
  const forwardOutput = (text: string) => forwarding && process.stderr.write(text);
  const docs = await step('serve docs', () => serveDocs(docsPort));
  let prism: PrismServer;
  try {
    prism = await step('start Prism mock', () => startMock(mockPort, forwardOutput));
  } catch (err) {
    await docs.close();
    throw err;
  }

  const doc = loadSpec();
  process.stdout.write(
    [
      '',
      `  Docs:       ${docs.url}`,
      `  Spec:       ${docs.url}openapi.yaml  ${docs.url}openapi.json`,
      `  Mock API:   ${prism.url}  (Prism, stateless: examples from the spec)`,
      '',
      ...exampleCurls(doc, prism.url, 'svc_live_placeholder').map((line) => `  ${line}`),
      '',
      '  Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  forwarding = true;
  const docsClosed = new Promise<void>((resolve) => docs.server.once('close', () => resolve()));
  const reason = await stop.until([
    { name: 'Prism', exited: prism.exited },
    { name: 'docs server', exited: docsClosed },
  ]);
  await step('stop Prism and the docs server', () => Promise.all([prism.stop(), docs.close()]));
  if (reason.kind === 'died') {
    const detail = reason.name === 'Prism' ? ` Prism's last output:\n${prism.output().slice(-4000)}` : '';
    throw new StepError(reason.name, `stopped unexpectedly (${reason.how}).${detail}`);
  }
  log(`stopped on ${reason.signal}`);
});

async function serveDocs(port: number): Promise<StaticServer> {
  const routes = { '/openapi.yaml': bundledYaml, '/openapi.json': bundledJson };
  try {
    return await serveStatic(docsDir, { port, routes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw err;
    log(`  port ${port} is busy: serving the docs on a free port instead`);
    return serveStatic(docsDir, { port: 0, routes });
  }
}

async function startMock(port: number, onOutput: (text: string) => void): Promise<PrismServer> {
  if (port !== 0 && !(await isPortFree(port))) {
    log(`  port ${port} is busy: starting the mock on a free port instead`);
    return startPrism({ port: 0, onOutput });
  }
  try {
    return await startPrism({ port, onOutput });
  } catch (err) {
    // Taken between the check and Prism's bind.
    if (!(err instanceof PrismStartError && err.addressInUse) || port === 0) throw err;
    log(`  port ${port} is busy: starting the mock on a free port instead`);
    return startPrism({ port: 0, onOutput });
  }
}
