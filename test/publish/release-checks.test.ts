// What a release refuses before it builds or publishes anything (release QA): a changeset naming
// @payments/spec (its version is info.version), an info.version change that leaves the spec's dependents
// unreleased (their registry versions would keep the old contract), nothing to release, a contract change
// without a new info.version; and the registry it says it publishes to is the one npm uses for @payments.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseChangeset } from '../../tools/lib/breaking/changesets.ts';
import { changesetDir } from '../../tools/lib/breaking/gate.ts';
import { readChangesets } from '../../tools/lib/breaking/changesets.ts';
import { compareVersions, releaseProblems, releaseState, specChangelogSection, unversionedContractChange, type ReleaseState } from '../../tools/lib/release-checks.ts';
import { registryArgs } from '../../tools/lib/release.ts';

const changeset = (file: string, front: string) => parseChangeset(`---\n${front}\n---\n\nA change.\n`, file);
const state = (over: Partial<ReleaseState>): ReleaseState => ({
  specVersion: '1.0.0',
  infoVersion: '1.0.0',
  changesets: [changeset('a.md', "'@payments/types': minor")],
  specDependents: ['@payments/sandbox', '@payments/contract-kit', '@payments/mock'],
  ...over,
});

describe('the release checks', () => {
  it('pass a release of types with the contract version unchanged', () => {
    expect(releaseProblems(state({}))).toEqual([]);
  });

  it('refuse a changeset that names @payments/spec, naming the file', () => {
    const problems = releaseProblems(state({ changesets: [changeset('.changeset/memo.md', "'@payments/spec': minor\n'@payments/types': minor")] }));
    expect(problems).toEqual([expect.stringMatching(/^\.changeset\/memo\.md names @payments\/spec, whose version is the document's info\.version/)]);
  });

  it('refuse a new info.version while a dependent of the spec is not released, naming it', () => {
    const changesets = [changeset('b.md', "'@payments/types': minor\n'@payments/sandbox': patch\n'@payments/mock': patch")];
    expect(releaseProblems(state({ infoVersion: '2.0.0', changesets }))).toEqual([
      'info.version moves @payments/spec from 1.0.0 to 2.0.0, and @payments/contract-kit depends on it: add a changeset releasing it (patch at least), or the version already published keeps the old contract',
    ]);
    const all = [changeset('c.md', "'@payments/sandbox': patch\n'@payments/contract-kit': patch\n'@payments/mock': patch")];
    expect(releaseProblems(state({ infoVersion: '2.0.0', changesets: all }))).toEqual([]);
  });

  it('refuse a release with nothing to release', () => {
    expect(releaseProblems(state({ changesets: [] }))).toEqual([expect.stringMatching(/^nothing to release: .*--publish-only/)]);
  });

  it('refuse a contract that changed while info.version did not, or broke while its major did not', () => {
    expect(unversionedContractChange(6, 0, '1.0.0', '1.0.0')).toMatch(/^the contract changed since the last release \(6 changes, listed above\) but info\.version is still 1\.0\.0: raise it/);
    expect(unversionedContractChange(6, 0, '1.0.0', '1.1.0')).toBeUndefined();
    expect(unversionedContractChange(0, 0, '1.0.0', '1.0.0')).toBeUndefined();
    expect(unversionedContractChange(3, 1, '2.1.0', '2.2.0')).toBe('1 breaking change (listed above) and info.version 2.2.0 keeps the major version of 2.1.0: raise it to 3.0.0 at least');
    expect(unversionedContractChange(3, 1, '2.1.0', '3.0.0')).toBeUndefined();
  });

  it('refuse an info.version lower than the released one (npm refused it only after the repository was versioned)', () => {
    const changesets = [changeset('d.md', "'@payments/sandbox': patch\n'@payments/contract-kit': patch\n'@payments/mock': patch")];
    expect(releaseProblems(state({ specVersion: '2.1.0', infoVersion: '1.5.0', changesets }))).toEqual([
      "info.version 1.5.0 is lower than @payments/spec's released 2.1.0: a contract version only goes up (npm would refuse it after the repository was versioned)",
    ]);
    expect(compareVersions('1.10.0', '1.9.3')).toBeGreaterThan(0);
  });

  it("pass this repository's pending changesets and info.version", () => {
    expect(releaseProblems(releaseState(readChangesets(changesetDir)))).toEqual([]);
  });

  it("write the spec's CHANGELOG section from the gate's changes, breaking ones first", () => {
    const section = specChangelogSection('2.0.0', '1.1.0', [
      { breaking: false, line: '- POST /v1/banking/transfers (201 response): new field `memo`.' },
      { breaking: true, line: '- **Breaking** · POST /v1/banking/transfers (201 response): field `recipientId` removed.' },
    ]);
    expect(section).toBe(
      "## 2.0.0\n\nThe contract's version 2.0.0 (was 1.1.0). Its changes, as the breaking-change gate found them (migration notes: the CHANGELOGs of @payments/types and @payments/client):\n\n" +
        '- **Breaking** · POST /v1/banking/transfers (201 response): field `recipientId` removed.\n- POST /v1/banking/transfers (201 response): new field `memo`.\n',
    );
  });
});

describe("the release's registry", () => {
  const dir = mkdtempSync(join(tmpdir(), 'release-registry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is npm's registry for @payments too when the user's .npmrc maps the scope elsewhere", () => {
    const npmrc = join(dir, 'npmrc');
    writeFileSync(npmrc, '@payments:registry=http://127.0.0.1:1/\n'); // a company's own registry for the scope
    const get = (args: string[]) =>
      spawnSync('npm', ['config', 'get', '@payments:registry', ...args], { encoding: 'utf8', env: { ...process.env, NPM_CONFIG_USERCONFIG: npmrc } }).stdout.trim();
    expect(get(['--registry', 'http://127.0.0.1:2/'])).toBe('http://127.0.0.1:1/'); // what --registry alone gave: the scope's
    expect(get(registryArgs('http://127.0.0.1:2/'))).toBe('http://127.0.0.1:2/');
  });
});
