// The docs' API changelog (tools/lib/docs-changelog.ts): the gate's changes sorted into breaking, added,
// changed and removed, each said in words about the API (operation, part, field, what happened; no JSON
// pointer), the operations linked to their pages, releases from the recorded history and the changesets'
// CHANGELOG.md files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@payments/spec';
import { compareDocuments, type Change } from '../../tools/lib/breaking/compare.ts';
import type { JsonObject } from '../../tools/lib/breaking/json.ts';
import { readPairs } from '../../tools/lib/breaking/optic-pairs.ts';
import { RULES, type ChangeKind } from '../../tools/lib/breaking/rules.ts';
import { categoryOf, changeLine, changelogFromRepository, changelogMarkdown, parseChangelog, readReleaseHistory, recordedChanges, recordRelease, unreleasedChanges } from '../../tools/lib/docs-changelog.ts';

const doc = loadSpec();

const change = (kind: ChangeKind, pointer: string, where: string[], side: 'old' | 'new' = 'new', message = `${kind} at ${pointer}`): Change => ({
  kind,
  breaking: RULES[kind].breaking,
  review: 'review' in RULES[kind],
  why: RULES[kind].why,
  pointer,
  side,
  message,
  where,
});
/** What a JSON pointer or a raw diff looks like in text: none of it may reach a reader of the changelog. */
const RAW = /\/components\/|\/paths\/|~1|\bundefined\b|→/;
/** The text without the rules' reasons (the gate's prose: "clients reading the field get undefined"). */
const said = (text: string) => text.replace(/ \*(Breaking|Not breaking|Needs review): [^*]*\*/g, '');

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

  it('says each change in words about the operations it reaches, linked to their pages, breaking ones marked', () => {
    const text = changelogMarkdown({
      doc,
      unreleased: [
        change('response-field-removed', '/components/schemas/Transfer/properties/status', ['POST /v1/banking/transfers response 201', 'GET /v1/banking/transfers/{transferId} response 200'], 'old', 'response field "status" removed'),
        change('request-field-added-optional', '/components/schemas/TransferCreate/properties/memo', ['POST /v1/banking/transfers request body'], 'new', 'request field "memo" added (optional)'),
        change('operation-removed', '/paths/~1v1~1gone/get', ['GET /v1/gone'], 'old', 'operation GET /v1/gone removed'),
        change('error-code-added', '/paths/~1v1~1banking~1transfers/post/responses/409/content/application~1json/examples/x', ['POST /v1/banking/transfers response 409'], 'new', 'error code "banking_transfer_idempotency_conflict" added to 409'),
      ],
      pending: [{ file: 'x.md', releases: new Map([['@payments/types', 'major']]), summary: 'Transfers lose `status`.\n\nMore detail.', reviewed: [] }],
      history: [],
      packages: [],
    });
    const unreleased = text.slice(text.indexOf('### Unreleased'));
    expect(unreleased.indexOf('**Breaking**')).toBeGreaterThan(0);
    expect(unreleased.indexOf('**Breaking**')).toBeLessThan(unreleased.indexOf('**Added**'));
    expect(text).toContain('- **Breaking** · [POST /v1/banking/transfers](#/banking/createtransfer) (201 response); [GET /v1/banking/transfers/{transferId}](#/banking/gettransfer) (200 response): field `status` removed.');
    expect(text).toContain('- [POST /v1/banking/transfers](#/banking/createtransfer) (request): new optional field `memo`.');
    expect(text).toContain('- **Breaking** · GET /v1/gone: operation removed.'); // a removed operation has no page to link to
    expect(text).toContain('new error code [`banking_transfer_idempotency_conflict`](#/errors/banking_transfer_idempotency_conflict) with 409');
    expect(said(text)).not.toMatch(RAW);
    expect(text).toContain('- `@payments/types` major: Transfers lose `status`.');
    expect(text).not.toContain('More detail.');
  });

  it("keeps to the packages that carry the contract: the toolchain's own notes (sandbox, kit, mock) are not the API's changelog", () => {
    const text = changelogMarkdown({
      doc,
      unreleased: [],
      pending: [
        { file: 'a.md', releases: new Map([['@payments/sandbox', 'patch']]), summary: 'The sandbox journals faster.', reviewed: [] },
        { file: 'b.md', releases: new Map([['@payments/contract-kit', 'minor'], ['@payments/client', 'patch']]), summary: 'The client retries a 503 later.', reviewed: [] },
      ],
      history: [],
      packages: [
        { name: '@payments/mock', version: '1.0.0', notes: new Map([['Minor Changes', ['The mock answers faster.']]]) },
        { name: '@payments/spec', version: '1.0.0', notes: new Map([['Minor Changes', ['Transfers carry a `memo`.']]]) },
      ],
    });
    expect(text).toContain('- `@payments/client` patch: The client retries a 503 later.');
    expect(text).not.toContain('contract-kit');
    expect(text).not.toContain('The sandbox journals faster.');
    expect(text).not.toContain('The mock answers faster.');
    expect(text).toContain('- Transfers carry a `memo`.');
  });

  it('finds the field through the operation in the document of the pointer: "`amount` no longer has an exclusive minimum of 0"', () => {
    // The real spec with the transfer amount's lower bound removed (it lives in the shared Amount schema).
    const released = structuredClone(doc) as unknown as JsonObject;
    const current = structuredClone(doc) as unknown as { components: { schemas: Record<string, { oneOf?: JsonObject[] }> } };
    delete current.components.schemas.Amount!.oneOf!.find((s) => 'exclusiveMinimum' in s)!.exclusiveMinimum;
    const found = compareDocuments(released, current as unknown as JsonObject).find((c) => c.where.includes('POST /v1/banking/transfers request body'));
    expect(found, 'the comparer reports the removed bound').toBeDefined();
    const line = changeLine(found!, { routes: new Map([['POST /v1/banking/transfers', '/banking/createtransfer']]), newDoc: current as unknown as JsonObject, oldDoc: released });
    expect(line).toMatch(/^- \[POST \/v1\/banking\/transfers\]\(#\/banking\/createtransfer\)[^:]* \(request\)[^:]*: `amount` \(as a number\) no longer has an exclusive minimum of 0\. \*/);
    expect(said(line)).not.toMatch(RAW);
  });

  it('says every change of every fixture pair of the gate in words: an operation, no JSON pointer, no raw diff', () => {
    const pairs = readPairs();
    expect(pairs.length).toBeGreaterThan(50);
    const kinds = new Set<string>();
    for (const pair of pairs) {
      for (const c of compareDocuments(pair.old, pair.new)) {
        kinds.add(c.kind);
        const line = changeLine(c, { routes: new Map(), newDoc: pair.new, oldDoc: pair.old });
        expect(said(line), `${pair.name}: ${c.message}`).not.toMatch(RAW);
        expect(said(line), pair.name).toMatch(/^- (\*\*Breaking\*\* · )?([A-Z]+ \/|the API's security schemes|the generated types \(@payments\/types\))/);
        expect(line.startsWith('- **Breaking**'), `${pair.name}: marked breaking exactly when it is`).toBe(c.breaking);
      }
    }
    expect(kinds.size, 'the pairs cover most rules').toBeGreaterThan(40);
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
    expect(rest).toContain('- [POST /v1/banking/transfers](#/banking/createtransfer) (201 response): new field `memo`.'); // no document of that release: the field from the pointer
    expect(rest).toContain('- Transfers carry a `memo`. Read it.');
    expect(text).toContain('### Earlier releases'); // 1.0.0 has notes but no recorded gate report
  });

  it('says a released change\'s field as it was recorded, with both documents at hand (release QA: "the response body" for a header)', () => {
    const old = structuredClone(doc) as unknown as JsonObject & { components: { headers: { RetryAfter: { schema: Record<string, unknown> } } } };
    const next = structuredClone(old);
    next.components.headers.RetryAfter.schema.maximum = 3600;
    const changes = compareDocuments(old, next);
    expect(changes.length).toBeGreaterThan(0);
    const release = (recorded: boolean) =>
      changelogMarkdown({ doc, unreleased: [], pending: [], history: [{ versions: { '@payments/types': '2.0.0' }, date: '2026-11-23T20:00:00.000Z', changes: recorded ? recordedChanges(changes, next, old) : changes }], packages: [] }).split('### Release of 2026-11-23')[1]!;
    expect(release(false)).toContain('the response body'); // what a release recorded without its documents said
    expect(release(true)).not.toContain('the response body');
    expect(release(true)).toContain('Retry-After');
  });

  it('shows every change the gate reports today under Unreleased', () => {
    const text = changelogFromRepository(doc);
    const unreleased = text.slice(text.indexOf('### Unreleased')).split(/\n### /)[0]!;
    const { changes } = unreleasedChanges();
    const lines = unreleased.split('**Release notes of the next versions**')[0]!.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.length, 'one line per change').toBe(changes.length);
    lines.forEach((line, i) => expect(line, changes[i]!.message).toContain(`${changes[i]!.breaking ? '**Breaking** · ' : ''}[${changes[i]!.where[0]!.split(' ').slice(0, 2).join(' ')}]`));
    expect(said(unreleased.split('**Release notes of the next versions**')[0]!)).not.toMatch(RAW);
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
});
