// The release's packaging half, as `npm run release` runs it (and test/registry against a real registry):
// pack every published package with pnpm (publishConfig and `workspace:` ranges applied), check each tarball
// (what it must and must not hold), install them all from the tarballs in a fresh folder outside the
// workspace (the smoke install: every package imports, every command answers --version), measure each
// package's install size with its dependencies, then publish the tarballs that passed, dependencies first.
// Nothing is published unless every package packed, checked and smoke-installed.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packPackage, type PackedPackage } from './pack.ts';
import { packageDir, PUBLISHED } from './packages.ts';
import { runTool, StepError } from './steps.ts';
import { specChangelogSection } from './release-checks.ts';

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  engines?: { node?: string };
}

export interface ReleaseTarball extends PackedPackage {
  dir: (typeof PUBLISHED)[number];
  manifest: Manifest;
}

/** Install size targets (issue 23: measured before, keep them there or lower), bytes with dependencies. */
export const SIZE_TARGETS: Record<string, number> = {
  '@payments/client': 552_000, // with @payments/types and openapi-fetch
  '@payments/spec': 3_400_000,
  '@payments/sandbox': 6_100_000,
  '@payments/contract-kit': 8_500_000,
};

const REQUIRED = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts'];
/** Never in a tarball: sources, tests, fixtures, benches, maps, build state, secrets. */
const FORBIDDEN = /(^|\/)(src|test|tests|__tests__|fixtures|bench)\/|\.test\.|\.spec\.|\.map$|\.tsbuildinfo$|(^|\/)\.env|\.(pem|key|p12)$|\.ts$(?<!\.d\.ts)/;
/** What a package needs beyond REQUIRED to work at all. */
const NEEDS: Partial<Record<ReleaseTarball['dir'], string[]>> = {
  spec: ['dist/openapi.json', 'dist/openapi.yaml', 'dist/admin-openapi.json', 'dist/cli-support.js'],
  sandbox: ['dist/docs/index.html.br', 'dist/docs/favicon.ico', 'dist/command.js'],
  mock: ['dist/openapi.json', 'dist/validator-hook.js'],
};

const tarText = (tarball: string, file: string) => runTool(`read ${file}`, 'tar', ['-xzOf', tarball, `package/${file}`], { quiet: true });

