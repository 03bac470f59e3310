// Prism (@stoplight/prism-cli) on loopback, as a child process we own: `prism mock` serves the bundled
// document's examples statelessly; `prism proxy … --errors` forwards to a real server and answers 500 when
// its traffic breaks the contract. Started with the Node that runs us (Prism needs Node >= 24.18, the
// .bin shim would pick whatever `node` is on PATH), in its own process group, stopped by PID.
//
// Two corrections, both tested by test/mock/prism.test.ts: Prism serves dist/prism/openapi.json (the bundle
// plus a generic first example for its own validation failures, prism-document.ts), and its validator gets
// our exact multipleOf (packages/mock/src/validator-hook.ts, loaded with --import; the same hook payments-mock loads), so it accepts every valid amount.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { constants as osConstants } from 'node:os';
import type { AddressInfo } from 'node:net';
import { deref, isObject, operations, type OpenApiDocument } from '@payments/spec';
import { acceptsConnections } from './net.ts';
import { root } from './paths.ts';
import { prismDocumentPath } from './prism-document.ts';
import { PRISM_MOCK_FLAGS } from '../../packages/mock/src/index.ts';

const PRISM_CLI = join(root, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
const VALIDATOR_HOOK = join(root, 'packages', 'mock', 'src', 'validator-hook.ts');
const HOST = '127.0.0.1';
const OUTPUT_LIMIT = 64 * 1024;

export interface PrismOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** `--errors`: request/response violations produce error responses. Default: false for mock, true for proxy. */
  errors?: boolean;
  /** Mock only: Prism's own CORS headers, as plain `prism mock` adds them (default false, as payments-mock). */
  cors?: boolean;
  /** `'mock'` (default) or `{ proxy: upstreamUrl }`. */
  mode?: 'mock' | { proxy: string };
  /** The document Prism serves; by default dist/prism/openapi.json, derived from the bundle by the build. */
  spec?: string;
  /** How long to wait for Prism to answer before giving up (default 30 s). */
  readyTimeoutMs?: number;
  /** Receives Prism's own output (request log, violations) as it comes; it is captured either way. */
  onOutput?: (text: string) => void;
}

export interface PrismServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:4010`. */
  url: string;
  port: number;
  pid: number;
  /** Settles when Prism exits, for whatever reason, with its exit code or the signal that ended it. */
  exited: Promise<ExitStatus>;
  /** Everything Prism printed so far (the last 64 KiB). */
  output(): string;
  /** Stops Prism (SIGTERM, then SIGKILL after 5 s) and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const describeExit = ({ code, signal }: ExitStatus) => (signal ? `killed by ${signal}` : `exit code ${code}`);

export class PrismStartError extends Error {
  readonly output: string;
  readonly addressInUse: boolean;
  constructor(message: string, output: string) {
    super(`${message}\n--- Prism output ---\n${output.trim() || '(none)'}`);
    this.output = output;
    this.addressInUse = /EADDRINUSE|address already in use/i.test(output);
  }
}

/** A port that was free on 127.0.0.1 a moment ago (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export { parsePort } from '@payments/spec/cli-support';

export async function startPrism(opts: PrismOptions = {}): Promise<PrismServer> {
  if (!existsSync(PRISM_CLI)) throw new Error(`Prism is not installed (${PRISM_CLI} is missing): run pnpm install`);
  const spec = opts.spec ?? prismDocumentPath;
  if (!existsSync(spec)) throw new Error(`No document for Prism at ${spec}: run \`npm run build\` first.`);
  // A port we picked can be taken between our check and Prism's bind: pick again, a bounded number of times.
  const attempts = opts.port ? 1 : 3;
  for (let attempt = 1; ; attempt++) {
    const port = opts.port || (await freePort());
    try {
      return await launch(spec, port, opts);
    } catch (err) {
      if (!(err instanceof PrismStartError && err.addressInUse) || attempt >= attempts) throw err;
    }
  }
}

