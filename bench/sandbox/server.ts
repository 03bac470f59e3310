// A server under test, in its own process (run.ts forks it; argv[2] is a ServerConfig as JSON):
//   sandbox — startSandbox() exactly as `npm start` uses it (node:sqlite on a file, or PostgreSQL), minus the
//             docs' static files; request logging off unless `log` names a file (npm start logs to stderr);
//   bare    — a bare node:http server answering GET /v1/banking/balance with a fixed JSON body (the floor:
//             what node:http alone costs per request), 404 otherwise.
// It says `{ type: 'ready', port, ... }` once it listens, answers `memory` requests (process.memoryUsage(),
// the side channel for the heap; run.ts reads RSS from /proc itself) and `profile-start`/`profile-stop`
// (V8's CPU profiler through node:inspector, the same profiler as `node --cpu-prof`, but over exactly the
// window the harness asks for: no start-up, no warm-up), and exits 0 on SIGTERM after closing the server
// and the store, or when its parent goes away.
import { createWriteStream, writeFileSync } from 'node:fs';
import type { Session } from 'node:inspector/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { answer } from '../lib/service.ts';
import { createPostgresStore } from '../../packages/sandbox/src/store/postgres.ts';
import { BALANCE_PATH, bareBalanceBody } from './ops.ts';

export type ServerConfig =
  | { kind: 'sandbox'; file?: string; databaseUrl?: string; poolSize?: number; adminToken: string; log?: string; module?: string }
  | { kind: 'bare' };

export interface ServerReady {
  type: 'ready';
  port: number;
  store?: string;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
let close: () => Promise<void>;
let port: number;
let store: string | undefined;

if (config.kind === 'sandbox') {
  // `module` lets a scratch copy of the sandbox (a candidate fix) run under the same harness.
  const mod = (await import(config.module ? pathToFileURL(config.module).href : '../../packages/sandbox/src/sandbox.ts')) as typeof import('../../packages/sandbox/src/sandbox.ts');
  const { jsonLogger } = (await import(config.module ? pathToFileURL(config.module.replace(/sandbox\.ts$/, 'http.ts')).href : '../../packages/sandbox/src/http.ts')) as typeof import('../../packages/sandbox/src/http.ts');
  const logStream = config.log ? createWriteStream(config.log, { flags: 'a' }) : undefined;
  const sandbox = await mod.startSandbox({
    port: 0,
    host: '127.0.0.1',
    ...(config.databaseUrl && config.poolSize
      ? { store: createPostgresStore({ url: config.databaseUrl, poolSize: config.poolSize }) }
      : config.databaseUrl
        ? { databaseUrl: config.databaseUrl }
        : config.file
          ? { file: config.file }
          : {}),
    adminToken: config.adminToken,
    ...(logStream ? { logger: jsonLogger((text) => logStream.write(text)) } : {}),
  });
  port = sandbox.port;
  store = sandbox.store.kind;
  close = async () => {
    await sandbox.close();
    if (logStream) await new Promise<void>((resolve) => logStream.end(resolve));
  };
} else {
  const body = Buffer.from(bareBalanceBody);
  const server = createServer((req, res) => {
    req.resume();
    if (req.method === 'GET' && req.url === BALANCE_PATH) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
    } else {
      res.writeHead(404, { 'content-type': 'application/json', 'content-length': 2 }).end('{}');
    }
  });
  server.keepAliveTimeout = 5_000; // as the sandbox's
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  port = (server.address() as AddressInfo).port;
  close = async () => {
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

answer('memory', () => ({ memory: process.memoryUsage() }));

let session: Session | undefined;
answer('profile-start', async (message) => {
  // Loaded only when asked, so it adds nothing to the idle RSS of a server that is not profiled.
  const { Session } = await import('node:inspector/promises');
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(message.intervalUs ?? 500) });
  await session.post('Profiler.start');
  return {};
});
answer('profile-stop', async (message) => {
  if (!session) throw new Error('no profile is running');
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  session = undefined;
  writeFileSync(String(message.file), JSON.stringify(profile));
  return { file: message.file };
});

let stopping = false;
const stop = (code: number) => {
  if (stopping) return;
  stopping = true;
  const forced = setTimeout(() => process.exit(code), 5_000);
  forced.unref();
  close().then(
    () => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`bench server: close failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
process.on('disconnect', () => stop(0));
process.send?.({ type: 'ready', port, ...(store ? { store } : {}) } satisfies ServerReady);
