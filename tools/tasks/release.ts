// node tools/launch.mjs release [--dry-run] [--registry URL] [--publish-only]: release every published package
// (@payments/spec, types, client, sandbox, contract-kit, mock; tools/lib/packages.ts) to a registry.
//
//   0. checks before anything is built (tools/lib/release-checks.ts): no changeset names @payments/spec; when
//      info.version moves, its dependents (sandbox, contract-kit, mock) are released too; something to
//      release; the registry answers (npm ping; not in a dry run)
//   1. build (lint, bundle, docs, generated code, compiled packages)
//   2. breaking-change gate: the bundle against openapi/released/openapi.json and the pending changesets
//   3. `changeset version`: apply the pending changesets (versions, CHANGELOGs), consuming them;
//      @payments/spec's version := the document's info.version (the contract's own version), with a
//      CHANGELOG section listing the contract changes the gate found
//   4. rebuild: the packages are compiled and packed at their new versions
//   5. writeBaseline(): the released bundle becomes openapi/released/openapi.json
//   6. pack every package into dist/release/ and check each tarball (tools/lib/release.ts)
//   7. smoke install: all tarballs into a fresh folder outside the workspace with plain npm; every package
//      imports, every command answers --version; each package's install size with its dependencies
//   8. publish the tarballs, dependencies first, to --registry URL (default: npm's configured registry, the
//      npm registry unless your .npmrc says otherwise); a version already there is skipped
//
// Nothing is published unless 6 and 7 passed for every package, nor when a version already on the registry
// depends on other versions than this build's (it would stay as it is). After the gate (2), a contract that
// changed since the last release while info.version did not, or broke while its major did not, is refused:
// @payments/spec would not be published again, and the sandbox, kit and mock released with it would load the
// old one. --dry-run does 0-2, 6 and 7: nothing in the repository changes but dist/ and what the build
// regenerates, and nothing is published. --publish-only does 6-8 on the current build and versions
// (publishing what an earlier run versioned, e.g. after a registry outage; the registry test runs it).
// It commits nothing: review `git diff` (versions, CHANGELOGs, consumed changesets, the baseline) and commit.
//
// The rebuild in step 4 leaves the gate out on purpose: after `changeset version` the changesets that
// allowed a breaking change are consumed and the baseline is still the old one, so the gate would fail on
// exactly the change being released. It runs again after step 5, where it must find no change at all.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { baselinePath, changesetDir, checkBreaking, writeBaseline } from '../lib/breaking/gate.ts';
import { readChangesets } from '../lib/breaking/changesets.ts';
import { infoVersion, releaseProblems, releaseState, unversionedContractChange } from '../lib/release-checks.ts';
import { compilePackages, generateCode } from '../lib/codegen.ts';
import { buildContract } from '../lib/contract.ts';
import { buildWorkflows } from '../lib/workflows.ts';
import { buildDocs } from '../lib/docs.ts';
import { changeLine, recordedChanges, recordRelease } from '../lib/docs-changelog.ts';
import type { JsonObject } from '../lib/breaking/json.ts';
import { PUBLISHED } from '../lib/packages.ts';
import { bin, bundledJson, root } from '../lib/paths.ts';
import { packAll, pingRegistry, publishAll, SIZE_TARGETS, smokeInstall, tieSpecVersion, type ReleaseTarball } from '../lib/release.ts';
import { log, main, runTool, step, StepError } from '../lib/steps.ts';

const releaseDir = join(root, 'dist', 'release');

let values: { 'dry-run'?: boolean; 'publish-only'?: boolean; registry?: string } = {};
await main(async () => {
  values = parseArgs({ options: { 'dry-run': { type: 'boolean' }, 'publish-only': { type: 'boolean' }, registry: { type: 'string' } } }).values;
});
const dryRun = Boolean(values['dry-run']);
const publishOnly = Boolean(values['publish-only']);
const registry = values.registry;

