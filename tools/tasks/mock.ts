// npm run mock [-- --port N]: build the contract, then serve it with Prism's stateless mock on 127.0.0.1
// (port from --port, else PORT, else 4010) until Ctrl-C / SIGTERM, then stop Prism and exit 0.
import { parseArgs } from 'node:util';
import { loadSpec } from '@payments/spec';
import { buildContract } from '../lib/contract.ts';
import { exampleCurls, parsePort, PrismStartError, startPrism, stopSignals } from '../lib/prism.ts';
import { log, main, step, StepError } from '../lib/steps.ts';

await main(async () => {
  const stop = stopSignals();
  const { values } = parseArgs({ options: { port: { type: 'string' } }, allowPositionals: false });
  const port = parsePort(values.port ?? process.env.PORT, 4010, values.port !== undefined ? '--port' : 'PORT');

  await buildContract();
  // Prism's request log goes to stderr once the banner is out (its start-up route list would bury it).
  let forwarding = false;
  const forwardOutput = (text: string) => forwarding && process.stderr.write(text);
  const prism = await step(`start Prism mock on 127.0.0.1:${port}`, () =>
    startPrism({ port, onOutput: forwardOutput }).catch((err: unknown) => {
      if (err instanceof PrismStartError && err.addressInUse) {
        throw new Error(`port ${port} on 127.0.0.1 is in use: pick another with --port N or PORT=N (0 = any free port)`);
      }
      throw err;
    }),
  );

  process.stdout.write(
    [
      '',
      `Prism mock: ${prism.url}  (pid ${prism.pid})`,
      '',
      ...exampleCurls(loadSpec(), prism.url),
      '',
      'Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  forwarding = true;
  const reason = await stop.until([{ name: 'Prism', exited: prism.exited }]);
  await step('stop Prism', () => prism.stop());
  if (reason.kind === 'died') throw new StepError(reason.name, `stopped unexpectedly (${reason.how}). Prism's last output:\n${prism.output().slice(-4000)}`);
  log(`stopped on ${reason.signal}`);
});
