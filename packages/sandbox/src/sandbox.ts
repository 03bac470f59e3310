// Assembling a sandbox: store + public API + admin surface on one loopback server. Used by main.ts (the
// command), by `npm start`, by the tests and by the benchmarks.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminSpecPath, loadSpec, type OpenApiDocument } from '@payments/spec';
import { createAdmin } from './admin/routes.ts';
import { createSandbox } from './pipeline/pipeline.ts';
import { loadContract } from './contract.ts';
import { answerClientError, refusedWithoutHost, type Logger } from './http.ts';
import { logProblem } from './problems.ts';
import { trackConnections } from './server-close.ts';
import { createStaticFiles, type StaticFile } from './static-files.ts';
import { createStore } from './store/index.ts';
import type { Store } from './store/types.ts';

export { adminSpecPath } from '@payments/spec';

export interface StartOptions {
  port?: number;
  host?: string;
  /** PostgreSQL when set; otherwise node:sqlite. */
  databaseUrl?: string;
  /** node:sqlite file; omitted = in memory. */
  file?: string;
  adminToken?: string;
  logger?: Logger;
  bodyLimit?: number;
  store?: Store;
  /** Traffic journal entries kept per organization (default 10,000; SANDBOX_JOURNAL_CAP for main.ts). */
  journalCap?: number;
  /** Serves these files too (compressed, with ETags; see static-files.ts): the docs and the spec, e.g. by npm start. */
  staticFiles?: Record<string, StaticFile>;
  /**
   * The real time of the public API (default: the system clock): when requests of an organization without
   * a frozen test clock happen, and so their rate-limit windows. Tests put a quarter hour where they need it.
   */
  now?: () => Date;
}

export interface RunningSandbox {
  url: string;
  port: number;
  adminToken: string;
  store: Store;
  close(): Promise<void>;
}

export async function startSandbox(options: StartOptions = {}): Promise<RunningSandbox> {
  const store = options.store ?? (await createStore({ ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}), ...(options.file ? { file: options.file } : {}) }));
  await store.migrate();
  const adminToken = options.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
  const adminSpec = JSON.parse(readFileSync(adminSpecPath, 'utf8')) as OpenApiDocument;
  const contract = loadContract(loadSpec());
  const { handle, drain } = createSandbox({
    store,
    contract,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.journalCap ? { journalCap: options.journalCap } : {}),
    ...(options.now ? { now: options.now } : {}),
    admin: createAdmin({ store, spec: adminSpec, token: adminToken, contract, ...(options.journalCap ? { journalCap: options.journalCap } : {}) }),
  });
  const files = createStaticFiles(options.staticFiles ?? {});
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (refusedWithoutHost(req, res) || files.serve(req, res)) return;
    // handle() answers every outcome itself; a rejection here would be a bug outside its try, and an
    // unhandled rejection ends the process: cut that one connection instead.
    handle(req, res).catch((err: unknown) => {
      logProblem('a request failed outside its handler (a bug in the sandbox)', { error: err });
      res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000; // short idle sockets, so a shutdown drains fast
  const connections = trackConnections(server);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    adminToken,
    store,
    async close() {
      await connections.close();
      await drain(); // the journal's last batch and trim, before the store goes
      if (!options.store) await store.close();
    },
  };
}
