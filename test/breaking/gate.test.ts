// The gate: the real bundle as the baseline, a changed copy as the spec, and a temporary changeset folder
// (never the repository's .changeset). Breaking changes fail with a readable report unless the pending
// changesets release both @payments/types and @payments/client as major.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BreakingChangeError, changeId, checkBreaking } from '../../tools/lib/breaking/gate.ts';
import { bundledJson, root } from '../../tools/lib/paths.ts';
import { StepError } from '../../tools/lib/steps.ts';
import type { Editable } from './fixtures.ts';

const text = readFileSync(bundledJson, 'utf8');
const spec = (): Editable => JSON.parse(text);

const REMOVED_CODE_POINTER = '/paths/~1v1~1banking~1transfers/post/responses/409/content/application~1json/examples/wallet_recipient_required';
const ADDED_FIELD_POINTER = '/components/schemas/TransferCreate/properties/memo';

function withoutErrorCode(): Editable {
  const doc = spec();
  delete doc.paths['/v1/banking/transfers'].post.responses['409'].content['application/json'].examples.wallet_recipient_required;
  return doc;
}

function withRequiredField(): Editable {
  const doc = spec();
  doc.components.schemas.TransferCreate.properties.memo = { type: 'string', maxLength: 140 };
  doc.components.schemas.TransferCreate.required.push('memo');
  return doc;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function changesetDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'gate-changesets-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'config.json'), '{}');
  writeFileSync(join(dir, 'README.md'), '# Changesets\n');
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

const MAJOR_BOTH = "---\n'@payments/types': major\n'@payments/client': major\n---\n\nRemoved a field.\n";

function failure(run: () => unknown): BreakingChangeError {
  try {
    run();
  } catch (err) {
    if (err instanceof BreakingChangeError) return err;
    throw err;
  }
  throw new Error('the gate passed');
}

describe('the breaking-change gate', () => {
  it('passes when nothing changed, with no changeset', () => {
    const result = checkBreaking({ spec: spec(), baseline: spec(), changesetDir: changesetDir() });
    expect(result.changes).toEqual([]);
    expect(result.report).toContain('No changes to the contract.');
    expect(result.report).toContain('PASS: no breaking change.');
  });

  it('passes a non-breaking change with no changeset, and reports it', () => {
    const changed = spec();
    changed.components.schemas.Transfer.properties.note = { type: 'string', maxLength: 140 };
    const result = checkBreaking({ spec: changed, baseline: spec(), changesetDir: changesetDir() });
    expect(result.report).toContain('non-breaking  response-field-added  /components/schemas/Transfer/properties/note');
    expect(result.report).toContain('PASS: no breaking change.');
  });

  for (const [name, make, kind, pointer] of [
    ['a removed error code', withoutErrorCode, 'error-code-removed', REMOVED_CODE_POINTER],
    ['a new required request field', withRequiredField, 'request-field-added-required', ADDED_FIELD_POINTER],
  ] as const) {
    it(`fails on ${name} with a clear report`, () => {
      const err = failure(() => checkBreaking({ spec: make(), baseline: spec(), changesetDir: changesetDir() }));
      expect(err).toBeInstanceOf(StepError);
      expect(err.result.breaking.map((c) => [c.kind, c.pointer])).toEqual([[kind, pointer]]);
      expect(err.message).toContain(`BREAKING      ${kind}  ${pointer}`);
      expect(err.message).toContain('why: ');
      expect(err.message).toContain(
        'FAIL: 1 breaking change, and the pending changesets in ' +
          `${err.message.match(/pending changesets in (\S+)/)?.[1]} do not release both @payments/types and @payments/client as major ` +
          '(planned: @payments/types none, @payments/client none).',
      );
      expect(err.message).toContain("'@payments/types': major\n'@payments/client': major");
    });

    it(`passes ${name} with a changeset releasing types and client as major`, () => {
      const dir = changesetDir({ 'breaking-contract.md': MAJOR_BOTH });
      const result = checkBreaking({ spec: make(), baseline: spec(), changesetDir: dir });
      expect(result.majorRelease).toBe(true);
      expect(result.breaking.map((c) => c.kind)).toEqual([kind]);
      expect(result.report).toContain(`BREAKING      ${kind}  ${pointer}`);
      expect(result.report).toContain('PASS: 1 breaking change, released as major by the pending changesets (@payments/types major, @payments/client major:');
      expect(result.report).toContain('breaking-contract.md');
    });
  }

  it('fails when only one of the packages is major, or both are only minor', () => {
    for (const body of [
      "---\n'@payments/types': major\n---\nTypes only.\n",
      "---\n'@payments/types': major\n'@payments/client': minor\n---\nClient minor.\n",
      "---\n'@payments/types': minor\n'@payments/client': minor\n---\nBoth minor.\n",
      "---\n'@payments/spec': major\n---\nThe wrong package.\n",
    ]) {
      const err = failure(() => checkBreaking({ spec: withoutErrorCode(), baseline: spec(), changesetDir: changesetDir({ 'x.md': body }) }));
      expect(err.message).toContain('FAIL: 1 breaking change');
    }
  });

  it('counts majors across pending changesets, as the release applies them', () => {
    const dir = changesetDir({
      'types.md': "---\n'@payments/types': major\n---\nTypes.\n",
      'client.md': "---\n'@payments/client': major\n---\nClient.\n",
    });
    expect(checkBreaking({ spec: withoutErrorCode(), baseline: spec(), changesetDir: dir }).majorRelease).toBe(true);
  });

  it('says how to get a missing baseline or bundle', () => {
    const dir = changesetDir();
    expect(() => checkBreaking({ spec: spec(), baseline: join(dir, 'nope.json'), changesetDir: dir })).toThrow(
      /No baseline \(the spec of the last release\) at .*nope\.json: write it from the bundle with `node tools\/launch.mjs breaking --write-baseline`/,
    );
    expect(() => checkBreaking({ spec: join(dir, 'nope.json'), baseline: spec(), changesetDir: dir })).toThrow(/No bundled spec at .*: run `npm run build` first/);
  });

  // Issue 14: the gate compared no security, operationIds or pattern inclusion.
  describe('security, operationIds and patterns (issue 14)', () => {
    const SCHEME = '/components/securitySchemes/ApiKeyAuth';
    const renamedHeader = () => {
      const doc = spec();
      doc.components.securitySchemes.ApiKeyAuth.name = 'x-payments-key';
      return doc;
    };

    it('fails a renamed API-key header without a major changeset, with a report naming the pointer and why', () => {
      const err = failure(() => checkBreaking({ spec: renamedHeader(), baseline: spec(), changesetDir: changesetDir() }));
      expect(err.result.breaking.map((c) => [c.kind, c.pointer])).toEqual([['security-scheme-changed', `${SCHEME}/name`]]);
      expect(err.message).toContain(`BREAKING      security-scheme-changed  ${SCHEME}/name`);
      expect(err.message).toContain('security scheme ApiKeyAuth: name "x-api-key" → "x-payments-key"');
      expect(err.message).toContain('where: GET /v1/banking/balance; POST /v1/banking/recipients;');
      expect(err.message).toContain('every request is 401');
      expect(err.message).toContain('FAIL: 1 breaking change');
    });

    it('passes a renamed API-key header with a changeset releasing both packages as major', () => {
      const result = checkBreaking({ spec: renamedHeader(), baseline: spec(), changesetDir: changesetDir({ 'header.md': MAJOR_BOTH }) });
      expect(result.breaking.map((c) => c.kind)).toEqual(['security-scheme-changed']);
      expect(result.report).toContain('PASS: 1 breaking change, released as major');
    });

    it('fails a global requirement switched to a bearer scheme', () => {
      const doc = spec();
      doc.components.securitySchemes.BearerAuth = { type: 'http', scheme: 'bearer' };
      doc.security = [{ BearerAuth: [] }];
      const err = failure(() => checkBreaking({ spec: doc, baseline: spec(), changesetDir: changesetDir() }));
      expect(err.result.breaking.map((c) => [c.kind, c.pointer])).toEqual([['security-requirement-tightened', '/security']]);
      expect(err.message).toContain('security ApiKeyAuth → BearerAuth: ApiKeyAuth no longer accepted');
    });

    it('fails a renamed operationId (the consumer fixture uses ErrorCode<\'createTransfer\'>)', () => {
      const doc = spec();
      doc.paths['/v1/banking/transfers'].post.operationId = 'createPayout';
      const err = failure(() => checkBreaking({ spec: doc, baseline: spec(), changesetDir: changesetDir() }));
      expect(err.result.breaking.map((c) => [c.kind, c.pointer])).toEqual([['operation-id-changed', '/paths/~1v1~1banking~1transfers/post/operationId']]);
      expect(err.message).toContain('operationId "createTransfer" → "createPayout"');
    });

    const KEY_PATTERN = '/components/parameters/CheckoutIdempotencyKey/schema/pattern';
    const withKeyPattern = (pattern: string) => {
      const doc = spec();
      doc.components.parameters.CheckoutIdempotencyKey.schema.pattern = pattern;
      return doc;
    };

    it('passes a provably widened request pattern with no changeset', () => {
      const result = checkBreaking({ spec: withKeyPattern('^(?:[A-Za-z0-9._:-]{8,200}|[0-9a-f-]{36})$'), baseline: spec(), changesetDir: changesetDir() });
      expect(result.changes.map((c) => [c.kind, c.pointer, c.breaking])).toEqual([['request-pattern-widened', KEY_PATTERN, false]]);
      expect(result.report).toContain('PASS: no breaking change.');
    });

    it('fails an undecidable pattern change until a changeset acknowledges that pointer; never asks for a major', () => {
      const doc = withKeyPattern('^[A-Za-z0-9._:~-]{8,200}$');
      const err = failure(() => checkBreaking({ spec: doc, baseline: spec(), changesetDir: changesetDir() }));
      expect(err.result.breaking).toEqual([]);
      expect(err.result.unreviewed.map((c) => [c.kind, c.pointer])).toEqual([['request-pattern-changed', KEY_PATTERN]]);
      expect(err.message).toContain(`NEEDS REVIEW  request-pattern-changed  ${KEY_PATTERN}`);
      const id = changeId(err.result.unreviewed[0]!);
      expect(id).toMatch(/^[0-9a-f]{8}$/);
      expect(err.message).toContain(`Reviewed: ${KEY_PATTERN} (${id}): <why every value accepted before still is>`);
      expect(err.message).not.toContain('FAIL: 1 breaking change');

      const other = "---\n'@payments/types': patch\n---\n\nReviewed: /components/schemas/Nickname/pattern (0123abcd): another change.\n";
      failure(() => checkBreaking({ spec: doc, baseline: spec(), changesetDir: changesetDir({ 'other.md': other }) }));

      const ack = `---\n'@payments/types': patch\n---\n\nCheckout keys may contain \`~\`.\n\nReviewed: \`${KEY_PATTERN}\` (${id}): the class only gained \`~\`.\n`;
      const result = checkBreaking({ spec: doc, baseline: spec(), changesetDir: changesetDir({ 'tilde.md': ack }) });
      expect(result.unreviewed).toEqual([]);
      expect(result.report).toContain(`PASS: no breaking change; reviewed in changesets: ${KEY_PATTERN}`);
    });

    it('holds a review to the change it reviewed: a later narrowing at the same pointer, or a line without the id, fails again (release QA)', () => {
      const widened = withKeyPattern('^[A-Za-z0-9._:~-]{8,200}$');
      const id = changeId(failure(() => checkBreaking({ spec: widened, baseline: spec(), changesetDir: changesetDir() })).result.unreviewed[0]!);
      const ack = `---\n'@payments/types': patch\n---\n\nReviewed: \`${KEY_PATTERN}\` (${id}): the class only gained \`~\`.\n`;
      const narrowed = withKeyPattern('^[A-Za-z0-9]{8,200}$'); // `cart-7781:session` no longer passes
      const err = failure(() => checkBreaking({ spec: narrowed, baseline: spec(), changesetDir: changesetDir({ 'tilde.md': ack }) }));
      expect(err.result.unreviewed.map((c) => c.pointer)).toEqual([KEY_PATTERN]);
      expect(err.message).toMatch(new RegExp(`tilde\\.md reviewed ${KEY_PATTERN.replaceAll('/', '\\/')} \\(${id}\\), another change than this one \\([0-9a-f]{8}\\)`));

      const bare = `---\n'@payments/types': patch\n---\n\nReviewed: \`${KEY_PATTERN}\`: no id.\n`;
      const noId = failure(() => checkBreaking({ spec: widened, baseline: spec(), changesetDir: changesetDir({ 'bare.md': bare }) }));
      expect(noId.message).toContain(`reviewed ${KEY_PATTERN} without the change's id`);
    });
  });

  it('runs as a task: exit 1 with the report, exit 0 once a major changeset is pending', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-task-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'new.json'), JSON.stringify(withRequiredField()));
    const changesets = join(dir, 'changesets');
    mkdirSync(changesets);
    const env = { ...process.env };
    delete env.VITEST; // the task's log lines are silenced under vitest
    const run = () =>
      spawnSync(process.execPath, [join(root, 'tools/tasks/breaking.ts'), '--spec', join(dir, 'new.json'), '--baseline', bundledJson, '--changeset-dir', changesets], {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    const failed = run();
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain('✗ breaking-change check failed:');
    expect(failed.stderr).toContain(`BREAKING      request-field-added-required  ${ADDED_FIELD_POINTER}`);

    writeFileSync(join(changesets, 'memo.md'), MAJOR_BOTH);
    const passed = run();
    expect(passed.stderr).toBe('');
    expect(passed.status).toBe(0);
    expect(passed.stdout).toContain('PASS: 1 breaking change, released as major');
  });
});
