// Third-party tools the contract is measured against (Optic, Dredd, @hey-api/openapi-ts), each installed in
// its own folder under tools/interop/<name>/ (a package.json with exact versions and a package-lock.json), so
// their dependency trees never touch the workspace: Optic needs ajv 8.17.1 where the workspace has 8.20,
// Dredd brings an old tree of its own. `npm ci` runs when the lockfile changed since the last install (a
// stamp in the folder's node_modules); on a clean CI clone the first call installs from the npm registry.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './paths.ts';
import { StepError } from './steps.ts';

export const INTEROP_TOOLS = ['optic', 'dredd', 'hey-api'] as const;
export type InteropTool = (typeof INTEROP_TOOLS)[number];

export const interopDir = (tool: InteropTool) => join(root, 'tools', 'interop', tool);

const INSTALL_TIMEOUT_MS = 10 * 60_000;

function lockHash(dir: string): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(readFileSync(join(dir, file)));
  return hash.digest('hex');
}

/** Installs the tool's folder when needed; returns the folder's node_modules/.bin. */
export function ensureInteropTool(tool: InteropTool): string {
  return ensureNpmFolder(interopDir(tool), `tools/interop/${tool}`);
}

/**
 * `npm ci` in a folder holding a package.json and a package-lock.json (exact versions), when its lockfile
 * changed since the last install; returns the folder's node_modules/.bin. Also used for tools/registry.
 */
export function ensureNpmFolder(dir: string, name: string): string {
  const stamp = join(dir, 'node_modules', '.interop-installed');
  const want = lockHash(dir);
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const run = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
    if (run.status !== 0) {
      const why = run.error ? run.error.message : `${run.stderr}${run.stdout}`.trim();
      throw new StepError(`install ${name}`, `npm ci in ${name} failed (it needs the npm registry): ${why}\nRun it by hand: (cd ${name} && npm ci)`);
    }
    writeFileSync(stamp, want);
  }
  return join(dir, 'node_modules', '.bin');
}
