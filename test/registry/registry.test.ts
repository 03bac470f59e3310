// Issue 23's proof, as a consumer team meets the packages: a real npm registry (Verdaccio, tools/registry, on
// 127.0.0.1 with its own storage) → the release flow (`release --publish-only --registry URL`: pack, check,
// smoke-install, publish every package) → a fresh consumer folder OUTSIDE the workspace (a temp dir) per Node
// line (22, 24, 26; binaries from the npm registry, pinned in tools/registry) that installs them with plain npm
// and then, on that line:
//   - compiles a strict TypeScript consumer (skipLibCheck false) against every package and runs it;
//   - pays a transfer (and replays it) against `npx payments-sandbox`, embedded and with --database-url on a
//     throwaway PostgreSQL, and `npx payments-contract-kit --base-url … --admin-token …` passes against the
//     embedded one (against the PostgreSQL one on Node 24 only: the same code on another store, ~5 s saved
//     per line);
//   - `npx payments-contract-kit client --test-clock -- node client.mjs` gives 0 findings for the careful
//     client and findings for the careless one, and 0 for the Python client the kit ships (dist/examples/pay.py);
//   - `npx payments-mock` answers 201 to a transfer of 0.07 sent as a JSON number (Node >= 24.18), and
//     `npx payments-mock proxy <url>` flags a server's answer that breaks the contract; it says it needs Node
//     24.18 on Node 22;
// on Node 20 (the machine's own node) every command refuses with its message and a non-zero exit; and the
// GitHub Actions job of the guide "Test your integration" runs, step by step as the guide writes it, on Node 24.
// The capability × Node table, the release's output and the guide's steps go to .reports/registry/.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root } from '../../tools/lib/paths.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../tools/lib/postgres.ts';
import { freePort } from '../../tools/lib/prism.ts';
import { nodeBinDir, NODE_LINES, startLocalRegistry, type LocalRegistry, type NodeLine } from '../../tools/lib/registry.ts';
import { run, start, type Outcome } from './support.ts';
import { infoVersion } from '../../tools/lib/release-checks.ts';

const PACKAGES = ['spec', 'types', 'client', 'sandbox', 'contract-kit', 'mock'] as const;
const ADMIN_TOKEN = 'adm_registry_test_token_0123456789';
const reports = join(root, '.reports', 'registry');
const work = mkdtempSync(join(tmpdir(), 'payments-registry-')); // outside the workspace: no link, no parent node_modules
const guide = readFileSync(join(root, 'openapi', 'guides', 'test-your-integration.md'), 'utf8');

let registry: LocalRegistry | undefined;
let pg: ThrowawayPostgres | undefined;
const installs = new Map<NodeLine, Outcome>();
// The versions the release publishes: each package's own, but @payments/spec's, which is the document's info.version
// (the release packs it so, also with --publish-only; tools/lib/release.ts, tieSpecVersion).
const versions = Object.fromEntries(
  PACKAGES.map((dir) => [`@payments/${dir}`, dir === 'spec' ? infoVersion() : (JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { version: string }).version]),
);

// ---- the capability × Node table -------------------------------------------------------------------------

type Column = NodeLine | '20';
const COLUMNS: Column[] = ['20', ...NODE_LINES];
const table = new Map<string, Map<Column, string>>();
function mark(capability: string, column: Column, cell: string): void {
  if (!table.has(capability)) table.set(capability, new Map());
  table.get(capability)!.set(column, cell);
}
/** Runs an assertion block and marks its cell ✓ (with seconds) or ✗, rethrowing the failure. */
async function recorded(capability: string, column: Column, body: () => Promise<string | void>): Promise<void> {
  const started = performance.now();
  try {
    const note = await body();
    mark(capability, column, `✓ ${((performance.now() - started) / 1000).toFixed(1)} s${note ? ` (${note})` : ''}`);
  } catch (err) {
    mark(capability, column, '✗');
    throw err;
  }
}
function renderTable(): string {
  const head = `| capability | ${COLUMNS.map((c) => `Node ${c}`).join(' | ')} |`;
  const rows = [...table].map(([capability, cells]) => `| ${capability} | ${COLUMNS.map((c) => cells.get(c) ?? '—').join(' | ')} |`);
  return [head, `|---|${COLUMNS.map(() => '---').join('|')}|`, ...rows].join('\n');
}

