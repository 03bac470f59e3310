// Reading pending changesets (.changeset/*.md front matter) and the repository's changesets configuration.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseChangeset, plannedBumps, readChangesets } from '../../tools/lib/breaking/changesets.ts';
import { root } from '../../tools/lib/paths.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'changesets-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('a changeset file', () => {
  it('maps package names to bumps, quoted either way, and keeps the summary', () => {
    const cs = parseChangeset(`---\n'@payments/types': major\n"@payments/client": minor\n---\n\nRemoved \`wallet_recipient_required\`.\n`, 'a.md');
    expect([...cs.releases]).toEqual([
      ['@payments/types', 'major'],
      ['@payments/client', 'minor'],
    ]);
    expect(cs.summary).toBe('Removed `wallet_recipient_required`.');
  });

  it('may be empty (changeset add --empty) and may use CRLF line ends', () => {
    expect(parseChangeset('---\n---\n', 'empty.md').releases.size).toBe(0);
    expect([...parseChangeset("---\r\n'@payments/spec': patch\r\n---\r\nFix.\r\n", 'crlf.md').releases]).toEqual([['@payments/spec', 'patch']]);
  });

  it('is refused with the file name when it has no front matter, bad YAML or an unknown bump', () => {
    expect(() => parseChangeset('just text', 'x.md')).toThrow('x.md: not a changeset');
    expect(() => parseChangeset("---\n'@payments/types': [\n---\n", 'y.md')).toThrow('y.md: the front matter is not YAML');
    expect(() => parseChangeset("---\n'@payments/types': huge\n---\n", 'z.md')).toThrow('z.md: "@payments/types" has bump "huge"');
    expect(() => parseChangeset('---\n- a\n---\n', 'w.md')).toThrow('w.md: the front matter must map package names to bump types');
  });
});

describe('pending changesets', () => {
  it('are the .md files of the folder except README.md; a missing folder has none', () => {
    const dir = tempDir({
      'README.md': '# Changesets\n',
      'config.json': '{}',
      'b.md': "---\n'@payments/client': major\n---\nB\n",
      'a.md': "---\n'@payments/types': minor\n---\nA\n",
    });
    expect(readChangesets(dir).map((cs) => cs.file)).toEqual([join(dir, 'a.md'), join(dir, 'b.md')]);
    expect(readChangesets(join(dir, 'missing'))).toEqual([]);
  });

  it('plan the highest bump per package across files, as `changeset version` applies them', () => {
    const dir = tempDir({
      'a.md': "---\n'@payments/types': minor\n'@payments/client': patch\n---\nA\n",
      'b.md': "---\n'@payments/types': major\n---\nB\n",
      'c.md': "---\n'@payments/types': patch\n---\nC\n",
    });
    expect(Object.fromEntries(plannedBumps(readChangesets(dir)))).toEqual({ '@payments/types': 'major', '@payments/client': 'patch' });
  });
});

describe('the repository’s changesets configuration', () => {
  const config = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8'));

  it('versions the published packages independently against main, with restricted access (issue 23: none is private)', () => {
    expect(config).toMatchObject({ baseBranch: 'main', access: 'restricted', fixed: [], linked: [], commit: false });
    for (const dir of ['spec', 'types', 'client', 'sandbox', 'contract-kit', 'mock']) {
      const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as { private?: boolean; publishConfig?: { access?: string } };
      expect(pkg.private, dir).toBeUndefined();
      expect(pkg.publishConfig?.access, dir).toBe('restricted');
    }
  });

  it('has no pending changeset that is not a changeset', () => {
    expect(() => readChangesets(join(root, '.changeset'))).not.toThrow();
  });
});