/** What is wrong with a packed tarball (empty when nothing is). */
export async function tarballProblems(pkg: ReleaseTarball): Promise<string[]> {
  const problems: string[] = [];
  const text = await tarText(pkg.tarball, 'package.json');
  if (text.includes('workspace:')) problems.push('package.json still has a workspace: range');
  if (pkg.manifest.private) problems.push('package.json says "private": true');
  if (!pkg.manifest.engines?.node) problems.push('package.json has no engines.node');
  const wanted = [...REQUIRED, ...(NEEDS[pkg.dir] ?? []), ...Object.values(pkg.manifest.bin ?? {}).map((f) => f.replace(/^\.\//, ''))];
  for (const file of wanted) if (!pkg.files.includes(file)) problems.push(`missing ${file}`);
  for (const file of pkg.files) if (FORBIDDEN.test(file)) problems.push(`ships ${file}`);
  if (pkg.dir === 'spec') {
    const info = (JSON.parse(await tarText(pkg.tarball, 'dist/openapi.json')) as { info: { version: string } }).info;
    if (info.version !== pkg.manifest.version) problems.push(`version ${pkg.manifest.version} is not the document's info.version ${info.version}`);
  }
  return problems;
}

/** Packs every published package into `outDir` and checks each tarball; throws before returning a bad one. */
export async function packAll(outDir: string): Promise<ReleaseTarball[]> {
  const packed: ReleaseTarball[] = [];
  for (const dir of PUBLISHED) {
    const pkg = await packPackage(packageDir(dir), outDir);
    const manifest = JSON.parse(await tarText(pkg.tarball, 'package.json')) as Manifest;
    packed.push({ ...pkg, dir, manifest });
  }
  const problems = (await Promise.all(packed.map(async (p) => (await tarballProblems(p)).map((why) => `${p.manifest.name}: ${why}`)))).flat();
  if (problems.length > 0) throw new StepError('check tarballs', problems.join('\n'));
  return packed;
}

/** Sum of the file sizes under a folder (what `npm install` puts on disk, as packagephobia counts it). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Where node_modules resolution finds `name` from a package folder: its own node_modules, then upwards. */
function resolvePackageDir(from: string, name: string, top: string): string {
  for (let dir = from; dir.startsWith(top); dir = join(dir, '..')) {
    const candidate = join(dir, 'node_modules', name);
    try {
      statSync(join(candidate, 'package.json'));
      return candidate;
    } catch {
      if (dir === top) break;
    }
  }
  throw new Error(`${name} is not installed (needed by ${from})`);
}

/** A package's install size: its folder and every folder its dependencies resolve to, each counted once. */
export function installSize(top: string, name: string): number {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    for (const dep of Object.keys(manifest.dependencies ?? {})) visit(resolvePackageDir(dir, dep, top));
  };
  visit(join(top, 'node_modules', name));
  return [...seen].reduce((sum, dir) => sum + folderBytes(dir) - nestedModulesBytes(dir), 0);
}

/** Bytes of a package folder's own node_modules (counted as the dependencies they are, not as the package). */
function nestedModulesBytes(dir: string): number {
  try {
    return folderBytes(join(dir, 'node_modules'));
  } catch {
    return 0;
  }
}

export interface SmokeResult {
  /** name → install size in bytes, with dependencies. */
  sizes: Map<string, number>;
  /** name → the size target it exceeds. */
  overTarget: string[];
}

/**
 * Installs every tarball with plain npm into a fresh folder outside the workspace (third-party dependencies
 * from npm's configured registry), imports each package and runs each command's --version. Throws StepError
 * with npm's or the command's output on any failure.
 */
export async function smokeInstall(packed: ReleaseTarball[]): Promise<SmokeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-smoke-'));
  try {
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'smoke', private: true, type: 'module' })}\n`);
    await runTool('npm install (the tarballs)', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packed.map((p) => p.tarball)], { quiet: true, cwd: dir });
    for (const { manifest } of packed) {
      await runTool(`import ${manifest.name}`, process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(manifest.name)})`], { quiet: true, cwd: dir });
      for (const command of Object.keys(manifest.bin ?? {})) {
        const out = (await runTool(`${command} --version`, join(dir, 'node_modules', '.bin', command), ['--version'], { quiet: true, cwd: dir })).trim();
        if (out !== manifest.version) throw new StepError(`${command} --version`, `printed "${out}", expected ${manifest.version}`);
      }
    }
    const sizes = new Map(packed.map(({ manifest }) => [manifest.name, installSize(dir, manifest.name)]));
    const overTarget = [...sizes].filter(([name, bytes]) => bytes > (SIZE_TARGETS[name] ?? Infinity)).map(([name]) => name);
    return { sizes, overTarget };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * npm's options for `registry`: the default registry and the @payments scope's. npm gives a scope's registry of
 * the user's .npmrc (`@payments:registry=…`, as a company hosting the scope has) precedence over --registry for
 * scoped packages: with --registry alone, a release said "publish to" one registry and published to another
 * (release QA).
 */
export const registryArgs = (registry: string | undefined) => (registry ? ['--registry', registry, `--@payments:registry=${registry}`] : []);

/** Fails fast, before anything is built or versioned, when the registry does not answer. */
export async function pingRegistry(registry: string | undefined): Promise<void> {
  // Without --registry, the one npm publishes @payments to: the scope's when the .npmrc names one.
  const target = registry ?? ((await runTool('npm config get @payments:registry', 'npm', ['config', 'get', '@payments:registry'], { quiet: true })).trim().replace(/^undefined$/, '') || undefined);
  try {
    // No retries: a registry that does not answer at once is reported at once (npm's retries took 73 s).
    await runTool(`npm ping ${target ?? ''}`.trim(), 'npm', ['ping', '--fetch-retries=0', ...registryArgs(target)], { quiet: true });
  } catch (err) {
    const first = err instanceof StepError ? (err.output.split('\n').find((l) => /error/i.test(l)) ?? '').trim() : String(err);
    throw new StepError('registry', `${target ?? "npm's configured registry"} does not answer (npm ping: ${first || 'failed'}): nothing was built, versioned or published`);
  }
}

