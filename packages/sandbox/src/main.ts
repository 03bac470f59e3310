// The sandbox as a command: `node tools/launch.mjs packages/sandbox/src/main.ts` (npm start runs it in-process instead).
// Configuration by environment: PORT (8080), HOST (127.0.0.1), DATABASE_URL (PostgreSQL; else node:sqlite),
// SANDBOX_DB (the sqlite file, default .sandbox-data/sandbox.db; `:memory:` for none), SANDBOX_ADMIN_TOKEN
// (generated and printed when not set), SANDBOX_JOURNAL_CAP (traffic journal entries kept per organization,
// default 10,000). Logs one JSON line per request on stdout, API keys never included.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { jsonLogger } from './http.ts';
import { startSandbox } from './sandbox.ts';

// Configured by environment only: an argument is a mistake (`--help` included), and starting anyway would hide it.
const args = process.argv.slice(2);
if (args.length) {
  const help = args.every((a) => a === '--help' || a === '-h');
  (help ? process.stdout : process.stderr).write(
    `${help ? '' : `unexpected argument ${JSON.stringify(args.find((a) => a !== '--help' && a !== '-h') ?? args[0])}: `}` +
      'usage: [PORT=8080] [HOST=127.0.0.1] [DATABASE_URL=postgres://…] [SANDBOX_DB=.sandbox-data/sandbox.db | :memory:] [SANDBOX_ADMIN_TOKEN=…] [SANDBOX_JOURNAL_CAP=10000] node tools/launch.mjs packages/sandbox/src/main.ts\n' +
      'The sandbox alone, configured by environment (no arguments): PostgreSQL when DATABASE_URL is set, else node:sqlite on SANDBOX_DB.\n' +
      'The installed command takes options instead: npx payments-sandbox --help.\n',
  );
  process.exit(help ? 0 : 2);
}

const file = process.env.SANDBOX_DB ?? '.sandbox-data/sandbox.db';
if (!process.env.DATABASE_URL && file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
const sandbox = await startSandbox({
  port: Number(process.env.PORT ?? 8080),
  host: process.env.HOST ?? '127.0.0.1',
  ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : file === ':memory:' ? {} : { file }),
  ...(process.env.SANDBOX_ADMIN_TOKEN ? { adminToken: process.env.SANDBOX_ADMIN_TOKEN } : {}),
  ...(process.env.SANDBOX_JOURNAL_CAP ? { journalCap: Number(process.env.SANDBOX_JOURNAL_CAP) } : {}),
  logger: jsonLogger(),
});
process.stderr.write(
  `sandbox listening on ${sandbox.url} (store: ${sandbox.store.kind})\n` +
    (process.env.SANDBOX_ADMIN_TOKEN ? '' : `admin token: ${sandbox.adminToken}\n`),
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    sandbox.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
}