async function launch(spec: string, port: number, opts: PrismOptions): Promise<PrismServer> {
  const mode = opts.mode ?? 'mock';
  const errors = opts.errors ?? mode !== 'mock';
  const args =
    mode === 'mock'
      ? ['--import', VALIDATOR_HOOK, PRISM_CLI, 'mock', spec, '-h', HOST, '-p', String(port), ...(opts.cors ? [] : PRISM_MOCK_FLAGS)]
      : ['--import', VALIDATOR_HOOK, PRISM_CLI, 'proxy', spec, mode.proxy, '-h', HOST, '-p', String(port)];
  if (errors) args.push('--errors');

  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C reaches us, and we stop Prism in order.
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) {
    const reason = await new Promise<string>((resolve) => child.once('error', (err) => resolve(err.message)));
    throw new PrismStartError(`could not start Prism: ${reason}`, '');
  }

  let output = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-OUTPUT_LIMIT);
    opts.onOutput?.(text);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  child.on('error', (err) => onData(Buffer.from(`[prism.ts] ${err.message}\n`)));

  let running = true;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      process.off('exit', killOnExit);
      resolve({ code, signal });
    });
  });
  // If this process goes away without stopping Prism (a crash, process.exit), take Prism with it.
  const killOnExit = () => signal(pid, 'SIGKILL');
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (!running) return;
      signal(pid, 'SIGTERM');
      if (await settlesWithin(exited, 5_000)) return;
      signal(pid, 'SIGKILL');
      if (!(await settlesWithin(exited, 5_000))) throw new Error(`Prism (pid ${pid}) did not exit after SIGKILL`);
    })());

  const url = `http://${HOST}:${port}`;
  try {
    await waitUntilReady(url, () => output, exited, opts.readyTimeoutMs ?? 30_000);
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return { url, port, pid, exited, output: () => output, stop };
}

/**
 * Ready when Prism has said it listens and its port accepts a connection (a bare TCP connect: an HTTP probe
 * would show up in Prism's request log as an error); fails fast when Prism exits first.
 */
async function waitUntilReady(url: string, output: () => string, exited: Promise<ExitStatus>, timeoutMs: number): Promise<void> {
  let exit: ExitStatus | undefined;
  void exited.then((status) => (exit = status));
  const { hostname, port } = new URL(url);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exit) throw new PrismStartError(`Prism exited (${describeExit(exit)}) before it was ready`, output());
    if (/Prism is listening on/.test(output()) && (await acceptsConnections(hostname, Number(port)))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new PrismStartError(`Prism did not answer on ${url} within ${timeoutMs} ms`, output());
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig); // the group we created: Prism and anything it forked
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return done;
}

// ---- for the long-running tasks (mock, start) ---------------------------------------------------------

export type StopReason = { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'died'; name: string; how: string };

/**
 * Call first thing in a long-running task. A SIGINT/SIGTERM/SIGHUP that arrives while the task is still
 * starting exits at once (128 + signal number; the `exit` hook of startPrism kills a Prism that is already
 * up). Once the task calls `until(children)`, the first signal resolves it (reason `signal`), as does one
 * of the children exiting on its own (reason `died`); signals after that are ignored so the shutdown can
 * finish in order (a terminal's Ctrl-C reaches npm, the launcher and the task, and each forwards it).
 */
export function stopSignals(): { until(children: { name: string; exited: Promise<ExitStatus | void> }[]): Promise<StopReason> } {
  let settle: ((reason: StopReason) => void) | undefined;
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      if (!settle) process.exit(128 + (osConstants.signals[sig] ?? 15));
      stopping = true;
      settle({ kind: 'signal', signal: sig });
    });
  }
  return {
    until(children) {
      return new Promise((resolve) => {
        settle = resolve;
        for (const { name, exited } of children) {
          void exited.then((status) => {
            if (stopping) return;
            stopping = true;
            resolve({ kind: 'died', name, how: status ? describeExit(status) : 'closed' });
          });
        }
      });
    },
  };
}

/** The header name of the document's API-key security scheme (`x-api-key`), read from the spec. */
export function apiKeyHeader(doc: OpenApiDocument): string {
  const schemes = isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  for (const scheme of Object.values(schemes)) {
    if (isObject(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') return scheme.name;
  }
  throw new Error('the document has no apiKey security scheme in a header');
}

/** Copy-paste examples for a mock at `url`: a plain read, and the same read with a chosen error response. */
export function exampleCurls(doc: OpenApiDocument, url: string, key = 'svc_live_placeholder'): string[] {
  const auth = `-H '${apiKeyHeader(doc)}: ${key}'`;
  const read = operations(doc).find(({ method, path }) => method === 'get' && !path.includes('{'));
  if (!read) return [];
  const lines = ['Try:', `  curl -s ${auth} ${url}${read.path}`];
  const responses = isObject(read.operation.responses) ? read.operation.responses : {};
  for (const [status, raw] of Object.entries(responses)) {
    const response = deref(doc, raw);
    const media = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
    const name = isObject(media) && isObject(media.examples) ? Object.keys(media.examples)[0] : undefined;
    if (!/^4\d\d$/.test(status) || !name) continue;
    lines.push(`  curl -s ${auth} -H 'Prefer: code=${status}, example=${name}' ${url}${read.path}`);
    break;
  }
  return lines;
}
