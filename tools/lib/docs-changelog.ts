// The docs' API changelog (a guide page, "Changelog"): per release, what changed in the contract (breaking,
// added, changed, removed), read from the breaking-change gate's report, and what the changesets say.
//
//   Unreleased  = the gate's comparison of the bundle with the last released spec (checkBreaking(), even
//                 when it fails: its report is still the list of changes) + the pending changesets.
//   Releases    = openapi/released/history.json (the gate's changes recorded by `npm run release` for each
//                 release, see recordRelease()) + the packages' CHANGELOG.md sections of those versions;
//                 a version found only in a CHANGELOG.md is listed with its changeset notes.
//
// Each change is said in words about the API (docs-changelog-words.ts): the operations it reaches, linked to
// their pages (Redoc's #/<tag>/<operationid> routes), the field and what happened to it; no JSON pointer.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations, type OpenApiDocument } from '@payments/spec';
import { type PendingChangeset, readChangesets } from './breaking/changesets.ts';
import type { Change } from './breaking/compare.ts';
import type { JsonObject } from './breaking/json.ts';
import { BreakingChangeError, baselinePath, changesetDir, checkBreaking, type GateResult } from './breaking/gate.ts';
import { fieldOf, partInWords, placeOf, sentenceOf, type FieldPath } from './docs-changelog-words.ts';
import { errorCodeRoute, operationRoute } from './docs-console.ts';
import { root } from './paths.ts';

export const releaseHistoryPath = join(root, 'openapi', 'released', 'history.json');

export interface ReleaseRecord {
  /** Package name → the version this release gave it. */
  versions: Record<string, string>;
  date: string;
  /** The gate's changes between the previous release and this one, each with its field (recordedChanges). */
  changes: RecordedChange[];
}

/** A released change with the field it is about, found when both documents were at hand (a later changelog has neither). */
export type RecordedChange = Change & { field?: FieldPath | undefined };

/**
 * The changes as `npm run release` records them: each with its field in the document its pointer is in (the
 * new spec, or the released one for a removal). Without it, a later changelog said "the response body" for a
 * `balances[].available` or a `Retry-After` header (release QA).
 */
export function recordedChanges(changes: readonly Change[], newDoc: JsonObject, oldDoc: JsonObject): RecordedChange[] {
  return changes.map((c) => ({ ...c, field: fieldOf(c, c.side === 'old' ? oldDoc : newDoc) }));
}

export interface PackageRelease {
  name: string;
  version: string;
  /** "Major Changes" → the changeset notes under it. */
  notes: Map<string, string[]>;
}

type Category = 'Breaking' | 'Added' | 'Changed' | 'Removed';
const CATEGORIES: Category[] = ['Breaking', 'Added', 'Changed', 'Removed'];

/** Breaking first; otherwise by the rule's kind (`…-added`, `…-removed`, anything else is a change). */
export function categoryOf(change: Change): Category {
  if (change.breaking) return 'Breaking';
  if (/-added(-|$)/.test(change.kind)) return 'Added';
  if (/-removed(-|$)/.test(change.kind)) return 'Removed';
  return 'Changed';
}

/** The gate's result, also when it fails (a breaking change without a major changeset): the changes are the same. */
export function unreleasedChanges(): GateResult {
  try {
    return checkBreaking();
  } catch (err) {
    if (err instanceof BreakingChangeError) return err.result;
    throw err;
  }
}

export function readReleaseHistory(path: string = releaseHistoryPath): ReleaseRecord[] {
  if (!existsSync(path)) return [];
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(parsed)) throw new Error(`${path}: expected an array of releases`);
  return parsed as ReleaseRecord[];
}

/** Called by `npm run release` after `changeset version`: the changes it released, newest first. */
export function recordRelease(release: ReleaseRecord, path: string = releaseHistoryPath): void {
  writeFileSync(path, `${JSON.stringify([release, ...readReleaseHistory(path)], null, 2)}\n`);
}