/** The dependencies of `name@version` as the registry has it, or undefined when that version is not there. */
async function publishedDependencies(name: string, version: string, registry: string | undefined): Promise<Record<string, string> | undefined> {
  try {
    const out = await runTool(`npm view ${name}@${version}`, 'npm', ['view', `${name}@${version}`, 'version', 'dependencies', '--json', ...registryArgs(registry)], { quiet: true });
    if (!out.trim()) return undefined;
    const view = JSON.parse(out) as { version?: string; dependencies?: Record<string, string> } | string;
    return typeof view === 'string' ? {} : (view.dependencies ?? {});
  } catch (err) {
    if (err instanceof StepError && /E404|404 Not Found|is not in this registry/.test(err.output)) return undefined;
    throw err;
  }
}

/** `a` and `b` name the same dependencies at the same ranges. */
const sameDependencies = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([name, range]) => b[name] === range);

/**
 * Publishes the checked tarballs in dependency order; skips versions already there, unless the registry's
 * copy depends on other versions than this one (a sandbox published against an older @payments/spec would go
 * on serving it: release QA), which fails before anything is published. Returns what it did.
 */
export async function publishAll(packed: ReleaseTarball[], registry: string | undefined): Promise<string[]> {
  const there = new Map<string, Record<string, string> | undefined>();
  for (const { manifest } of packed) there.set(manifest.name, await publishedDependencies(manifest.name, manifest.version, registry));
  const drifted = packed.filter(({ manifest }) => {
    const published = there.get(manifest.name);
    return published !== undefined && !sameDependencies(published, manifest.dependencies ?? {});
  });
  if (drifted.length) {
    const lines = drifted.map(({ manifest }) => {
      const published = there.get(manifest.name)!;
      const differing = Object.keys({ ...published, ...manifest.dependencies }).filter((d) => published[d] !== manifest.dependencies?.[d]);
      return `${manifest.name}@${manifest.version} is on the registry with ${differing.map((d) => `${d} ${published[d] ?? '(none)'}`).join(', ')}; this build has ${differing.map((d) => `${d} ${manifest.dependencies?.[d] ?? '(none)'}`).join(', ')}`;
    });
    throw new StepError('publish', `${lines.join('\n')}\nNothing was published: release ${drifted.length > 1 ? 'them' : 'it'} at a new version (a changeset), then publish.`);
  }
  const done: string[] = [];
  for (const { manifest, tarball } of packed) {
    const id = `${manifest.name}@${manifest.version}`;
    if (there.get(manifest.name) !== undefined) {
      done.push(`${id}: already published, skipped`);
      continue;
    }
    await runTool(`npm publish ${id}`, 'npm', ['publish', tarball, '--access', 'restricted', ...registryArgs(registry)], { quiet: true });
    done.push(`${id}: published`);
  }
  return done;
}

/**
 * `@payments/spec`'s version is the document's info.version (the contract's own version). A new version gets
 * its CHANGELOG section from `changes`, the gate's list (no changeset names the package); `changes` undefined
 * (a dry run) leaves the CHANGELOG as it is. Returns the manifest's text before, for a dry run to put back.
 */
export function tieSpecVersion(changes?: Parameters<typeof specChangelogSection>[2]): { from: string; to: string; manifest: string } {
  // `changes`: the docs changelog's line of each contract change (release.ts task), breaking ones marked.
  const file = join(packageDir('spec'), 'package.json');
  const manifest = readFileSync(file, 'utf8');
  const pkg = JSON.parse(manifest) as Manifest;
  const doc = JSON.parse(readFileSync(join(packageDir('spec'), 'dist', 'openapi.json'), 'utf8')) as { info: { version: string } };
  const from = pkg.version;
  if (from !== doc.info.version) {
    writeFileSync(file, `${JSON.stringify({ ...pkg, version: doc.info.version }, null, 2)}\n`);
    if (changes) {
      const changelog = join(packageDir('spec'), 'CHANGELOG.md');
      const text = readFileSync(changelog, 'utf8');
      const at = text.search(/^## /m);
      const section = specChangelogSection(doc.info.version, from, changes);
      writeFileSync(changelog, at === -1 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at)}${section}\n${text.slice(at)}`);
    }
  }
  return { from, to: doc.info.version, manifest };
}