// ---- environments ----------------------------------------------------------------------------------------

/**
 * The folder of the machine's own end-of-life Node 20 on PATH. Found by asking each `node` on PATH its
 * version, not by dropping known folders: a shell that put another checkout's toolchain (Node 24) first
 * once made this column run on Node 24 and pass nothing it claims.
 */
function endOfLifeNodeDir(): string {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && existsSync(join(dir, 'node')));
  const found = dirs.find((dir) => /^v20\./.test(spawnSync(join(dir, 'node'), ['--version'], { encoding: 'utf8' }).stdout ?? ''));
  if (!found) throw new Error(`no Node 20 on PATH (the machine's own node); looked in: ${dirs.join(', ') || '(no folder with a node)'}`);
  return found;
}

/** The environment of a consumer's shell on a Node line: that node first on PATH (npm and npx run on it). */
function lineEnv(column: Column, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_|^NODE_OPTIONS$|^VITEST|^PAYMENTS_|^SANDBOX_/i.test(k)));
  const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.includes(`${join(root, '.tools')}`));
  return {
    ...inherited,
    PATH: [column === '20' ? endOfLifeNodeDir() : nodeBinDir(column), ...path].join(delimiter),
    NPM_CONFIG_USERCONFIG: registry?.npmrc,
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    NO_COLOR: '1',
    ...extra,
  };
}

const consumerDir = (line: NodeLine) => join(work, `node${line}`);
const opts = (line: Column, timeoutMs: number, extra: Record<string, string> = {}) => ({ cwd: consumerDir(line === '20' ? '24' : line), env: lineEnv(line, extra), timeoutMs });
const describeOutcome = (o: Outcome) => `exit ${o.code}\n--- stdout\n${o.stdout.slice(-6000)}\n--- stderr\n${o.stderr.slice(-6000)}`;

/** The consumer repository: the template of test/registry/consumer, the published versions, the kit's example client. */
function writeConsumer(line: NodeLine): void {
  const dir = consumerDir(line);
  cpSync(join(root, 'test', 'registry', 'consumer'), dir, { recursive: true });
  // The careful/careless client of the kit's own tests, compiled here by the consumer's strict tsc.
  cpSync(join(root, 'packages', 'contract-kit', 'test', 'fixtures', 'scenario-client.ts'), join(dir, 'src', 'client.mts'));
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  pkg.dependencies = versions; // exact versions, as the release published them
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

beforeAll(async () => {
  mkdirSync(reports, { recursive: true });
  registry = await startLocalRegistry();
  // The release flow, as `npm run release -- --publish-only --registry URL` runs it (the build is npm test's).
  const release = await run(process.execPath, [join(root, 'tools', 'tasks', 'release.ts'), '--publish-only', '--registry', registry.url], {
    cwd: root,
    env: { ...process.env, NPM_CONFIG_USERCONFIG: registry.npmrc, VITEST: '' },
    timeoutMs: 8 * 60_000,
  });
  writeFileSync(join(reports, 'release.txt'), `$ node tools/tasks/release.ts --publish-only --registry ${registry.url}\n${release.stderr}\n${release.stdout}`);
  if (release.code !== 0) throw new Error(`the release failed: ${describeOutcome(release)}`);
  // One install per Node line, shared by every check on that line; the three at once (mostly network).
  await Promise.all(
    NODE_LINES.map(async (line) => {
      writeConsumer(line);
      installs.set(line, await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], opts(line, 6 * 60_000)));
    }),
  );
  pg = await startThrowawayPostgres();
}, 20 * 60_000);

