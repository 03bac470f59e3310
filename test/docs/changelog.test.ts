// The docs' API changelog (tools/lib/docs-changelog.ts): the gate's changes sorted into breaking, added,
// changed and removed, pointers linked to the operations that reach them, releases from the recorded history
// and the changesets' CHANGELOG.md files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@payments/spec';
import type { Change } from '../../tools/lib/breaking/compare.ts';
import { RULES, type ChangeKind } from '../../tools/lib/breaking/rules.ts';
import { categoryOf, changelogFromRepository, changelogMarkdown, parseChangelog, readableMessage, readReleaseHistory, recordRelease, unreleasedChanges } from '../../tools/lib/docs-changelog.ts';

const doc = loadSpec();

const change = (kind: ChangeKind, pointer: string, where: string[], side: 'old' | 'new' = 'new'): Change => ({
  kind,
  breaking: RULES[kind].breaking,
  review: 'review' in RULES[kind],
  why: RULES[kind].why,
  pointer,
  side,
  message: `${kind} at ${pointer}`,
  where,
});

describe('the API changelog', () => {
  it('sorts every rule of the gate into exactly one of breaking, added, changed, removed', () => {
    for (const kind of Object.keys(RULES) as ChangeKind[]) {
      const category = categoryOf(change(kind, '/x', []));
      if (RULES[kind].breaking) expect(category, kind).toBe('Breaking');
      else if (kind.includes('-added')) expect(category, kind).toBe('Added');
      else if (kind.includes('-removed')) expect(category, kind).toBe('Removed');
      else expect(category, kind).toBe('Changed');
    }
  });

  it('links the operations a change reaches to their pages, and shows values as code', () => {
    const text = changelogMarkdown({
      doc,
      unreleased: [
        change('response-field-removed', '/components/schemas/Transfer/properties/status', ['POST /v1/banking/transfers response 201', 'GET /v1/banking/transfers/{transferId} response 200'], 'old'),
        change('request-field-added-optional', '/components/schemas/TransferCreate/properties/memo', ['POST /v1/banking/transfers request body']),
        change('operation-removed', '/paths/~1v1~1gone/get', ['GET /v1/gone'], 'old'),
      ],
      pending: [{ file: 'x.md', releases: new Map([['@payments/types', 'major']]), summary: 'Transfers lose `status`.\n\nMore detail.', reviewed: [] }],
      history: [],
      packages: [],
    });
    const unreleased = text.slice(text.indexOf('### Unreleased'));
    expect(unreleased.indexOf('**Breaking**')).toBeGreaterThan(0);
    expect(unreleased.indexOf('**Breaking**')).toBeLessThan(unreleased.indexOf('**Added**'));
    expect(text).toContain('[POST /v1/banking/transfers](#/banking/createtransfer) response 201');
    expect(text).toContain('[GET /v1/banking/transfers/{transferId}](#/banking/gettransfer) response 200');
    expect(text).toContain('In GET /v1/gone.'); // a removed operation has no page to link to
    expect(text).toContain('`response-field-removed at /components/schemas/Transfer/properties/status`');
    expect(text).toContain('- [`/components/schemas/Transfer/properties/status`](#/banking/createtransfer) (in the previous release)');
    expect(text).toContain('- `/paths/~1v1~1gone/get` (in the previous release)');
    expect(text).toContain('- `@payments/types` major: Transfers lose `status`.');
    expect(text).not.toContain('More detail.');
  });

  it('lists releases from the recorded history with their CHANGELOG.md notes, and keeps their changes out of Unreleased', () => {
    const released = change('response-field-added', '/components/schemas/Transfer/properties/memo', ['POST /v1/banking/transfers response 201']);
    const notes = parseChangelog('@payments/types', '# @payments/types\n\n## 2.0.0\n\n### Major Changes\n\n- 1a2b3c4: Transfers carry a `memo`.\n  Read it.\n\n## 1.0.0\n\n### Minor Changes\n\n- First.\n');
    expect(notes.map((n) => n.version)).toEqual(['2.0.0', '1.0.0']);
    expect(notes[0]!.notes.get('Major Changes')).toEqual(['Transfers carry a `memo`. Read it.']);
    const text = changelogMarkdown({ doc, unreleased: [released], pending: [], history: [{ versions: { '@payments/types': '2.0.0' }, date: '2026-11-23T20:00:00.000Z', changes: [released] }], packages: notes });
    const [unreleased, rest] = text.split('### Release of 2026-11-23');
    expect(unreleased).toContain('No change to the contract.');
    expect(rest).toContain('@payments/types 2.0.0');
    expect(rest).toContain('[POST /v1/banking/transfers](#/banking/createtransfer) response 201');
    expect(rest).toContain('- Transfers carry a `memo`. Read it.');
    expect(text).toContain('### Earlier releases'); // 1.0.0 has notes but no recorded gate report
  });

  it('shows every change the gate reports today under Unreleased', () => {
    const text = changelogFromRepository(doc);
    const unreleased = text.slice(text.indexOf('### Unreleased')).split(/\n### /)[0]!;
    const { changes } = unreleasedChanges();
    for (const c of changes) expect(unreleased, c.pointer).toContain(`\`${c.pointer}\``);
    if (changes.length === 0) expect(unreleased).toContain('No change to the contract.');
  });

  it('records each release newest first (what npm run release writes for the changelog)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'release-history-'));
    try {
      const path = join(dir, 'history.json');
      expect(readReleaseHistory(path)).toEqual([]);
      const first = { versions: { '@payments/types': '1.0.0' }, date: '2026-11-01T00:00:00.000Z', changes: [] };
      const second = { versions: { '@payments/types': '2.0.0' }, date: '2026-11-23T00:00:00.000Z', changes: [change('operation-added', '/paths/~1v1~1new/get', ['GET /v1/new'])] };
      recordRelease(first, path);
      recordRelease(second, path);
      expect(readReleaseHistory(path)).toEqual([second, first]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says "removed" and "added" where the gate\'s message names a missing side (no "→ undefined")', () => {
    expect(readableMessage('response exclusiveMinimum 0 → undefined')).toBe('response exclusiveMinimum 0 removed');
    expect(readableMessage('request maxLength undefined → 100')).toBe('request maxLength 100 added');
    expect(readableMessage('request maxLength 50 → 100')).toBe('request maxLength 50 → 100');
  });
});
