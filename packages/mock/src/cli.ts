// `payments-mock`: Prism's stateless mock of the Payments API (as `prism mock` would, with our document and
// validator tolerance) on 127.0.0.1:4010 by default, until Ctrl-C / SIGTERM, which it passes on to Prism;
// `payments-mock proxy URL`: Prism's validating proxy in front of a server (`prism proxy`), alike.
// Prism 5.16 runs on Node >= 24.18 only: on an older supported Node (22) the command says so and exits 1.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { parsePort } from '@payments/spec/cli-support';
import { PRISM_NODE, prismInvocation, prismSupports } from './index.ts';

const PROG = 'payments-mock';

export const HELP = `usage: ${PROG} [options]
       ${PROG} proxy <server-url> [options]

Prism's stateless mock of the Payments API: every documented response and example, request validation with
the contract's rules (every valid amount accepted, as a JSON number or a string). Pick a documented answer
with \`Prefer: code=409, example=banking_transfer_idempotency_conflict\`.

proxy <server-url>: Prism's validating proxy in front of a server of the API (yours, a staging one, the
sandbox): each request is forwarded to <server-url> (an absolute http or https URL; a path in it prefixes
every request's), and each request and answer is checked against the contract. Violations are listed in the
answer's sl-violations header and in the log; with --errors a request that breaks the contract is refused
without reaching the server, and an answer that breaks it becomes a 500 naming the violations.

options:
  -p, --port N     port [PORT]; default 4010; 0 = any free port
  -h, --host HOST  interface [HOST]; default 127.0.0.1
      --errors     answer a request (proxy: or an answer) that breaks the contract with an error, as Prism's --errors
      --help       this help
  -v, --version    the package version

Needs Node ${PRISM_NODE.text} (Prism 5.16's requirement).
`;

/** Why `host:port` cannot be listened on (EADDRINUSE, EACCES…), or undefined when it can. */
function portTaken(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** A command line this command cannot run: said in one line, exit code 2. */
class UsageError extends Error {}

/** `read()`, its error a usage error. */
function usage<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The server `proxy` forwards to: an absolute http(s) URL (Prism would take `localhost:8080` as a scheme). */
function upstreamOf(positionals: string[]): string | undefined {
  if (positionals.length === 0) return undefined;
  const [command, url, ...extra] = positionals;
  if (command !== 'proxy') throw new UsageError(`unknown command "${command}" (the commands: none for the mock, "proxy <server-url>")`);
  if (url === undefined) throw new UsageError('proxy needs the server to forward to: payments-mock proxy http://127.0.0.1:8080');
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}" after the server URL`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`the server URL must be absolute, as http://127.0.0.1:8080; got "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`the server URL must be http or https; got "${url}"`);
  return url;
}

export async function main(argv: string[], env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  try {
    return await run(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError) && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') !== true) throw err;
    // Node's own parse errors run over several lines ("… To specify an option argument …"): the first says it.
    const [said = ''] = (err as Error).message.split(/\n|\. To specify /);
    process.stderr.write(`${PROG}: ${said.replace(/\.$/, '')} (see ${PROG} --help)\n`);
    return 2;
  }
}

async function run(argv: string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
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
  const upstream = upstreamOf(positionals);
  const port = usage(() => parsePort(values.port ?? env.PORT, 4010, values.port !== undefined ? '--port' : 'PORT'));
  // An empty host would be Prism's every interface: refused as an option, the default as an empty HOST.
  if (values.host === '') throw new UsageError('--host needs an interface, as 127.0.0.1');
  const host = values.host || env.HOST || '127.0.0.1';
  // Prism answers a busy port with its whole option list (options this command does not have): said here instead.
  const busy = port === 0 ? undefined : await portTaken(host, port);
  if (busy) {
    process.stderr.write(`${PROG}: ${host}:${port} is not free (${busy}): pick another with --port N or PORT=N (0 = any free port)\n`);
    return 1;
  }
  const { args, env: prismEnv } = prismInvocation({ port, host, errors: Boolean(values.errors), upstream });
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