afterAll(async () => {
  const text = `Capability × Node version (registry test, ${new Date().toISOString()}; ✓ with its time, ✗ failed, — not run)\n\n${renderTable()}\n`;
  mkdirSync(reports, { recursive: true });
  writeFileSync(join(reports, 'table.md'), text);
  console.log(text);
  await pg?.stop();
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

// ---- per Node line ---------------------------------------------------------------------------------------

/** Starts `npx payments-sandbox` with the given flags; resolves with its URL, demo key and a stop(). */
async function sandbox(line: NodeLine, flags: string[]) {
  const running = await start('npx', ['payments-sandbox', '--port', '0', '--admin-token', ADMIN_TOKEN, ...flags], /Sandbox API:\s+(http:\/\/127\.0\.0\.1:\d+)[^\n]*\n[\s\S]*Demo API key: (svc_live_[A-Za-z0-9]+)/, opts(line, 60_000), 'bin/payments-sandbox');
  return { url: running.match[1]!, key: running.match[2]!, running };
}

/** The consumer's own test (pay.mjs): a recipient, a transfer (201), its replay under the same key. */
async function pays(line: NodeLine, url: string, key: string): Promise<string> {
  const paid = await run('node', ['pay.mjs'], opts(line, 60_000, { PAYMENTS_BASE_URL: url, PAYMENTS_API_KEY: key }));
  expect(paid.code, describeOutcome(paid)).toBe(0);
  const result = JSON.parse(paid.stdout.trim().split('\n').pop()!) as { status: number; replayedSame: boolean };
  expect(result).toMatchObject({ status: 201, replayedSame: true });
  return 'paid 201, replayed';
}

async function kitPasses(line: NodeLine, url: string, key: string): Promise<string> {
  const kit = await run('npx', ['payments-contract-kit', '--base-url', url, '--api-key', key, '--admin-token', ADMIN_TOKEN], opts(line, 180_000));
  expect(kit.code, describeOutcome(kit)).toBe(0);
  const verdict = /PASSED: (\d+) checks/.exec(kit.stdout);
  expect(verdict, kit.stdout.slice(-2000)).not.toBeNull();
  return `${verdict![1]} checks`;
}

/** SIGTERM to the sandbox's process: it closes and says so, exits 0, and npx exits 0 with it. */
async function stopsGracefully(running: Awaited<ReturnType<typeof sandbox>>['running']): Promise<void> {
  const code = await running.stop();
  expect(running.output()).toContain('stopped on SIGTERM');
  expect(code, running.output()).toBe(0);
}

describe.each(NODE_LINES)('Node %s, a consumer folder outside the workspace', (line) => {
  it('installs every package from the registry with plain npm', async () => {
    await recorded('install (npm, from Verdaccio)', line, async () => {
      const install = installs.get(line)!;
      expect(install.code, describeOutcome(install)).toBe(0);
      const node = await run('node', ['--version'], opts(line, 10_000));
      expect(node.stdout.trim()).toMatch(new RegExp(`^v${line}\\.`));
      for (const [name, version] of Object.entries(versions)) {
        const pkg = JSON.parse(readFileSync(join(consumerDir(line), 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
        expect(pkg.version, name).toBe(version);
      }
      return `${(install.ms / 1000).toFixed(0)} s install`;
    });
  }, 60_000);

  it('compiles a strict TypeScript consumer against every package (skipLibCheck false) and runs it', async () => {
    await recorded('compile (tsc --strict, skipLibCheck false) + import every package', line, async () => {
      const tsc = await run('npm', ['run', 'build'], opts(line, 180_000));
      expect(tsc.code, describeOutcome(tsc)).toBe(0);
      const used = await run('node', ['every-package.mjs'], opts(line, 60_000));
      expect(used.code, describeOutcome(used)).toBe(0);
      const result = JSON.parse(used.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
      expect(result).toMatchObject({ mockOpenapi: '3.1.0', status: 'pending' });
      expect(result.codes).toBeGreaterThan(10);
      expect(result.checks).toBeGreaterThan(10);
      expect(result.sandboxAnswered).toBeGreaterThan(0);
      expect(result.testValueCodes).toContain('pix_payout_rejected');
    });
  }, 240_000);

  it('npx payments-sandbox (embedded): pays a transfer, the kit passes against it, SIGTERM stops it cleanly', async () => {
    const { url, key, running } = await sandbox(line, []);
    try {
      await recorded('sandbox embedded: pay a transfer', line, () => pays(line, url, key));
      await recorded('kit --base-url --admin-token (embedded)', line, () => kitPasses(line, url, key));
      // Started as npm start starts it: with the V8 flags of node-flags.json (process.execve in the bin).
      const { flags } = JSON.parse(readFileSync(join(consumerDir(line), 'node_modules', '@payments', 'sandbox', 'node-flags.json'), 'utf8')) as { flags: string[] };
      expect(running.commandLines(), running.output()).toEqual([expect.arrayContaining(flags)]);
      const docs = await fetch(`${url}/docs/`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('<html');
    } finally {
      await stopsGracefully(running);
    }
  }, 300_000);

  it('npx payments-sandbox --database-url (PostgreSQL): pays a transfer', async () => {
    const databaseUrl = await pg!.createDatabase(`consumer_${line}`);
    const { url, key, running } = await sandbox(line, ['--database-url', databaseUrl]);
    try {
      expect(running.output()).toContain('(store: postgres)');
      await recorded('sandbox --database-url PostgreSQL: pay a transfer', line, () => pays(line, url, key));
      if (line === '24') await recorded('kit --base-url --admin-token (PostgreSQL)', line, () => kitPasses(line, url, key));
    } finally {
      await stopsGracefully(running);
    }
  }, 300_000);

  it('npx payments-contract-kit client --test-clock: 0 findings for a careful client, findings for a careless one', async () => {
    await recorded('client mode: careful 0 findings, careless found', line, async () => {
      const careful = await run('npx', ['payments-contract-kit', 'client', '--test-clock', '--', 'node', 'client.mjs'], opts(line, 180_000));
      expect(careful.code, describeOutcome(careful)).toBe(0);
      expect(careful.stdout).toMatch(/ 0 finding\(s\)/);
      const careless = await run('npx', ['payments-contract-kit', 'client', '--test-clock', '--', 'node', 'client.mjs', 'careless'], opts(line, 180_000));
      expect(careless.code, describeOutcome(careless)).toBe(1);
      const found = Number(/(\d+) finding\(s\)/.exec(careless.stdout)?.[1]);
      expect(found).toBeGreaterThan(0);
      // The Python client the kit ships (dist/examples/pay.py), as its README tells an npm user to run it.
      const python = await run('npx', ['payments-contract-kit', 'client', '--test-clock', '--', 'python3', 'node_modules/@payments/contract-kit/dist/examples/pay.py'], opts(line, 180_000));
      expect(python.code, describeOutcome(python)).toBe(0);
      expect(python.stdout).toMatch(/ 0 finding\(s\)/);
      return `careless: ${found} findings; the shipped Python client: 0`;
    });
  }, 400_000);

  it(line === '22' ? 'npx payments-mock says it needs Node 24.18 (Prism 5.16)' : 'npx payments-mock answers 201 to a transfer of 0.07 sent as a JSON number', async () => {
    await recorded('mock (Prism): 201 for amount 0.07 as a number', line, async () => {
      if (line === '22') {
        const refused = await run('npx', ['payments-mock'], opts(line, 60_000));
        expect(refused.code, describeOutcome(refused)).toBe(1);
        expect(refused.stderr).toContain('needs Node >= 24.18');
        return 'refuses: needs >= 24.18';
      }
      const port = await freePort();
      const mock = await start('npx', ['payments-mock', '--port', String(port)], /Prism is listening on/, opts(line, 120_000), 'bin/payments-mock');
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/banking/transfers`, {
          method: 'POST',
          headers: { 'x-api-key': 'svc_live_registrytestkey0000000000', 'idempotency-key': 'order-registry-0001', 'content-type': 'application/json' },
          body: '{"recipientId":"rcp_01JD7Q2W5E3R4T6Y8U9I0O1P2A","amount":0.07}',
        });
        expect(res.status, `${res.headers.get('sl-violations')}`).toBe(201);
      } finally {
        expect(await mock.stop(), mock.output()).toBe(0);
      }
      // The validating proxy, in front of a server whose balance breaks the contract (`balances` a string).
      const server = createServer((_req, reply) => reply.writeHead(200, { 'content-type': 'application/json' }).end('{"balances":"1.00"}'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const proxyPort = await freePort();
      const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const proxy = await start('npx', ['payments-mock', 'proxy', upstream, '--port', String(proxyPort)], /Prism is listening on/, opts(line, 120_000), 'bin/payments-mock');
      try {
        const res = await fetch(`http://127.0.0.1:${proxyPort}/v1/banking/balance`, { headers: { 'x-api-key': 'svc_live_registrytestkey0000000000' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('sl-violations')).toContain('response');
      } finally {
        expect(await proxy.stop(), proxy.output()).toBe(0);
        await new Promise((resolve) => server.close(resolve));
      }
      return 'and proxy flags a bad answer';
    });
  }, 240_000);
});

describe('Node 20 (end of life; the machine\'s own node)', () => {
  const everyLine = /Node 20\.\d+\.\d+ is not supported; it needs Node 22 \(22\.13 or later\), 24 or 26/;
  it.each([
    ['payments-sandbox', ['payments-sandbox'], everyLine],
    ['payments-sandbox admin', ['payments-sandbox', 'admin', 'health'], everyLine],
    ['payments-contract-kit', ['payments-contract-kit', '--base-url', 'http://127.0.0.1:9', '--api-key', 'svc_live_x'], everyLine],
    ['payments-contract-kit client', ['payments-contract-kit', 'client', '--', 'node', 'client.mjs'], everyLine],
    // The mock names its own, narrower range (QA: it quoted 22.13, then refused 22 as well).
    ['payments-mock', ['payments-mock'], /Node 20\.\d+\.\d+ is not supported; it needs Node >= 24\.18, Prism 5\.16's requirement \(engines: "\^24\.18 \|\| >=26"\)/],
  ])('%s refuses with a message naming the Node lines it supports, exit code non-zero', async (name, args, says) => {
    await recorded(`refuses on an unsupported Node: ${name}`, '20', async () => {
      const refused = await run('npx', args, opts('20', 60_000));
      expect(refused.code, describeOutcome(refused)).not.toBe(0);
      expect(refused.code).not.toBeNull();
      expect(refused.stderr).toMatch(says);
    });
  }, 90_000);
});

// ---- the guide's CI job, as written ----------------------------------------------------------------------

interface Step {
  name?: string;
  run?: string;
  if?: string;
}

/** The GitHub Actions job of the guide: the YAML block under "### A GitHub Actions job". */
function guideJob(): { env: Record<string, string>; steps: Step[] } {
  const section = guide.slice(guide.indexOf('### A GitHub Actions job'));
  const yamlText = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!yamlText) throw new Error('the guide has no ```yaml block under "### A GitHub Actions job"');
  const workflow = parse(yamlText) as { jobs: Record<string, { env: Record<string, string>; steps: Step[] }> };
  const job = Object.values(workflow.jobs)[0]!;
  return { env: job.env, steps: job.steps };
}

describe('the GitHub Actions job of the guide "Test your integration", step by step on Node 24', () => {
  it('runs every `run` step as written (port 8080 replaced by a free one) and passes', async () => {
    const { env, steps } = guideJob();
    const port = String(await freePort());
    const jobEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replaceAll('8080', port)]));
    const githubEnv = join(consumerDir('24'), '.github-env');
    writeFileSync(githubEnv, '');
    const transcript: string[] = [`# the guide's job on Node 24 in ${consumerDir('24')}; env: ${JSON.stringify(jobEnv)}`];
    const groups: Array<number | undefined> = [];
    try {
      for (const step of steps.filter((s) => s.run)) {
        const added = Object.fromEntries(
          readFileSync(githubEnv, 'utf8')
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
        const outcome = await run('bash', ['-e', '-o', 'pipefail', '-c', step.run!], opts('24', 300_000, { ...jobEnv, ...added, GITHUB_ENV: githubEnv, CI: 'true' }));
        groups.push(outcome.pid); // a background job (the sandbox) stays in this group until the end
        transcript.push(`\n## ${step.name ?? step.run}\n$ ${step.run!.trim().replaceAll('\n', '\n$ ')}\n→ exit ${outcome.code} in ${(outcome.ms / 1000).toFixed(1)} s\n${outcome.stdout.trim().split('\n').slice(-4).join('\n')}`);
        expect(outcome.code, `step "${step.name}": ${describeOutcome(outcome)}`).toBe(0);
      }
      mark('the guide\'s GitHub Actions job, every run step', '24', '✓');
    } finally {
      for (const pid of groups) if (pid !== undefined) try { process.kill(-pid, 'SIGTERM'); } catch { /* ended */ }
      writeFileSync(join(reports, 'guide-job.txt'), `${transcript.join('\n')}\n`);
    }
  }, 900_000);
});
