// What reads the last build (one test file, the breaking-change gate, the sandbox alone) would read a spec
// older than its source after an edit under openapi/, and say nothing (new-contributor QA). This tells it:
// the newest source file written after the bundle, if any. The build writes the bundle before anything else
// it makes from the sources, so a source newer than the bundle is one the build has not seen.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { bundledJson, root } from './paths.ts';

/** The contract's sources: openapi/ but the released baseline (written by a release, read as it is), and the admin document's. */
const SOURCES = ['openapi', 'openapi-admin'];
const NOT_SOURCES = new Set([join(root, 'openapi', 'released')]);

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!NOT_SOURCES.has(path)) yield* files(path);
    } else if (entry.isFile()) yield path;
  }
}

/** The source edited since the last build (relative to the root), or undefined when the build is current or missing. */
export function sourceNewerThanBuild(bundle = bundledJson): string | undefined {
  const built = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return undefined;
  let newest: { path: string; at: number } | undefined;
  for (const dir of SOURCES) {
    for (const path of files(join(root, dir))) {
      const at = statSync(path).mtimeMs;
      if (at > built && (!newest || at > newest.at)) newest = { path, at };
    }
  }
  return newest && relative(root, newest.path);
}

/** The message for a build older than its sources, or undefined. */
export function staleBuildMessage(bundle = bundledJson): string | undefined {
  const source = sourceNewerThanBuild(bundle);
  return source && `${relative(root, bundle)} is older than ${source} (changed since the last build): run \`npm run build\` first`;
}
