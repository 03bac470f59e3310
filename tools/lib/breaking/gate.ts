// The breaking-change gate: the bundled spec (packages/spec/dist/openapi.json) against the spec of the last
// release (openapi/released/openapi.json, the baseline). It passes when nothing breaks, or when the pending
// changesets release BOTH @payments/types and @payments/client as `major`; otherwise it throws
// BreakingChangeError with the report. A change that needs review (a rule with `review: true`) passes when a
// pending changeset acknowledges it by pointer and id (`Reviewed: <pointer> (<id>)`, see changesets.ts) or in
// a major release; never silently.
//
// The baseline is a committed file, not git history: CI clones may be shallow, and a file is one diff away
// from review. The release step rewrites it from the bundle (writeBaseline(), or
// `node tools/launch.mjs breaking --write-baseline`) right after `changeset version` has consumed the
// changesets, so the next comparison starts from what was released.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { bundledJson, root } from '../paths.ts';
import { StepError } from '../steps.ts';
import { plannedBumps, readChangesets, type Bump } from './changesets.ts';
import { compareDocuments, type Change } from './compare.ts';
import { isObject, type JsonObject } from './json.ts';
import { formatChanges } from './report.ts';

export const baselinePath = join(root, 'openapi', 'released', 'openapi.json');
export const changesetDir = join(root, '.changeset');
/** The packages whose consumers a breaking contract change breaks: both must be released as major. */
export const MAJOR_PACKAGES = ['@payments/types', '@payments/client'] as const;

export interface GateOptions {
  /** The spec to check: a path or a parsed document (default: the bundle, packages/spec/dist/openapi.json). */
  spec?: string | JsonObject;
  /** The last released spec: a path or a parsed document (default: openapi/released/openapi.json). */
  baseline?: string | JsonObject;
  /** Where pending changesets are (default: .changeset). */
  changesetDir?: string;
}

export interface GateResult {
  changes: Change[];
  breaking: Change[];
  /** Changes that need review and that no pending changeset acknowledges. */
  unreviewed: Change[];
  /** The bump each package gets from the pending changesets. */
  bumps: Map<string, Bump>;
  /** Whether the pending changesets release every MAJOR_PACKAGES package as major. */
  majorRelease: boolean;
  report: string;
}

export class BreakingChangeError extends StepError {
  readonly result: GateResult;
  constructor(result: GateResult) {
    super('breaking-change check', result.report);
    this.result = result;
  }
}

