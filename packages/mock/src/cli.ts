// `payments-mock`: Prism's stateless mock of the Payments API (as `prism mock` would, with our document and
// validator tolerance) on 127.0.0.1:4010 by default, until Ctrl-C / SIGTERM, which it passes on to Prism.
// Prism 5.16 runs on Node >= 24.18 only: on an older supported Node (22) the command says so and exits 1.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parsePort } from '@payments/spec/cli-support';
import { PRISM_NODE, prismInvocation, prismSupports } from './index.ts';

const PROG = 'payments-mock';

export const HELP = `usage: ${PROG} [options]

Prism's stateless mock of the Payments API: every documented response and example, request validation with
the contract's rules (every valid amount accepted, as a JSON number or a string). Pick a documented answer
with \`Prefer: code=409, example=banking_transfer_idempotency_conflict\`.

options:
  -p, --port N     port [PORT]; default 4010; 0 = any free port
  -h, --host HOST  interface [HOST]; default 127.0.0.1
      --errors     answer a request that breaks the contract with an error, as Prism's --errors
      --help       this help
  -v, --version    the package version

Needs Node ${PRISM_NODE.text} (Prism 5.16's requirement).
`;

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[], env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', short: 'p' },
      host: { type: 'string', short: 'h' },
      errors: { type: 'boolean' },
      help: { type: 'boolean' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  if (values.help || values.version) {
    process.stdout.write(values.help ? HELP : `${version()}\n`);
    return 0;
  }
  if (!prismSupports(process.versions.node)) {
    process.stderr.write(`${PROG}: Prism 5.16 needs Node ${PRISM_NODE.text}; this is Node ${process.versions.node}. Run it with Node 24 (24.18 or later) or 26.\n`);
    return 1;
  }
  const port = parsePort(values.port ?? env.PORT, 4010, values.port !== undefined ? '--port' : 'PORT');
  const { args, env: prismEnv } = prismInvocation({ port, host: values.host ?? env.HOST ?? '127.0.0.1', errors: Boolean(values.errors) });
  const prism = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, ...prismEnv } });
  // A terminal's Ctrl-C reaches Prism by itself (same process group); a SIGTERM sent to us is passed on.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => prism.kill(signal));
  return new Promise((resolve) => {
    prism.once('error', (err) => {
      process.stderr.write(`${PROG}: could not start Prism: ${err.message}\n`);
      resolve(1);
    });
    prism.once('exit', (code, signal) => resolve(signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : (code ?? 1)));
  });
}
