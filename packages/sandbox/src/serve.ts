// The sandbox as a person or a CI job starts it (`npm start`, `payments-sandbox`): the docs and the spec served
// next to the API, a demo organization with every product on and a fresh API key, the default port falling
// back to a free one when busy. startSandbox() is the bare server the tests use.
import { createStore } from './store/index.ts';
import { demoOrganization } from './demo-organization.ts';
import type { Logger } from './http.ts';
import { generateApiKey } from './keys.ts';
import { startSandbox, type RunningSandbox } from './sandbox.ts';
import { siteFiles, type SiteFiles } from './site.ts';

export interface ServeOptions {
  /** 0 = any free port. */
  port: number;
  /**
   * When `port` is busy, take a free one instead (the default port, which nobody chose). A port someone asked
   * for is held to: a CI job that waits on it must not reach another server there (PortInUse instead).
   */
  fallBack?: boolean;
  host?: string;
  /** PostgreSQL when set; otherwise node:sqlite on `file`, or in memory. */
  databaseUrl?: string;
  file?: string;
  adminToken?: string;
  journalCap?: number;
  site: SiteFiles;
  logger?: Logger;
}

export interface ServedSandbox {
  sandbox: RunningSandbox;
  /** The demo organization's new API key (keys are shown once). */
  demoKey: string;
  /** The wanted port was busy and the sandbox took a free one. */
  portFellBack: boolean;
  close(): Promise<void>;
}

const isAddressInUse = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

/** The port asked for is taken, and the sandbox was not to fall back. */
export class PortInUse extends Error {
  readonly port: number;
  constructor(port: number, cause: unknown) {
    super(`port ${port} is in use`, { cause });
    this.port = port;
  }
}

export async function serveSandbox(options: ServeOptions): Promise<ServedSandbox> {
  const store = createStore({ databaseUrl: options.databaseUrl, file: options.file });
  const apiKey = generateApiKey(); // made first, so the sandbox can serve it to the docs console
  const start = (port: number) =>
    startSandbox({
      port,
      store,
      ...(options.host ? { host: options.host } : {}),
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
      ...(options.journalCap ? { journalCap: options.journalCap } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      // The docs console prefills the demo key from /docs/console.json (never from the built HTML).
      staticFiles: siteFiles(options.site, { demoApiKey: apiKey.key }),
    });
  let sandbox: RunningSandbox | undefined;
  let portFellBack = false;
  let demoKey: string;
  try {
    // Binding is the only honest test of a busy port (a check before it races with other processes).
    sandbox = await start(options.port).catch(async (err: unknown) => {
      if (options.port === 0 || !isAddressInUse(err)) throw err;
      if (!options.fallBack) throw new PortInUse(options.port, err);
      portFellBack = true;
      return start(0);
    });
    demoKey = await demoOrganization(sandbox, apiKey);
  } catch (err) {
    // A start that failed leaves nothing running (a listening server or an open pool kept the process alive).
    await sandbox?.close();
    await store.close();
    throw err;
  }
  return {
    sandbox,
    demoKey,
    portFellBack,
    async close() {
      await sandbox.close();
      await store.close();
    },
  };
}

/** The first-run banner: where everything is, the demo key, the admin token, two commands to try. */
export function banner({ sandbox, demoKey }: ServedSandbox, adminCli: string): string {
  return [
    '',
    `  Sandbox API:  ${sandbox.url}   (store: ${sandbox.store.kind})`,
    `  Docs:         ${sandbox.url}/docs/`,
    `  Spec:         ${sandbox.url}/openapi.yaml`,
    `  Demo API key: ${demoKey}`,
    `  Admin token:  ${sandbox.adminToken}`,
    '',
    `  curl -s -H 'x-api-key: ${demoKey}' ${sandbox.url}/v1/banking/balance`,
    `  SANDBOX_ADMIN_TOKEN=${sandbox.adminToken} ${adminCli} --url ${sandbox.url} fault list`, // the token out of `ps`, as its --help advises
    '',
    '  Ctrl-C to stop.',
    '',
  ].join('\n');
}
