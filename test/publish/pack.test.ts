// What a release would ship: pack every published package (after the build) and check the tarballs hold only
// the built package (package.json, README.md, LICENSE, CHANGELOG.md, the bin shims, dist/ with the compiled
// code and the documents it serves), no secrets, and a package.json with every `workspace:` range rewritten to
// a version and `exports` pointing at dist/ (publishConfig applied).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, type PackedPackage } from '../../tools/lib/pack.ts';
import { root } from '../../tools/lib/paths.ts';
import { tarballProblems, type Manifest } from '../../tools/lib/release.ts';

const ALLOWED = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|node-flags\.json|bin\/[a-z-]+\.js|dist\/.+\.(js|d\.ts)|dist\/[a-z-]+\.(json|yaml)|dist\/workflows\/([a-z0-9-]+\.arazzo\.yaml|index\.json)|dist\/docs\/(index\.html\.(br|gz)|favicon\.ico)|dist\/examples\/[a-z-]+\.py)$/;
const NAMES = ['spec', 'types', 'client', 'sandbox', 'contract-kit', 'mock'] as const;
const LIVE_KEY = /svc_live_[A-Za-z0-9]{16,}/g;
// The admin document's example of a created key (openapi-admin/components/examples/responses/api_key_created.yaml)
// is documentation, shipped with @payments/spec; any other key-shaped string is a leak.
const DOCUMENTED_KEYS = new Set(readFileSync(join(root, 'openapi-admin', 'components', 'examples', 'responses', 'api_key_created.yaml'), 'utf8').match(LIVE_KEY) ?? []);
const PRIVATE_KEY = /BEGIN .*PRIVATE KEY/;

const out = mkdtempSync(join(tmpdir(), 'payments-pack-'));
const packed: Record<string, PackedPackage> = {};

beforeAll(async () => {
  for (const name of NAMES) packed[name] = await packPackage(`packages/${name}`, out);
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A file of the tarball, as text. */
const read = (tarball: string, file: string) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

describe.each(NAMES)('the @payments/%s tarball', (name) => {
  it('holds only package.json, README.md, LICENSE, CHANGELOG.md, bin/ and the built dist/', () => {
    const { files } = packed[name]!;
    expect(files.filter((f) => !ALLOWED.test(f))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']));
    // Nothing of the sources, tests, maps or local config slipped in under dist/ either.
    expect(files.filter((f) => /(^|\/)(src|test|tests|__tests__)\/|\.test\.|\.spec\.|\.map$|\.tsbuildinfo$|(^|\/)\.env|\.(pem|key|p12)$|\.ts$(?<!\.d\.ts)/.test(f))).toEqual([]);
  });

  it('has no API key or private key in any file', () => {
    const { tarball, files } = packed[name]!;
    const leaks = files.filter((f) => {
      const text = read(tarball, f);
      return (text.match(LIVE_KEY) ?? []).some((key) => !DOCUMENTED_KEYS.has(key)) || PRIVATE_KEY.test(text);
    });
    expect(leaks).toEqual([]);
  });

  it('its package.json has no workspace: range left, and points at the built files', () => {
    const { tarball } = packed[name]!;
    const text = read(tarball, 'package.json');
    expect(text).not.toContain('workspace:');
    const pkg = JSON.parse(text);
    expect(pkg.name).toBe(`@payments/${name}`);
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('UNLICENSED');
    // The mock runs Prism 5.16, which needs Node 24.18 (its command says so on 22); the others run on 22.13 too.
    expect(pkg.engines.node).toBe(name === 'mock' ? '^24.18 || >=26' : '^22.13 || ^24 || >=26');
    expect(pkg.repository.directory).toBe(`packages/${name}`);
    for (const target of Object.values<string>(pkg.bin ?? {})) expect(packed[name]!.files).toContain(target.replace(/^\.\//, ''));
  });
});

describe('the client tarball', () => {
  it('depends on @payments/types at the version it was built with, and on openapi-fetch', () => {
    const pkg = JSON.parse(read(packed.client!.tarball, 'package.json'));
    const types = JSON.parse(read(packed.types!.tarball, 'package.json'));
    expect(pkg.dependencies['@payments/types']).toBe(`^${types.version}`);
    expect(pkg.dependencies['openapi-fetch']).toMatch(/^\^?\d+\.\d+\.\d+$/);
  });

  it('imports nothing from node: (it runs on Deno, Bun and edge runtimes too)', () => {
    const { tarball, files } = packed.client!;
    const nodeImports = files.filter((f) => f.endsWith('.js') && /from\s+['"]node:|import\(\s*['"]node:|require\(/.test(read(tarball, f)));
    expect(nodeImports).toEqual([]);
  });
});

describe("the release's tarball check (tools/lib/release.ts), which stops the release before anything is published", () => {
  it('passes the real sandbox tarball', async () => {
    const pkg = packed.sandbox!;
    const manifest = JSON.parse(read(pkg.tarball, 'package.json')) as Manifest;
    expect(await tarballProblems({ ...pkg, dir: 'sandbox', manifest })).toEqual([]);
  });

  it('names every defect of a bad one: private, no engines, a missing CHANGELOG and bin, a test file shipped', async () => {
    const pkg = packed.sandbox!;
    const manifest = { ...(JSON.parse(read(pkg.tarball, 'package.json')) as Manifest), private: true, engines: {} };
    const files = [...pkg.files.filter((f) => f !== 'CHANGELOG.md' && !f.startsWith('bin/')), 'test/api.test.js'];
    expect(await tarballProblems({ ...pkg, files, dir: 'sandbox', manifest })).toEqual([
      'package.json says "private": true',
      'package.json has no engines.node',
      'missing CHANGELOG.md',
      'missing bin/payments-sandbox.js',
      'ships test/api.test.js',
    ]);
  });

  it("refuses a spec whose version is not the document's info.version", async () => {
    const pkg = packed.spec!;
    const manifest = { ...(JSON.parse(read(pkg.tarball, 'package.json')) as Manifest), version: '0.0.1' };
    expect(await tarballProblems({ ...pkg, dir: 'spec', manifest })).toEqual([expect.stringMatching(/^version 0\.0\.1 is not the document's info\.version /)]);
  });
});
