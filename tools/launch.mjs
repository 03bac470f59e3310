#!/usr/bin/env node
// Entry point of every root npm script. It runs on whatever Node the machine has (Node 20 + npm on a
// fresh machine), makes sure the pinned toolchain (Node 24, pnpm 10) and the workspace dependencies are
// installed, then runs the task under Node 24. Plain JavaScript and no dependencies on purpose: nothing
// is installed yet when it starts.
//
//   node tools/launch.mjs <task> [args...]      task = a file in tools/tasks/<task>.ts
//   node tools/launch.mjs <file.ts> [args...]   any TypeScript file of the repository (a package's CLI), the same way
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pinnedDir = join(root, 'tools', 'toolchain');
const localDir = join(root, '.tools');
const localBin = join(localDir, 'node_modules', '.bin');
const MIN_NODE = 24;
const MIN_PNPM = 10;

const say = (msg) => process.stderr.write(`[launch] ${msg}\n`);

function fail(msg) {
  say(`error: ${msg}`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (result.error) fail(`could not run ${cmd}: ${result.error.message}`);
  return result.status ?? 1;
}

function major(version) {
  const m = /^v?(\d+)\./.exec(version.trim());
  return m ? Number(m[1]) : 0;
}

function versionOf(cmd, env) {
  const r = spawnSync(cmd, ['--version'], { encoding: 'utf8', env });
  return r.status === 0 ? r.stdout.trim() : '';
}

function hashOf(...files) {
  const h = createHash('sha256');
  for (const f of files) h.update(existsSync(f) ? readFileSync(f) : '');
  return h.digest('hex');
}

/** The environment with the local toolchain first on PATH, installing it when the machine's is too old. */
function toolchainEnv() {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const machineOk = major(process.version) >= MIN_NODE && major(versionOf('pnpm', env)) >= MIN_PNPM;
  if (machineOk && !process.env.PAYMENTS_FORCE_LOCAL_TOOLCHAIN) return env;

  const lock = join(pinnedDir, 'package-lock.json');
  const stamp = join(localDir, '.installed');
  const want = hashOf(join(pinnedDir, 'package.json'), lock);
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    say(`Node ${process.version} and pnpm here are not Node >=${MIN_NODE} + pnpm >=${MIN_PNPM}: installing the pinned toolchain into .tools/ from the npm registry`);
    mkdirSync(localDir, { recursive: true });
    copyFileSync(join(pinnedDir, 'package.json'), join(localDir, 'package.json'));
    copyFileSync(lock, join(localDir, 'package-lock.json'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const status = run(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: localDir });
    if (status !== 0) fail('installing the toolchain failed (see npm output above)');
    writeFileSync(stamp, want);
  }
  env.PATH = `${localBin}:${env.PATH ?? ''}`;
  const node = versionOf(join(localBin, 'node'), env);
  if (major(node) < MIN_NODE) fail(`.tools/ holds Node ${node || '(none)'}; delete .tools/ and retry`);
  return env;
}

/** `pnpm install --frozen-lockfile` when the lockfile changed since the last install. */
function ensureWorkspace(env) {
  const lock = join(root, 'pnpm-lock.yaml');
  const stamp = join(root, 'node_modules', '.launch-installed');
  const want = hashOf(lock, join(root, 'package.json'), join(root, 'pnpm-workspace.yaml'));
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  say('installing workspace dependencies (pnpm install --frozen-lockfile)');
  const status = run('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only'], { env });
  if (status !== 0) fail('pnpm install failed (see output above)');
  writeFileSync(stamp, want);
}

const [task, ...given] = process.argv.slice(2);
// `node tools/launch.mjs release -- --dry-run` means what `npm run release -- --dry-run` means: npm drops
// that `--`, and so does the launcher, so a task's options reach it either way.
const args = given[0] === '--' ? given.slice(1) : given;
if (!task) fail('usage: node tools/launch.mjs <task | path/to/file.ts> [args...]');
// A .ts file runs as a task does, under Node 24: the commands npm start prints and the README's
// `node tools/launch.mjs packages/…/cli.ts` rows work from a shell whose node is the machine's Node 20.
const isFile = task.endsWith('.ts');
const taskFile = isFile ? resolve(task) : join(root, 'tools', 'tasks', `${task}.ts`);
if (!existsSync(taskFile)) fail(isFile ? `no such file: ${task}` : `unknown task "${task}" (no tools/tasks/${task}.ts)`);

const env = toolchainEnv();
ensureWorkspace(env);
// Node's compile cache for every process a task starts (they inherit it): TypeScript is stripped once and
// kept, so later runs start faster, and a process whose modules are all cached never loads the stripper
// (about 25 MB less resident memory for the sandbox). Git-ignored, like the rest of .tools/.
env.NODE_COMPILE_CACHE ??= join(localDir, 'compile-cache');
const node = env.PATH.startsWith(localBin) ? join(localBin, 'node') : process.execPath;
// The task that runs the sandbox runs it with the sandbox's own V8 flags (see the file for why).
const nodeFlags = task === 'start' ? JSON.parse(readFileSync(join(root, 'packages', 'sandbox', 'node-flags.json'), 'utf8')).flags : [];
const child = spawn(node, [...nodeFlags, taskFile, ...args], { stdio: 'inherit', cwd: root, env });
// Forward termination so `kill <pid>` of npm/launcher stops the task (Ctrl-C reaches both already).
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1)));
