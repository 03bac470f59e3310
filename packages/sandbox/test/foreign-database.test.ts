// The sandbox wants a database of its own. A QA pass met two ways it wrote into someone else's:
// - a PostgreSQL database with golang-migrate's schema_migrations (version bigint, dirty boolean): its version
//   was read as ours, every migration skipped, and `payments-sandbox` logged an error and hung, never exiting;
// - `--db FILE` with DATABASE_URL in the environment: the flag was ignored and the tables went into that database.
// Now a database holding tables the sandbox did not create is refused (exit 1, nothing written), a failed start
// ends the process, and a flag wins over the environment.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { main } from '../src/command.ts';

const BIN = new URL('../bin/payments-sandbox.js', import.meta.url).pathname;
const folder = mkdtempSync(join(tmpdir(), 'sandbox-foreign-'));
let cluster: ThrowawayPostgres;

beforeAll(async () => {
  cluster = await startThrowawayPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/**
 * main() with stderr and stdout captured. A sandbox that starts (its banner out) runs `whileRunning`, then
 * SIGTERM stops it (exit 0): a start that should have been refused ends too, and fails on its exit code.
 */
async function run(argv: string[], env: Record<string, string> = {}, whileRunning?: (banner: string) => void | Promise<void>) {
  const said: string[] = [];
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => (said.push(String(text)), true));
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((text) => (said.push(String(text)), true));
  try {
    let ended = false;
    const exit = main(argv, env).finally(() => (ended = true));
    for (let i = 0; i < 400 && !ended && !said.join('').includes('Sandbox API:'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!ended) {
      await whileRunning?.(said.join(''));
      process.emit('SIGTERM', 'SIGTERM');
    }
    return { code: await exit, said: said.join('') };
  } finally {
    stderr.mockRestore();
    stdout.mockRestore();
  }
}

async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

async function golangMigrateDatabase(name: string): Promise<string> {
  const url = await cluster.createDatabase(name);
  const client = new pg.Client(url);
  await client.connect();
  await client.query('CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)');
  await client.query('INSERT INTO schema_migrations VALUES (20240101120000, false)');
  await client.query('CREATE TABLE users (id bigint PRIMARY KEY, email text)');
  await client.end();
  return url;
}

describe('a database holding tables the sandbox did not create', () => {
  it("PostgreSQL with golang-migrate's schema_migrations: refused with exit 1, nothing created", async () => {
    const url = await golangMigrateDatabase('app_golang');
    const refused = await run(['--port', '0', '--database-url', url]);
    expect(refused.code).toBe(1);
    expect(refused.said).toContain(`payments-sandbox: will not use the PostgreSQL database at 127.0.0.1:${cluster.port}: it has a schema_migrations table the sandbox did not create (columns dirty, version): give the sandbox a database of its own`);
    expect(await tablesOf(url)).toEqual(['schema_migrations', 'users']);
  });

  it('the installed command ends (exit 1) instead of hanging', async () => {
    const url = await golangMigrateDatabase('app_golang_bin');
    const child = spawn(process.execPath, [BIN, '--port', '0', '--database-url', url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000); // a hang fails the test, and is ended
    try {
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      expect({ code, signal, stderr }).toMatchObject({ code: 1, signal: null, stderr: expect.stringContaining('it has a schema_migrations table the sandbox did not create') });
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  });

  it("another application's SQLite file: refused with exit 1, the file left as it was", async () => {
    const file = join(folder, 'app.db');
    const app = new DatabaseSync(file);
    app.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT); CREATE TABLE orders (id INTEGER PRIMARY KEY)');
    app.close();
    const refused = await run(['--port', '0', '--db', file]);
    expect(refused.code).toBe(1);
    expect(refused.said).toContain(`payments-sandbox: will not use the database file ${file}: it already has tables the sandbox did not create (orders, users): give the sandbox a database of its own`);
    const after = new DatabaseSync(file, { readOnly: true });
    expect(after.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY 1").all().map((r) => r.name)).toEqual(['orders', 'users']);
    after.close();
  });

  it("an extension's own tables and views are no program's data: a database with them is used (PostGIS's spatial_ref_sys)", async () => {
    const url = await cluster.createDatabase('with_extensions');
    const client = new pg.Client(url);
    await client.connect();
    // hstore stands in for PostGIS (not installed here): a table made a member of the extension, as spatial_ref_sys is.
    await client.query('CREATE EXTENSION hstore; CREATE TABLE spatial_ref_sys (srid integer PRIMARY KEY); ALTER EXTENSION hstore ADD TABLE spatial_ref_sys');
    await client.query('CREATE VIEW app_report AS SELECT 1 AS one');
    await client.end();
    const served = await run(['--port', '0', '--database-url', url], {}, () => undefined);
    expect(served.code, served.said).toBe(0);
    expect(await tablesOf(url)).toEqual(expect.arrayContaining(['organizations', 'schema_migrations', 'spatial_ref_sys', 'transfers']));
  });

  it("the sandbox's own database is used again, on both engines", async () => {
    const url = await cluster.createDatabase('sandbox_again');
    const file = join(folder, 'again.db');
    for (const argv of [['--database-url', url], ['--db', file]]) {
      for (const round of [1, 2]) {
        const served = await run(['--port', '0', ...argv], {}, () => undefined);
        expect(served.code, `${argv[0]}, start ${round}: ${served.said}`).toBe(0);
      }
    }
  });
});

describe('choosing the store', () => {
  it('--db FILE wins over a DATABASE_URL in the environment, whose database is left untouched', async () => {
    const url = await cluster.createDatabase('app_elsewhere');
    const file = join(folder, 'flag-wins.db');
    const served = await run(['--port', '0', '--db', file], { DATABASE_URL: url }, (banner) => {
      expect(banner).toContain('(store: sqlite)');
    });
    expect(served.code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(await tablesOf(url)).toEqual([]);
  });

  it('two choices at one level are a usage error (exit 2)', async () => {
    const both = await run(['--port', '0', '--db', join(folder, 'x.db'), '--database-url', 'postgres://127.0.0.1:1/x']);
    expect(both).toMatchObject({ code: 2, said: expect.stringContaining('give one of --database-url (PostgreSQL) and --db (a node:sqlite file), not both') });
    const bothEnv = await run(['--port', '0'], { DATABASE_URL: 'postgres://127.0.0.1:1/x', SANDBOX_DB: join(folder, 'y.db') });
    expect(bothEnv).toMatchObject({ code: 2, said: expect.stringContaining('DATABASE_URL and SANDBOX_DB are both set') });
    expect(existsSync(join(folder, 'x.db')) || existsSync(join(folder, 'y.db'))).toBe(false);
  });
});
