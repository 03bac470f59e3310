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
      `${naming.map((c) => shown(c.file)).join(', ')} name${naming.length === 1 ? 's' : ''} ${SPEC_PACKAGE}, whose version is the document's info.version (.changeset/README.md): ` +
        `take that line out, and raise info.version in openapi/openapi.yaml for a contract change`,
    );
  }
  const bumps: Map<string, Bump> = plannedBumps(state.changesets);
  if (compareVersions(state.infoVersion, state.specVersion) < 0) {
    problems.push(`info.version ${state.infoVersion} is lower than ${SPEC_PACKAGE}'s released ${state.specVersion}: a contract version only goes up (npm would refuse it after the repository was versioned)`);
  }
  const specMoves = state.infoVersion !== state.specVersion;
  if (specMoves) {
    const behind = state.specDependents.filter((name) => (bumps.get(name) ?? 'none') === 'none');
    if (behind.length) {
      problems.push(
        `info.version moves ${SPEC_PACKAGE} from ${state.specVersion} to ${state.infoVersion}, and ${behind.join(', ')} depend${behind.length === 1 ? 's' : ''} on it: ` +
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
export function unversionedContractChange(changes: number, breaking: number, specVersion: string, infoVersion: string): string | undefined {
  if (changes > 0 && specVersion === infoVersion) {
    return `the contract changed since the last release (${changes} change${changes === 1 ? '' : 's'}, listed above) but info.version is still ${infoVersion}: raise it in openapi/openapi.yaml (minor for additions and loosened bounds, major for a breaking change)`;
  }
  const major = parseVersion(specVersion)[0] ?? 0;
  if (breaking > 0 && (parseVersion(infoVersion)[0] ?? 0) <= major) {
    return `${breaking} breaking change${breaking === 1 ? '' : 's'} (listed above) and info.version ${infoVersion} keeps the major version of ${specVersion}: raise it to ${major + 1}.0.0 at least`;
  }
  return undefined;
}

/** A version's numbers (`1.10.0` → [1, 10, 0]); a pre-release or build suffix is left out. */
const parseVersion = (version: string): number[] => version.split(/[-+]/)[0]!.split('.').map((n) => Number(n) || 0);

/** Semver order of two versions' numbers: negative when `a` is lower. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parseVersion(a), parseVersion(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/**
 * The CHANGELOG section of a new @payments/spec version (`changeset version` writes none: no changeset names
 * it): the contract changes the gate found since the last release, each a line of the docs' changelog
 * (operation, part, field, what happened; breaking ones first and marked).
 */
export function specChangelogSection(version: string, from: string, lines: readonly { breaking: boolean; line: string }[]): string {
  const ordered = [...lines].sort((a, b) => Number(b.breaking) - Number(a.breaking)).map((l) => l.line);
  const intro = ordered.length ? ' Its changes, as the breaking-change gate found them (migration notes: the CHANGELOGs of @payments/types and @payments/client):' : ' No change to the contract since the last release.';
  return [`## ${version}`, '', `The contract's version ${version} (was ${from}).${intro}`, '', ...ordered, ''].join('\n');
}
