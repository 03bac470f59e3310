// The port `npm start` and `payments-sandbox` listen on: the default one, which nobody chose, falls back to a
// free port when busy; a port someone asked for is held to, so a CI job waiting on it never reaches another
// server there (a QA pass met exactly that: the job's curl got the other sandbox, then a 401).
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/command.ts';
import { banner, PortInUse, serveSandbox } from '../src/serve.ts';
import { bundledJson, bundledYaml, docsDir } from '../../../tools/lib/paths.ts';

const site = { docsDir, specJson: bundledJson, specYaml: bundledYaml };
let holder: Server;
let busy: number;

beforeAll(async () => {
  holder = createServer().listen(0, '127.0.0.1');
  await once(holder, 'listening');
  busy = (holder.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

describe('a busy port', () => {
  it('is refused with PortInUse when it was asked for', async () => {
    const refused = await serveSandbox({ port: busy, site }).then(
      (served) => served.close().then(() => 'served'),
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(PortInUse);
    expect((refused as PortInUse).port).toBe(busy);
  });

  it('falls back to a free port when the caller allows it (the default port)', async () => {
    const served = await serveSandbox({ port: busy, fallBack: true, site });
    try {
      expect(served.portFellBack).toBe(true);
      expect(served.sandbox.port).not.toBe(busy);
      expect((await fetch(`${served.sandbox.url}/openapi.json`)).status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('payments-sandbox on the busy default port: once it serves, its own stderr lines are JSON like the request log (the fallback: warn; the stop: info)', async () => {
    // 8080 held here for the length of the test, unless another process holds it already (the fallback either way).
    const default8080 = createServer();
    await new Promise<void>((resolve) => default8080.once('error', () => resolve()).listen(8080, '127.0.0.1', resolve));
    const said: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => (said.push(String(text)), true));
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      let ended = false;
      const exit = main(['--db', ':memory:'], {}).finally(() => (ended = true));
      for (let i = 0; i < 400 && !ended && stdout.mock.calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!ended) process.emit('SIGTERM', 'SIGTERM');
      expect(await exit).toBe(0);
      const lines = said.join('').trimEnd().split('\n');
      const parsed = lines.map((line) => JSON.parse(line) as { time: string; level: string; message: string });
      expect(parsed.map(({ level, message }) => ({ level, message }))).toEqual([
        { level: 'warn', message: expect.stringMatching(/^port 8080 is busy: using \d+ instead$/) },
        { level: 'info', message: 'stopped on SIGTERM' },
      ]);
      expect(parsed.every((line) => !Number.isNaN(Date.parse(line.time)))).toBe(true);
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
      await new Promise<void>((resolve) => (default8080.listening ? default8080.close(() => resolve()) : resolve()));
    }
  });

  it('payments-sandbox --port N stops with exit 1 and says why', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const listening = process.listenerCount('SIGTERM');
      expect(await main(['--port', String(busy)], {})).toBe(1);
      expect(process.listenerCount('SIGTERM'), 'a failed start leaves no signal handler behind').toBe(listening);
      expect(stderr.mock.calls.map(([text]) => String(text)).join('')).toContain(`payments-sandbox: port ${busy} on 127.0.0.1 is in use`);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('--database-url', () => {
  const run = async (argv: readonly string[], env: Record<string, string> = {}) => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await main([...argv], env);
      return { code, said: stderr.mock.calls.map(([text]) => String(text)).join('') };
    } finally {
      stderr.mockRestore();
    }
  };

  it('that is not a PostgreSQL URL is a usage error (exit 2), without echoing the URL', async () => {
    const other = await run(['--port', '0', '--database-url', 'mysql://user:secret@127.0.0.1/db']);
    expect(other.code).toBe(2);
    expect(other.said).toContain('--database-url must be a PostgreSQL URL (postgres://user:password@host:port/database), not mysql://');
    expect(other.said).not.toContain('secret');
    expect((await run(['--port', '0', '--database-url', 'notaurl'])).said).toContain('--database-url is not a URL');
  });

  it('an interface it cannot listen on stops with exit 1, naming --host (QA: only "getaddrinfo ENOTFOUND")', async () => {
    for (const [host, cause] of [['no-such-host.invalid', '(ENOTFOUND|EAI_AGAIN)'], ['192.0.2.1', 'EADDRNOTAVAIL']] as const) {
      const refused = await run(['--port', '0', '--host', host]);
      expect(refused.code).toBe(1);
      expect(refused.said).toMatch(new RegExp(`payments-sandbox: cannot listen on ${host.replace(/\./g, '\\.')} port 0 \\(--host, --port\\): .*${cause}`));
    }
  });

  it.each([
    [['--port', '0', '--admin-token', ''], {}, '--admin-token must be visible ASCII characters without spaces (it goes in an Authorization header), got an empty value'],
    [['--port', '0', '--admin-token', 'adm two words'], {}, '--admin-token must be visible ASCII characters without spaces (it goes in an Authorization header), got "adm two words"'],
    [['--port', '0'], { SANDBOX_ADMIN_TOKEN: 'adm\nline' }, 'SANDBOX_ADMIN_TOKEN must be visible ASCII characters without spaces (it goes in an Authorization header), got "adm\\nline"'],
    [['--port', 'abc'], {}, '--port must be a port number (0–65535), got "abc"'],
    [['--port', '70000'], {}, '--port must be a port number (0–65535), got "70000"'],
    [[], { PORT: 'abc' }, 'PORT must be a port number (0–65535), got "abc"'],
  ] as const)('%j %j is a usage error (exit 2; QA: an empty admin token made a new one, a bad port was exit 1)', async (argv, env, said) => {
    const refused = await run(argv, env);
    expect(refused.code).toBe(2);
    expect(refused.said).toContain(`payments-sandbox: ${said}\nRun payments-sandbox --help for usage.`);
  });

  it('a journal cap that is not a whole number of 1 or more is a usage error (exit 2), not the default silently (QA)', async () => {
    for (const cap of ['0', 'abc', '-5', '1.5']) {
      const refused = await run(['--port', '0', `--journal-cap=${cap}`]);
      expect(refused.code).toBe(2);
      expect(refused.said).toContain(`--journal-cap must be a whole number of entries, 1 or more, got "${cap}"`);
    }
  });

  it('a database file that cannot be used stops with exit 1, naming the file (QA)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sandbox-db-'));
    try {
      const notDatabase = join(folder, 'notes.txt');
      writeFileSync(notDatabase, 'not a database, only text that is long enough to fill a header of one hundred bytes or so.\n');
      const refused = await run(['--port', '0', '--db', notDatabase]);
      expect(refused.code).toBe(1);
      expect(refused.said).toContain(`payments-sandbox: cannot use the database file ${notDatabase}: file is not a database`);
      const underAFile = join(notDatabase, 'inside', 'sandbox.db');
      const noFolder = await run(['--port', '0', '--db', underAFile]);
      expect(noFolder.code).toBe(1);
      expect(noFolder.said).toContain(`payments-sandbox: cannot create the folder of the database file ${underAFile}: ENOTDIR`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('whose server cannot be reached stops with exit 1, naming the server', async () => {
    const closed = createServer().listen(0, '127.0.0.1'); // a port nothing listens on once closed: refused at once
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await run(['--port', '0', '--database-url', `postgres://sandbox@127.0.0.1:${port}/none`]);
    expect(refused.code).toBe(1);
    expect(refused.said).toContain(`payments-sandbox: cannot reach the PostgreSQL server at 127.0.0.1:${port} (`);
    const noHost = await run(['--port', '0', '--database-url', 'postgres://sandbox@no-such-host.invalid:5432/none']);
    expect(noHost.code, noHost.said).toBe(1);
    expect(noHost.said).toMatch(/payments-sandbox: cannot reach the PostgreSQL server at no-such-host\.invalid:5432 \(getaddrinfo (ENOTFOUND|EAI_AGAIN)/); // EAI_AGAIN: no resolver
    const noSocket = await run(['--port', '0', '--database-url', 'postgres:///none?host=/nonexistent-socket-folder&user=sandbox']);
    expect(noSocket.code).toBe(1);
    expect(noSocket.said).toContain('payments-sandbox: cannot reach the PostgreSQL server at the Unix socket in /nonexistent-socket-folder (');
  });
});

describe('the start-up banner', () => {
  it('shows the admin command with the token in SANDBOX_ADMIN_TOKEN, not on the command line (out of ps)', () => {
    const served = { sandbox: { url: 'http://127.0.0.1:8080', adminToken: 'adm_banner', store: { kind: 'sqlite' } }, demoKey: 'svc_live_demo', portFellBack: false } as unknown as Parameters<typeof banner>[0];
    const text = banner(served, 'npx payments-sandbox admin');
    expect(text).toContain('  SANDBOX_ADMIN_TOKEN=adm_banner npx payments-sandbox admin --url http://127.0.0.1:8080 fault list');
    expect(text).not.toContain('--token');
  });
});