const version = (dir: string): string => (JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { version: string }).version;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const mb = (bytes: number) => (bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(2)} MB` : kb(bytes));

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

/** Steps 1-5: build, gate, versions, rebuild, baseline (the dry run stops after the build and the gate). */
async function versionPackages(): Promise<void> {
  const before = Object.fromEntries(PUBLISHED.map((dir) => [dir, version(dir)]));
  log('\n== 1-2. build and breaking-change gate');
  await build(true);
  const gate = checkBreaking();
  const unversioned = unversionedContractChange(gate.changes.length, gate.breaking.length, version('spec'), infoVersion());
  if (unversioned) throw new StepError('release checks', unversioned);
  const planned = gate.bumps;
  log(`pending changesets plan: ${PUBLISHED.map((d) => `@payments/${d} ${planned.get(`@payments/${d}`) ?? 'none'}`).join(', ')}`);
  if (dryRun) {
    log('\n== 3. changeset version: skipped (dry run)');
    log('== 4. rebuild: skipped (dry run: versions unchanged, the build above stands)');
    log(`== 5. write baseline: skipped (dry run; would copy packages/spec/dist/openapi.json to ${relative(root, baselinePath)})`);
    return;
  }
  log('\n== 3. changeset version');
  const out = await runTool('changeset version (apply pending changesets: versions, CHANGELOGs)', bin('changeset'), ['version']);
  if (out.trim()) log(out.trim());
  const [newDoc, oldDoc] = [bundledJson, baselinePath].map((file) => JSON.parse(readFileSync(file, 'utf8')) as JsonObject); // the baseline is still the last release's
  const recorded = recordedChanges(gate.changes, newDoc!, oldDoc!);
  const spec = tieSpecVersion(recorded.map((c) => ({ breaking: c.breaking, line: changeLine(c, { routes: new Map() }) })));
  if (spec.from !== spec.to) log(`  @payments/spec: version := the document's info.version ${spec.to} (its CHANGELOG: the contract changes)`);
  for (const dir of PUBLISHED) log(`  @payments/${dir}: ${before[dir]} → ${version(dir)}`);
  // The docs' changelog lists this release with the contract changes the gate found (tools/lib/docs-changelog.ts).
  const released = PUBLISHED.filter((dir) => before[dir] !== version(dir));
  recordRelease({ versions: Object.fromEntries(released.map((dir) => [`@payments/${dir}`, version(dir)])), date: new Date().toISOString(), changes: recorded });

  log('\n== 4. rebuild at the new versions');
  await build(false);

  log('\n== 5. write baseline');
  const written = await step('released spec becomes the baseline', () => writeBaseline());
  log(`  ${relative(root, written)} := packages/spec/dist/openapi.json`);
  const after = checkBreaking();
  if (after.changes.length > 0) throw new StepError('baseline check', `the new baseline still differs from the bundle:\n${after.report}`);
}

/** What was packed, file by file, with the install sizes: on stdout (progress went to stderr). */
function packReport(packed: ReleaseTarball[], sizes: Map<string, number>): string {
  const lines: string[] = [''];
  for (const pkg of packed) {
    const deps = Object.entries(pkg.manifest.dependencies ?? {}).map(([d, r]) => `${d}@${r}`).join(', ') || 'none';
    const target = SIZE_TARGETS[pkg.manifest.name];
    const size = sizes.get(pkg.manifest.name) ?? 0;
    lines.push(`${pkg.manifest.name}@${pkg.manifest.version}  ${relative(root, pkg.tarball)}`);
    lines.push(`  tarball ${kb(pkg.size)}, ${pkg.files.length} files; install size with dependencies ${mb(size)}${target ? ` (target <= ${mb(target)})` : ''}`);
    lines.push(`  dependencies: ${deps}`);
    for (const file of pkg.files) lines.push(`    ${file}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

await main(async () => {
  if (dryRun && publishOnly) {
    log('✗ --dry-run and --publish-only exclude each other; --help prints the options');
    process.exit(2); // a wrong command line, as for an unknown option
  }
  const started = performance.now();
  const mode = dryRun ? ' (DRY RUN: no changeset version, no baseline written, nothing published)' : publishOnly ? ' (PUBLISH ONLY: the current build and versions)' : '';
  log(`release${mode}: ${PUBLISHED.map((d) => `@payments/${d}@${version(d)}`).join(', ')} → ${registry ?? "npm's configured registry"}`);
  if (!publishOnly) {
    log('\n== 0. checks before the build');
    const problems = releaseProblems(releaseState(readChangesets(changesetDir)));
    if (problems.length) throw new StepError('release checks', problems.map((p) => `- ${p}`).join('\n'));
  }
  if (!dryRun) await step(`the registry answers (${registry ?? "npm's configured registry"})`, () => pingRegistry(registry));
  if (!publishOnly) await versionPackages();

  log(`\n== 6. pack into ${relative(root, releaseDir)}/ and check the tarballs`);
  rmSync(releaseDir, { recursive: true, force: true });
  // The spec is packed at info.version (its version, README) also when this run versioned nothing (a dry run,
  // --publish-only after an info.version change): its manifest is put back after.
  const tied = dryRun || publishOnly ? tieSpecVersion() : undefined;
  let packed: ReleaseTarball[];
  let smoke: Awaited<ReturnType<typeof smokeInstall>>;
  try {
    packed = await step('pnpm pack every package, check each tarball', () => packAll(releaseDir));
    log('\n== 7. smoke install (fresh folder outside the workspace, plain npm)');
    smoke = await step('install every tarball, import every package, run every command', () => smokeInstall(packed));
  } finally {
    if (tied) writeFileSync(join(root, 'packages', 'spec', 'package.json'), tied.manifest);
  }
  process.stdout.write(packReport(packed, smoke.sizes));
  if (smoke.overTarget.length > 0) throw new StepError('install size', `over its target: ${smoke.overTarget.join(', ')} (see the sizes above)`);

  if (dryRun) {
    log('== 8. publish: skipped (dry run)');
  } else {
    log(`\n== 8. publish to ${registry ?? "npm's configured registry"}`);
    const done = await step('npm publish every tarball, dependencies first', () => publishAll(packed, registry));
    process.stdout.write(`${done.map((line) => `  ${line}`).join('\n')}\n`);
  }
  log(
    `${dryRun ? 'dry run' : 'release'} done in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (dryRun || publishOnly ? '' : ': review and commit the versions, CHANGELOGs, consumed changesets and openapi/released/openapi.json'),
  );
});
