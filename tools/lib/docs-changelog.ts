// The docs' API changelog (a guide page, "Changelog"): per release, what changed in the contract (breaking,
// added, changed, removed), read from the breaking-change gate's report, and what the changesets say.
//
//   Unreleased  = the gate's comparison of the bundle with the last released spec (checkBreaking(), even
//                 when it fails: its report is still the list of changes) + the pending changesets.
//   Releases    = openapi/released/history.json (the gate's changes recorded by `npm run release` for each
//                 release, see recordRelease()) + the packages' CHANGELOG.md sections of those versions;
//                 a version found only in a CHANGELOG.md is listed with its changeset notes.
//
// JSON pointers become links to the operations that reach them (Redoc's #/<tag>/<operationid> routes).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations, type OpenApiDocument } from '@payments/spec';
import { type PendingChangeset, readChangesets } from './breaking/changesets.ts';
import type { Change } from './breaking/compare.ts';
import { BreakingChangeError, changesetDir, checkBreaking, type GateResult } from './breaking/gate.ts';
import { operationRoute } from './docs-console.ts';
import { root } from './paths.ts';

export const releaseHistoryPath = join(root, 'openapi', 'released', 'history.json');

export interface ReleaseRecord {
  /** Package name → the version this release gave it. */
  versions: Record<string, string>;
  date: string;
  /** The gate's changes between the previous release and this one. */
  changes: Change[];
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

const escapeMd = (text: string) => text.replace(/[\\`*_[\]<]/g, (c) => `\\${c}`).replace(/\n/g, ' ');
/** A message holds patterns and values (`*`, `_`, `|`): shown as code, not read as Markdown. */
const codeSpan = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``).replace(/\n/g, ' ');

/** "GET /v1/banking/balance response 200" → a link on its operation part, when the operation exists. */
function linkedWhere(where: string, routes: Map<string, string>): string {
  const match = /^([A-Z]+ \S+)(.*)$/.exec(where);
  const route = match ? routes.get(match[1]!) : undefined;
  return route ? `[${match![1]}](#${route})${escapeMd(match![2]!)}` : escapeMd(where);
}

/** The route of the first operation a change reaches (its `where` starts with "METHOD /path"). */
function firstRoute(change: Change, routes: Map<string, string>): string | undefined {
  for (const where of change.where) {
    const route = routes.get(/^[A-Z]+ \S+/.exec(where)?.[0] ?? '');
    if (route) return route;
  }
  return undefined;
}

/**
 * The gate's message in words where it names a missing side: "response exclusiveMinimum 0 → undefined" is
 * "response exclusiveMinimum 0 removed", "undefined → 3" an addition.
 */
export function readableMessage(message: string): string {
  const removed = /^(.*) → undefined$/.exec(message);
  if (removed) return `${removed[1]} removed`;
  const added = /^(.*?)\bundefined → (.*)$/.exec(message);
  return added ? `${added[1]}${added[2]} added` : message;
}

function changeLine(change: Change, routes: Map<string, string>): string {
  const where = change.where.map((w) => linkedWhere(w, routes)).join('; ');
  const side = change.side === 'old' ? ' (in the previous release)' : '';
  const route = firstRoute(change, routes);
  const pointer = route ? `[\`${change.pointer}\`](#${route})` : `\`${change.pointer}\``;
  return `- ${pointer}${side}: ${codeSpan(readableMessage(change.message))}. In ${where}. *${change.breaking ? 'Breaking' : change.review ? 'Needs review' : 'Not breaking'}: ${change.why}.*`;
}

function changesMarkdown(changes: Change[], routes: Map<string, string>): string[] {
  if (changes.length === 0) return ['No change to the contract.', ''];
  return CATEGORIES.flatMap((category) => {
    const own = changes.filter((c) => categoryOf(c) === category);
    // Bold, not a heading: Redoc makes every heading a sidebar entry (and "Changed" would repeat per release).
    return own.length === 0 ? [] : [`**${category}**`, '', ...own.map((c) => changeLine(c, routes)), ''];
  });
}

function changesetLine(cs: PendingChangeset): string {
  const packages = [...cs.releases].map(([name, bump]) => `\`${name}\` ${bump}`).join(', ');
  const first = cs.summary.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  return `- ${packages || 'no release'}: ${first}`;
}

function notesMarkdown(releases: PackageRelease[]): string[] {
  return releases.flatMap((r) => [
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
}

export function changelogMarkdown({ doc, unreleased, pending, history, packages }: ChangelogInput): string {
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
  const lines = [
    'What changed in the contract, per release: breaking, added, changed and removed, with the place of each change in the spec ([openapi.json](../openapi.json)) and links to the operations it reaches; and the release notes.',
    '',
    '### Unreleased',
    '',
    'The current spec compared with the last released one.',
    '',
    ...changesMarkdown(pendingChanges, routes),
    '**Pending changesets**',
    '',
    ...(pending.length === 0 ? ['None.'] : pending.map(changesetLine)),
    '',
  ];
  const recorded = new Set(history.flatMap((r) => Object.entries(r.versions).map(([name, version]) => `${name}@${version}`)));
  for (const release of history) {
    const label = Object.entries(release.versions).map(([name, version]) => `${name} ${version}`).join(', ');
    lines.push(`### Release of ${release.date.slice(0, 10)}`, '', label, '', ...changesMarkdown(release.changes, routes));
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
  return changelogMarkdown({ doc, unreleased: unreleasedChanges().changes, pending: readChangesets(changesetDir), history: readReleaseHistory(), packages: packageReleases() });
}
