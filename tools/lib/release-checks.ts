// What a release checks before it builds anything (release QA), each from the repository's files:
// - no pending changeset names @payments/spec: its version is the document's info.version, so a changeset
//   bump of it would have `changeset version` write a CHANGELOG heading for a version never published;
// - when info.version moves, every package that depends on @payments/spec is released too: packed again, it
//   depends on the new spec, and a version of it already on the registry (the old dependency) would be
//   skipped, leaving consumers a sandbox, kit or mock that serves the old contract;
// - there is something to release (pending changesets, or a new info.version).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { plannedBumps, type Bump, type PendingChangeset } from './breaking/changesets.ts';
import { packageDir, PUBLISHED } from './packages.ts';
import { root, specSource } from './paths.ts';

export const SPEC_PACKAGE = '@payments/spec';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

export interface ReleaseState {
  /** @payments/spec's version now (the last release's info.version) and the document's info.version. */
  specVersion: string;
  infoVersion: string;
  changesets: PendingChangeset[];
  /** The published packages that depend on @payments/spec. */
  specDependents: string[];
}

/** The document's info.version, from its source. */
export const infoVersion = (): string => String((parse(readFileSync(specSource, 'utf8')) as { info: { version: unknown } }).info.version);

/** The repository as a release finds it. */
export function releaseState(changesets: PendingChangeset[]): ReleaseState {
  const manifests = PUBLISHED.map((dir) => JSON.parse(readFileSync(join(packageDir(dir), 'package.json'), 'utf8')) as Manifest);
  return {
    specVersion: manifests.find((m) => m.name === SPEC_PACKAGE)!.version,
    infoVersion: infoVersion(),
    changesets,
    specDependents: manifests.filter((m) => m.dependencies?.[SPEC_PACKAGE] !== undefined).map((m) => m.name),
  };
}

const shown = (file: string) => relative(root, file);

/** What stops this release before it builds (empty: nothing). */
export function releaseProblems(state: ReleaseState): string[] {
  const problems: string[] = [];
  const naming = state.changesets.filter((c) => c.releases.has(SPEC_PACKAGE));
  if (naming.length) {
    problems.push(
      `${naming.map((c) => shown(c.file)).join(', ')} name ${SPEC_PACKAGE}, whose version is the document's info.version (.changeset/README.md): ` +
        `take that line out, and raise info.version in openapi/openapi.yaml for a contract change`,
    );
  }
  const bumps: Map<string, Bump> = plannedBumps(state.changesets);
  const specMoves = state.infoVersion !== state.specVersion;
  if (specMoves) {
    const behind = state.specDependents.filter((name) => (bumps.get(name) ?? 'none') === 'none');
    if (behind.length) {
      problems.push(
        `info.version moves ${SPEC_PACKAGE} from ${state.specVersion} to ${state.infoVersion}, and ${behind.join(', ')} depend on it: ` +
          `add a changeset releasing ${behind.length > 1 ? 'each' : 'it'} (patch at least), or the version already published keeps the old contract`,
      );
    }
  }
  if (!specMoves && [...bumps.values()].every((b) => b === 'none')) {
    problems.push('nothing to release: no pending changeset releases a package and info.version is unchanged (add one with `pnpm exec changeset`, or run with --publish-only to publish the current versions)');
  }
  return problems;
}

/**
 * After the gate: the contract changed since the last release (`changes`, the gate's count) but info.version
 * did not. @payments/spec would not be published again (that version is on the registry), and the sandbox,
 * kit and mock released with it would load the old document.
 */
export function unversionedContractChange(changes: number, specVersion: string, infoVersion: string): string | undefined {
  if (changes === 0 || specVersion !== infoVersion) return undefined;
  return `the contract changed since the last release (${changes} change${changes === 1 ? '' : 's'}, listed above) but info.version is still ${infoVersion}: raise it in openapi/openapi.yaml (minor for additions and loosened bounds, major for a breaking change)`;
}

/**
 * The CHANGELOG section of a new @payments/spec version (`changeset version` writes none: no changeset names
 * it): the contract changes the gate found since the last release, breaking ones first.
 */
export function specChangelogSection(version: string, from: string, changes: readonly { breaking: boolean; review: boolean; kind: string; message: string }[]): string {
  const ordered = [...changes].sort((a, b) => Number(b.breaking) - Number(a.breaking));
  const lines = ordered.map((c) => `- ${c.breaking ? '**Breaking** ' : c.review ? 'Reviewed ' : ''}\`${c.kind}\`: ${c.message}`);
  return [`## ${version}`, '', `The contract's version ${version} (was ${from}).${lines.length ? ' Its changes, as the breaking-change gate found them:' : ' No change to the contract since the last release.'}`, '', ...lines, ''].join('\n');
}
