// A single test file or the breaking-change gate read the last build: after an edit under openapi/ they are
// told to build first (new-contributor QA: they silently used the previous spec). By content: a file
// rewritten unchanged is not an edit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordSources, sourcesChangedSinceBuild, staleBuildMessage } from '../../tools/lib/stale-build.ts';

const dir = mkdtempSync(join(tmpdir(), 'stale-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the build older than its sources', () => {
  it('is current right after the record (written into a folder it makes: a fresh clone has no dist/), and for a record that is not there', () => {
    const record = join(dir, 'not-yet', 'now.json');
    recordSources(record);
    expect(sourcesChangedSinceBuild(record)).toEqual([]);
    expect(staleBuildMessage(join(dir, 'none.json'))).toBeUndefined();
  });

  it('names a source whose content changed, one added and one removed, but not the released baseline', () => {
    const record = join(dir, 'edited.json');
    recordSources(record);
    const built = JSON.parse(readFileSync(record, 'utf8')) as Record<string, string>;
    expect(Object.keys(built).some((file) => file.startsWith('openapi/released/'))).toBe(false);
    built['openapi/paths/v1_cards.yaml'] = 'an older content';
    built['openapi/paths/v1_gone.yaml'] = 'a file since removed';
    delete built['openapi/components/schemas/Rail.yaml'];
    writeFileSync(record, JSON.stringify(built));
    expect(sourcesChangedSinceBuild(record)).toEqual(['openapi/components/schemas/Rail.yaml', 'openapi/paths/v1_cards.yaml', 'openapi/paths/v1_gone.yaml']);
    expect(staleBuildMessage(record)).toBe(
      "the last build is older than the spec's sources (openapi/components/schemas/Rail.yaml, openapi/paths/v1_cards.yaml, openapi/paths/v1_gone.yaml changed since): run `npm run build` first",
    );
  });
});
