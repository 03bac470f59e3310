// Packing a workspace package the way it is released: `pnpm pack` (which applies `files`, always adds
// package.json/README/LICENSE, and rewrites `workspace:` dependency ranges to real versions) into a
// directory, then the tarball's file list as `tar` reads it. Used by the release task and the publish tests.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { root } from './paths.ts';
import { runTool, StepError } from './steps.ts';

export interface PackedPackage {
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Paths inside the package, without tar's `package/` prefix, sorted. Files only. */
  files: string[];
  /** Tarball size in bytes. */
  size: number;
}

/** A tool's stdout; its whole output in the StepError when it fails. */
const run = (cmd: string, args: string[], cwd: string) => runTool(`${cmd} ${args.join(' ')}`, cmd, args, { quiet: true, cwd });

/** Lists a tarball's files (directories left out), without the leading `package/`. */
export async function tarballFiles(tarball: string): Promise<string[]> {
  const out = await run('tar', ['-tzf', tarball], root);
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''))
    .sort();
}

/**
 * `pnpm pack --pack-destination outDir` in `dir` (relative to the repository root or absolute). Returns the
 * tarball pnpm wrote and its file list. Needs a prior build: it packs dist/ as it is.
 */
export async function packPackage(dir: string, outDir: string): Promise<PackedPackage> {
  const pkgDir = isAbsolute(dir) ? dir : join(root, dir);
  const dest = resolve(outDir);
  mkdirSync(dest, { recursive: true });
  const before = new Set(readdirSync(dest));
  const stdout = await run('pnpm', ['pack', '--pack-destination', dest], pkgDir);
  // pnpm prints the file list, then the tarball path as the last line; trust it but fall back to what appeared.
  const last = stdout.trim().split('\n').pop()?.trim() ?? '';
  let tarball = last.endsWith('.tgz') ? resolve(pkgDir, last) : '';
  if (!tarball) {
    const created = readdirSync(dest).filter((f) => f.endsWith('.tgz') && !before.has(f));
    if (created.length !== 1) throw new StepError(`pnpm pack ${dir}`, `could not tell which tarball pnpm wrote:\n${stdout}`);
    tarball = join(dest, created[0]!);
  }
  return { tarball, files: await tarballFiles(tarball), size: statSync(tarball).size };
}