/** The `## version` sections of a changesets CHANGELOG.md, with their `### … Changes` lists. */
export function parseChangelog(name: string, text: string): PackageRelease[] {
  const releases: PackageRelease[] = [];
  let release: PackageRelease | undefined;
  let heading = 'Changes';
  for (const line of text.split(/\r?\n/)) {
    const version = /^## (\S+)/.exec(line);
    const group = /^### (.+)/.exec(line);
    if (version) releases.push((release = { name, version: version[1]!, notes: new Map() }));
    else if (group) heading = group[1]!.trim();
    else if (release && /^- /.test(line)) release.notes.set(heading, [...(release.notes.get(heading) ?? []), line.slice(2).replace(/^[0-9a-f]{7,40}: /, '')]);
    else if (release && /^\s{2,}\S/.test(line)) {
      const notes = release.notes.get(heading);
      if (notes && notes.length > 0) notes[notes.length - 1] += ` ${line.trim()}`;
    }
  }
  return releases;
}

export function packageReleases(packagesDir: string = join(root, 'packages')): PackageRelease[] {
  return readdirSync(packagesDir).flatMap((dir) => {
    const changelog = join(packagesDir, dir, 'CHANGELOG.md');
    const manifest = join(packagesDir, dir, 'package.json');
    if (!existsSync(changelog) || !existsSync(manifest)) return [];
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string };
    return parseChangelog(name, readFileSync(changelog, 'utf8'));
  });
}

/** "POST /v1/banking/transfers" → a link to its page, when the operation exists in the docs. */
function linkedOperation(operation: string, routes: Map<string, string>): string {
  const route = routes.get(operation);
  return route ? `[${operation}](#${route})` : operation;
}

/**
 * The places a change reaches, grouped by part: "[POST /v1/banking/transfers](…) (request)", "[GET /a](…),
 * [GET /b](…) (401 response)". A parameter's part is left out: the sentence names the parameter.
 */
function placesInWords(change: Change, routes: Map<string, string>): string {
  const byPart = new Map<string, string[]>();
  for (const where of change.where) {
    const place = placeOf(where);
    const part = /parameter/.test(place.part ?? '') || change.kind.startsWith('response-status') ? '' : partInWords(place.part);
    const operation = place.operation ? linkedOperation(place.operation, routes) : change.kind.startsWith('security-') ? 'the API\'s security schemes' : 'the generated types (@payments/types)';
    if (!(byPart.get(part) ?? []).includes(operation)) byPart.set(part, [...(byPart.get(part) ?? []), operation]);
  }
  return [...byPart].map(([part, ops]) => `${ops.join(', ')}${part ? ` (${part})` : ''}`).join('; ');
}

/** What the docs need to put a change in words: the documents its pointers are in, and the pages' routes. */
export interface WordsContext {
  routes: Map<string, string>;
  /** The spec the changes lead to (pointers of side 'new'). */
  newDoc?: JsonObject;
  /** The spec they start from (pointers of side 'old'); absent for older releases. */
  oldDoc?: JsonObject | undefined;
}

/** One change as a reader of the API says it: operation, part, field, what happened; breaking ones marked. */
export function changeLine(change: RecordedChange, context: WordsContext): string {
  const place = placeOf(change.where[0] ?? '');
  const field = change.field ?? fieldOf(change, change.side === 'old' ? context.oldDoc : context.newDoc);
  const sentence = sentenceOf(change, field, place, (code) => `#${errorCodeRoute(code)}`);
  const verdict = change.breaking ? `*Breaking: ${change.why}.*` : change.review ? `*Needs review: ${change.why}.*` : `*Not breaking: ${change.why}.*`;
  return `- ${change.breaking ? '**Breaking** · ' : ''}${placesInWords(change, context.routes)}: ${sentence}. ${verdict}`;
}

function changesMarkdown(changes: RecordedChange[], context: WordsContext): string[] {
  if (changes.length === 0) return ['No change to the contract.', ''];
  return CATEGORIES.flatMap((category) => {
    const own = changes.filter((c) => categoryOf(c) === category);
    // Bold, not a heading: Redoc makes every heading a sidebar entry (and "Changed" would repeat per release).
    return own.length === 0 ? [] : [`**${category}**`, '', ...own.map((c) => changeLine(c, context)), ''];
  });
}

/**
 * The packages that carry the contract to the API's users: the spec, its types and the client. Their notes
 * are the API's changelog; the toolchain's own packages (sandbox, contract kit, mock) keep theirs in their
 * CHANGELOG.md files, which a reader of the API has no use for (docs QA: the page read as internal notes).
 */
