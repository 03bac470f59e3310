// node tools/launch.mjs release [--dry-run]: cut a release of @payments/types and @payments/client.
//
//   1. build (lint, bundle, docs, generated code, compiled packages)
//   2. breaking-change gate: the bundle against openapi/released/openapi.json and the pending changesets
//   3. `changeset version`: apply the pending changesets (versions, CHANGELOGs), consuming them
//   4. rebuild: the packages are compiled and packed at their new versions
//   5. writeBaseline(): the released bundle becomes openapi/released/openapi.json
//   6. pack both packages into dist/release/ and list each tarball's files and size
//
// --dry-run does everything except 3 and 5: nothing in the repository changes but dist/ (built output).
// It commits nothing: review `git diff` (versions, CHANGELOGs, consumed changesets, the baseline) and commit.
//
// The rebuild in step 4 leaves the gate out on purpose: after `changeset version` the changesets that
// allowed a breaking change are consumed and the baseline is still the old one, so the gate would fail on
// exactly the change being released. It runs again after step 5, where it must find no change at all.
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { baselinePath, checkBreaking, writeBaseline } from '../lib/breaking/gate.ts';
import { compilePackages, generateCode } from '../lib/codegen.ts';
import { buildContract } from '../lib/contract.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { buildDocs } from '../lib/docs.ts';
import { recordRelease } from '../lib/docs-changelog.ts';
import { packPackage, type PackedPackage } from '../lib/pack.ts';
import { bin, root } from '../lib/paths.ts';
import { log, main, runTool, step, StepError } from '../lib/steps.ts';

const PACKAGES = ['types', 'client'] as const;
const releaseDir = join(root, 'dist', 'release');

const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean' } } });
const dryRun = Boolean(values['dry-run']);

const version = (name: string): string => (JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as { version: string }).version;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

async function build(withGate: boolean): Promise<void> {
  await buildContract();
  if (withGate) {
    const result = await step('breaking-change gate (spec vs openapi/released)', () => checkBreaking());
    log(`\n${result.report}\n`);
  }
  await buildWorkflows();
  await buildDocs();
  await generateCode({ check: Boolean(process.env.CI) });
  await compilePackages();
}

await main(async () => {
  const started = performance.now();
  const before = Object.fromEntries(PACKAGES.map((name) => [name, version(name)]));
  log(`release${dryRun ? ' (DRY RUN: no changeset version, no baseline written)' : ''}: ${PACKAGES.map((n) => `@payments/${n}@${before[n]}`).join(', ')}`);

  log('\n== 1-2. build and breaking-change gate');
  await build(true);
  const gate = checkBreaking();
  const planned = gate.bumps;
  log(`pending changesets plan: ${PACKAGES.map((n) => `@payments/${n} ${planned.get(`@payments/${n}`) ?? 'none'}`).join(', ')}`);

  if (dryRun) {
    log('\n== 3. changeset version: skipped (dry run)');
    log('== 4. rebuild: skipped (dry run: versions unchanged, the build above stands)');
    log(`== 5. write baseline: skipped (dry run; would copy packages/spec/dist/openapi.json to ${relative(root, baselinePath)})`);
  } else {
    log('\n== 3. changeset version');
    const out = await runTool('changeset version (apply pending changesets: versions, CHANGELOGs)', bin('changeset'), ['version']);
    if (out.trim()) log(out.trim());
    for (const name of PACKAGES) log(`  @payments/${name}: ${before[name]} → ${version(name)}`);
    // The docs' changelog lists this release with the contract changes the gate found (tools/lib/docs-changelog.ts).
    const released = [...planned.keys()].filter((name) => planned.get(name) !== 'none' && name.startsWith('@payments/'));
    recordRelease({ versions: Object.fromEntries(released.map((name) => [name, version(name.slice('@payments/'.length))])), date: new Date().toISOString(), changes: gate.changes });

    log('\n== 4. rebuild at the new versions');
    await build(false);

    log('\n== 5. write baseline');
    const written = await step('released spec becomes the baseline', () => writeBaseline());
    log(`  ${relative(root, written)} := packages/spec/dist/openapi.json`);
    const after = checkBreaking();
    if (after.changes.length > 0) throw new StepError('baseline check', `the new baseline still differs from the bundle:\n${after.report}`);
  }

  log(`\n== 6. pack into ${relative(root, releaseDir)}/`);
  rmSync(releaseDir, { recursive: true, force: true });
  const packed: Array<[string, PackedPackage]> = [];
  for (const name of PACKAGES) {
    packed.push([name, await step(`pnpm pack packages/${name}`, () => packPackage(join('packages', name), releaseDir))]);
  }

  // The result goes to stdout (progress went to stderr): what was packed, file by file.
  const lines: string[] = [''];
  for (const [name, pkg] of packed) {
    const manifest = JSON.parse(
      // package.json as packed (workspace: ranges rewritten), read back from the tarball.
      (await runTool(`read ${name} package.json`, 'tar', ['-xzOf', pkg.tarball, 'package/package.json'], { quiet: true })),
    ) as { dependencies?: Record<string, string> };
    const deps = Object.entries(manifest.dependencies ?? {}).map(([d, r]) => `${d}@${r}`).join(', ') || 'none';
    lines.push(`${relative(root, pkg.tarball)}  ${kb(pkg.size)}  (${pkg.files.length} files; dependencies: ${deps})`);
    for (const file of pkg.files) lines.push(`  ${file}`);
    lines.push('');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  log(
    `${dryRun ? 'dry run' : 'release'} done in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (dryRun ? '' : ': review and commit the versions, CHANGELOGs, consumed changesets and openapi/released/openapi.json'),
  );
});
