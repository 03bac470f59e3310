// A single test file, the breaking-change gate or the sandbox alone read the last build: after an edit under
// openapi/ they are told to build first (new-contributor QA: they silently used the previous spec).
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../../tools/lib/paths.ts';
import { sourceNewerThanBuild, staleBuildMessage } from '../../tools/lib/stale-build.ts';

const dir = mkdtempSync(join(tmpdir(), 'stale-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bundleAt = (when: Date) => {
  const file = join(dir, `openapi-${when.getTime()}.json`);
  writeFileSync(file, '{}');
  utimesSync(file, when, when);
  return file;
};

describe('the build older than its sources', () => {
  it('names a source written after the bundle', () => {
    const old = bundleAt(new Date('2000-01-01T00:00:00Z'));
    expect(sourceNewerThanBuild(old)).toMatch(/^openapi(-admin)?\//);
    expect(staleBuildMessage(old)).toMatch(/is older than openapi(-admin)?\/\S+ \(changed since the last build\): run `npm run build` first$/);
  });

  it('is quiet when the bundle is newer than every source, or missing', () => {
    expect(sourceNewerThanBuild(bundleAt(new Date(Date.now() + 86_400_000)))).toBeUndefined();
    expect(staleBuildMessage(join(dir, 'none.json'))).toBeUndefined();
  });

  it('leaves out the released baseline, which a release writes after the build', () => {
    const released = join(root, 'openapi', 'released', 'openapi.json');
    const { atime, mtime } = statSync(released);
    utimesSync(released, atime, new Date(Date.now() + 2 * 86_400_000)); // newer than the bundle below
    try {
      expect(sourceNewerThanBuild(bundleAt(new Date(Date.now() + 86_400_000)))).toBeUndefined();
    } finally {
      utimesSync(released, atime, mtime);
    }
  });
});
