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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const BUMPS = ['none', 'patch', 'minor', 'major'] as const;
export type Bump = (typeof BUMPS)[number];

export interface PendingChangeset {
  file: string;
  releases: Map<string, Bump>;
  summary: string;
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
  return { file, releases, summary: (match[2] ?? '').trim() };
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