const CONTRACT_PACKAGES: ReadonlySet<string> = new Set(['@payments/spec', '@payments/types', '@payments/client']);

const releasesContract = (cs: PendingChangeset) => [...cs.releases.keys()].some((name) => CONTRACT_PACKAGES.has(name));

function changesetLine(cs: PendingChangeset): string {
  const packages = [...cs.releases].filter(([name]) => CONTRACT_PACKAGES.has(name)).map(([name, bump]) => `\`${name}\` ${bump}`).join(', ');
  const first = cs.summary.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  return `- ${packages || 'no release'}: ${first}`;
}

function notesMarkdown(releases: PackageRelease[]): string[] {
  return releases.filter((r) => CONTRACT_PACKAGES.has(r.name)).flatMap((r) => [
    `**${r.name} ${r.version}**`,
    '',
    ...[...r.notes].flatMap(([heading, notes]) => [`*${heading}*`, '', ...notes.map((n) => `- ${n}`), '']),
  ]);
}

export interface ChangelogInput {
  doc: OpenApiDocument;
  unreleased: Change[];
  pending: PendingChangeset[];
  history: ReleaseRecord[];
  packages: PackageRelease[];
  /** The last released spec (the gate's baseline): where the pointers of removals under Unreleased are. */
  released?: JsonObject | undefined;
}

export function changelogMarkdown({ doc, unreleased, pending, history, packages, released }: ChangelogInput): string {
  const routes = new Map(
    operations(doc).map(({ method, path, operationId, operation }) => {
      const tag = Array.isArray(operation.tags) ? String(operation.tags[0]) : '';
      return [`${method.toUpperCase()} ${path}`, operationRoute(tag, operationId)] as const;
    }),
  );
  // While `npm run release` rebuilds, the release is recorded but the baseline not yet moved: its changes
  // belong to that release, not to Unreleased.
  const same = (a: Change, b: Change) => a.kind === b.kind && a.pointer === b.pointer && a.message === b.message;
  const pendingChanges = unreleased.filter((c) => !(history[0]?.changes ?? []).some((r) => same(r, c)));
  const contractPending = pending.filter(releasesContract);
  const lines = [
    'What changed in the API, per release: breaking changes first, then what was added, changed and removed, each said for the operations it reaches (linked to their pages); then the packages\' release notes.',
    '',
    '### Unreleased',
    '',
    'The current spec compared with the last released one.',
    '',
    ...changesMarkdown(pendingChanges, { routes, newDoc: doc as unknown as JsonObject, oldDoc: released }),
    '**Release notes of the next versions** (the changesets of the spec, the types and the client, not yet released; the sandbox\'s, the contract kit\'s and the mock\'s are in their CHANGELOG.md files)',
    '',
    ...(contractPending.length === 0 ? ['None.'] : contractPending.map(changesetLine)),
    '',
  ];
  const recorded = new Set(history.flatMap((r) => Object.entries(r.versions).map(([name, version]) => `${name}@${version}`)));
  for (const release of history) {
    const label = Object.entries(release.versions).map(([name, version]) => `${name} ${version}`).join(', ');
    lines.push(`### Release of ${release.date.slice(0, 10)}`, '', label, '', ...changesMarkdown(release.changes, { routes }));
    lines.push(...notesMarkdown(packages.filter((p) => release.versions[p.name] === p.version)));
  }
  const unrecorded = packages.filter((p) => !recorded.has(`${p.name}@${p.version}`));
  if (unrecorded.length > 0) lines.push('### Earlier releases', '', 'Released before the gate\'s report was recorded: the changesets\' notes only.', '', ...notesMarkdown(unrecorded));
  if (history.length === 0 && packages.length === 0) {
    lines.push('### Releases', '', 'None yet: every package is at its first version, and the released spec (the baseline) is the first contract.', '');
  }
  return lines.join('\n');
}

/** The changelog of this repository, as the docs build renders it. */
export function changelogFromRepository(doc: OpenApiDocument): string {
  const released = existsSync(baselinePath) ? (JSON.parse(readFileSync(baselinePath, 'utf8')) as JsonObject) : undefined;
  return changelogMarkdown({ doc, unreleased: unreleasedChanges().changes, pending: readChangesets(changesetDir), history: readReleaseHistory(), packages: packageReleases(), released });
}
