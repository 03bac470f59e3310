// Pending changesets: the `.changeset/*.md` files that `changeset version` has not consumed yet. Each one's
// front matter is a tiny YAML mapping of package name to bump type:
//
//   ---
//   '@payments/types': major
//   '@payments/client': major
//   ---
//   What changed, for the changelog.
//
// Read here directly (it is the format @changesets/parse reads) so the gate needs nothing but `yaml`.
//
// A changeset also acknowledges contract changes the gate cannot decide (rules with `review: true`, e.g. a
// changed request pattern): one line per change in its text, starting with `Reviewed:`, the change's JSON
// pointer and its id (a digest of the change: old and new value) as the gate printed them, then why it is
// safe. The id binds the line to the change reviewed: a later, different change at the same pointer needs a
// review of its own (release QA: a narrowing passed on a widening's acknowledgement). The text lands in the
// CHANGELOG, so the decision is on record where consumers read:
//
//   Reviewed: /components/schemas/Nickname/pattern (3f2a9c1e): the new pattern also accepts spaces; every
//   nickname accepted before still is.
//
// The front matter stays `package: bump` only (`changeset version` rejects anything else there).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const BUMPS = ['none', 'patch', 'minor', 'major'] as const;
export type Bump = (typeof BUMPS)[number];

export interface PendingChangeset {
  file: string;
  releases: Map<string, Bump>;
  summary: string;
  /** The changes this changeset acknowledges as reviewed (`Reviewed: <pointer> (<id>)` lines); `id` undefined: the line names none. */
  reviewed: Reviewed[];
}

export interface Reviewed {
  pointer: string;
  id: string | undefined;
}

/** `Reviewed:` then the pointer, in backticks (anything up to the closing one) or bare (up to a space, colon or parenthesis), then `(id)`. */
const REVIEWED = /^[ \t]*(?:[-*][ \t]+)?Reviewed:[ \t]*(?:`(\/[^`]*)`|(\/[^\s:(]*))(?:[ \t]*\(([0-9a-f]{8})\))?/gm;

/** The changes named by `Reviewed:` lines of a changeset's text. */
export function reviewedChanges(summary: string): Reviewed[] {
  return [...summary.matchAll(REVIEWED)].map((m) => ({ pointer: (m[1] ?? m[2]) as string, id: m[3] }));
}

const FRONT_MATTER = /^\s*---\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/** Parses one changeset file's text; throws a message naming the file when it is not a changeset. */
export function parseChangeset(text: string, file: string): PendingChangeset {
  const match = FRONT_MATTER.exec(text);
  if (!match) throw new Error(`${file}: not a changeset (it must start with a --- front matter block listing packages and bump types)`);
  let data: unknown;
  try {
    data = parse(match[1] ?? '');
  } catch (err) {
    throw new Error(`${file}: the front matter is not YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const releases = new Map<string, Bump>();
  if (data !== null && data !== undefined) {
    if (typeof data !== 'object' || Array.isArray(data)) throw new Error(`${file}: the front matter must map package names to bump types`);
    for (const [name, bump] of Object.entries(data)) {
      if (!(BUMPS as readonly unknown[]).includes(bump)) {
        throw new Error(`${file}: "${name}" has bump ${JSON.stringify(bump)}; expected one of ${BUMPS.join(', ')}`);
      }
      releases.set(name, bump as Bump);
    }
  }
  const summary = (match[2] ?? '').trim();
  return { file, releases, summary, reviewed: reviewedChanges(summary) };
}

/** Every pending changeset in `dir` (*.md except README.md), sorted by file name; none when `dir` is missing. */
export function readChangesets(dir: string): PendingChangeset[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f.toLowerCase() !== 'readme.md')
    .sort()
    .map((f) => parseChangeset(readFileSync(join(dir, f), 'utf8'), join(dir, f)));
}

/** The bump each package gets from all pending changesets: the highest one, as `changeset version` applies them. */
export function plannedBumps(changesets: PendingChangeset[]): Map<string, Bump> {
  const result = new Map<string, Bump>();
  for (const cs of changesets) {
    for (const [name, bump] of cs.releases) {
      const current = result.get(name);
      if (!current || BUMPS.indexOf(bump) > BUMPS.indexOf(current)) result.set(name, bump);
    }
  }
  return result;
}