const shown = (path: string) => {
  const rel = relative(root, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel;
};

function load(input: string | JsonObject, what: string, missingHint: string): { doc: JsonObject; label: string } {
  if (typeof input !== 'string') return { doc: input, label: `(${what} given in memory)` };
  let text: string;
  try {
    text = readFileSync(input, 'utf8');
  } catch {
    throw new StepError('breaking-change check', `No ${what} at ${shown(input)}: ${missingHint}`);
  }
  const doc: unknown = JSON.parse(text);
  if (!isObject(doc)) throw new StepError('breaking-change check', `${shown(input)} is not an OpenAPI document (a JSON object)`);
  return { doc, label: shown(input) };
}

/** A change's id: the first 8 hex digits of a SHA-256 of its rule, pointer and message (which holds the old and new value). */
export const changeId = (c: Pick<Change, 'kind' | 'pointer' | 'message'>): string => createHash('sha256').update(`${c.kind}\n${c.pointer}\n${c.message}`).digest('hex').slice(0, 8);

/** Compares, prints nothing, returns the result when the gate passes; throws BreakingChangeError when it fails. */
export function checkBreaking(options: GateOptions = {}): GateResult {
  const spec = load(options.spec ?? bundledJson, 'bundled spec', 'run `npm run build` first.');
  const baseline = load(options.baseline ?? baselinePath, 'baseline (the spec of the last release)', 'write it from the bundle with `node tools/launch.mjs breaking --write-baseline`.');
  const dir = options.changesetDir ?? changesetDir;
  const changes = compareDocuments(baseline.doc, spec.doc);
  const breaking = changes.filter((c) => c.breaking);
  const changesets = readChangesets(dir);
  const bumps = plannedBumps(changesets);
  const majorRelease = MAJOR_PACKAGES.every((name) => bumps.get(name) === 'major');
  const planned = MAJOR_PACKAGES.map((name) => `${name} ${bumps.get(name) ?? 'none'}`).join(', ');
  const acknowledged = new Map(changesets.flatMap((cs) => cs.reviewed.map((r) => [`${r.pointer} ${r.id}`, shown(cs.file)] as const)));
  const review = changes.filter((c) => c.review);
  const unreviewed = majorRelease ? [] : review.filter((c) => !acknowledged.has(`${c.pointer} ${changeId(c)}`));
  // A line that names the pointer but another change (or none): said, so that it is not silently ignored.
  const stale = unreviewed.flatMap((c) =>
    changesets.flatMap((cs) => cs.reviewed.filter((r) => r.pointer === c.pointer).map((r) => `${shown(cs.file)} reviewed ${c.pointer} ${r.id ? `(${r.id}), another change than this one (${changeId(c)})` : 'without the change\'s id'}`)),
  );

  const lines = [`Breaking-change check: ${spec.label} against the last release ${baseline.label}`, '', formatChanges(changes), ''];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (breaking.length > 0 && majorRelease) {
    const files = changesets.filter((cs) => MAJOR_PACKAGES.some((name) => cs.releases.get(name) === 'major')).map((cs) => shown(cs.file));
    const alsoReview = review.length ? ` and ${plural(review.length, 'change')} needing review` : '';
    lines.push(`PASS: ${plural(breaking.length, 'breaking change')}${alsoReview}, released as major by the pending changesets (${planned}: ${files.join(', ')}).`);
  } else if (breaking.length > 0) {
    lines.push(
      `FAIL: ${plural(breaking.length, 'breaking change')}, and the pending changesets in ${shown(dir)} do not release both ` +
        `${MAJOR_PACKAGES.join(' and ')} as major (planned: ${planned}).`,
      'Undo the breaking changes, or add a changeset that releases both as major, e.g. .changeset/<name>.md:',
      '',
      '---',
      ...MAJOR_PACKAGES.map((name) => `'${name}': major`),
      '---',
      '',
      'What breaks for consumers and how they migrate.',
    );
  }
  if (unreviewed.length > 0) {
    if (breaking.length > 0) lines.push('');
    lines.push(
      `FAIL: ${plural(unreviewed.length, 'change')} the gate cannot decide, not acknowledged by a pending changeset. Check that each still accepts`,
      'every request valid before; then acknowledge it in a changeset (one line per change, its pointer, and why it is safe):',
      '',
      ...unreviewed.map((c) => `Reviewed: ${c.pointer} (${changeId(c)}): <why every value accepted before still is>`),
      '',
      'or, if it narrows what clients may send, release both packages as major.',
      ...(stale.length ? ['', 'Not counted (the id binds a review to the change it reviewed):', ...stale.map((line) => `  ${line}`)] : []),
    );
  }
  if (breaking.length === 0 && unreviewed.length === 0) {
    const reviewed = review.map((c) => `${c.pointer} (${acknowledged.get(`${c.pointer} ${changeId(c)}`)})`);
    lines.push(reviewed.length ? `PASS: no breaking change; reviewed in changesets: ${reviewed.join(', ')}.` : 'PASS: no breaking change.');
  }
  const result: GateResult = { changes, breaking, unreviewed, bumps, majorRelease, report: lines.join('\n') };
  if ((breaking.length > 0 && !majorRelease) || unreviewed.length > 0) throw new BreakingChangeError(result);
  return result;
}

/** Writes the baseline from the bundle (at a release): the bundle's bytes, after checking they are JSON. */
export function writeBaseline(from: string = bundledJson, to: string = baselinePath): string {
  load(from, 'bundled spec', 'run `npm run build` first.');
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
  return to;
}
