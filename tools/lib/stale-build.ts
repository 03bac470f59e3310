// What reads the last build (one test file, the breaking-change gate) would read a spec older than its
// source after an edit under openapi/, and say nothing (new-contributor QA). The build records what each
// source file held when it bundled them (recordSources, a SHA-256 per file); this names the files that differ
// now. By content, not time: a checkout or a copy that rewrites a file unchanged is not an edit.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { root } from './paths.ts';

/** The contract's sources: openapi/ but the released baseline (a release writes it, the gate reads it as it is), and the admin document's. */
const SOURCES = ['openapi', 'openapi-admin'];
const NOT_SOURCES = new Set([join(root, 'openapi', 'released')]);
/** Beside the docs (root dist/, git-ignored), not in packages/spec/dist/, which is published. */
export const sourcesRecord = join(root, 'dist', 'spec-sources.json');

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!NOT_SOURCES.has(path)) yield* files(path);
    } else if (entry.isFile()) yield path;
  }
}

/** Each source file (relative to the root) → the SHA-256 of what it holds now. */
export function sourceDigests(): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const dir of SOURCES) for (const path of files(join(root, dir))) digests[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  return digests;
}

/** Written by the build when it bundles the spec. */
export function recordSources(record = sourcesRecord): void {
  mkdirSync(dirname(record), { recursive: true }); // a fresh clone has no dist/ yet (the docs make it later)
  writeFileSync(record, `${JSON.stringify(sourceDigests(), null, 1)}\n`);
}

/** The source files changed, added or removed since the build recorded them (none when there is no record). */
export function sourcesChangedSinceBuild(record = sourcesRecord): string[] {
  let built: Record<string, string>;
  try {
    built = JSON.parse(readFileSync(record, 'utf8')) as Record<string, string>;
  } catch {
    return []; // no build yet (require-build says so), or one from before the record
  }
  const now = sourceDigests();
  return [...new Set([...Object.keys(built), ...Object.keys(now)])].filter((file) => built[file] !== now[file]).sort();
}

/** The message for a build older than its sources, or undefined. */
export function staleBuildMessage(record = sourcesRecord): string | undefined {
  const changed = sourcesChangedSinceBuild(record);
  if (!changed.length) return undefined;
  const named = changed.slice(0, 3).join(', ') + (changed.length > 3 ? ` and ${changed.length - 3} more` : '');
  return `the last build is older than the spec's sources (${named} changed since): run \`npm run build\` first`;
}
