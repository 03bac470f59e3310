// What a release would ship: pack @payments/types and @payments/client (after the build) and check the
// tarballs hold only the built package (package.json, README.md, LICENSE, dist/**/*.{js,d.ts}), no secrets,
// and a package.json with every `workspace:` range rewritten to a version.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage, type PackedPackage } from '../../tools/lib/pack.ts';

const ALLOWED = /^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/;
const LIVE_KEY = /svc_live_[A-Za-z0-9]{16,}/;
const PRIVATE_KEY = /BEGIN .*PRIVATE KEY/;

const out = mkdtempSync(join(tmpdir(), 'payments-pack-'));
const packed: Record<string, PackedPackage> = {};

beforeAll(async () => {
  packed.types = await packPackage('packages/types', out);
  packed.client = await packPackage('packages/client', out);
}, 60_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** A file of the tarball, as text. */
const read = (tarball: string, file: string) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

describe.each(['types', 'client'])('the @payments/%s tarball', (name) => {
  it('holds only package.json, README.md, LICENSE and dist/**/*.{js,d.ts}', () => {
    const { files } = packed[name]!;
    expect(files.filter((f) => !ALLOWED.test(f))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']));
    // Nothing of the sources, tests, maps or local config slipped in under dist/ either.
    expect(files.filter((f) => /(^|\/)(src|test|tests|__tests__)\/|\.test\.|\.spec\.|\.map$|\.tsbuildinfo$|(^|\/)\.env|\.(pem|key|p12)$|\.ts$(?<!\.d\.ts)/.test(f))).toEqual([]);
  });

  it('has no API key or private key in any file', () => {
    const { tarball, files } = packed[name]!;
    const leaks = files.filter((f) => {
      const text = read(tarball, f);
      return LIVE_KEY.test(text) || PRIVATE_KEY.test(text);
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
    expect(pkg.sideEffects).toBe(false);
    expect(pkg.license).toBe('UNLICENSED');
    expect(pkg.engines.node).toBe('>=20');
  });
});

describe('the client tarball', () => {
  it('depends on @payments/types at the version it was built with, and on openapi-fetch', () => {
    const pkg = JSON.parse(read(packed.client!.tarball, 'package.json'));
    const types = JSON.parse(read(packed.types!.tarball, 'package.json'));
    expect(pkg.dependencies['@payments/types']).toBe(`^${types.version}`);
    expect(pkg.dependencies['openapi-fetch']).toMatch(/^\^?\d+\.\d+\.\d+$/);
  });

  it('imports nothing from node: (it runs on Node 20+, Deno, Bun and edge runtimes)', () => {
    const { tarball, files } = packed.client!;
    const nodeImports = files.filter((f) => f.endsWith('.js') && /from\s+['"]node:|import\(\s*['"]node:|require\(/.test(read(tarball, f)));
    expect(nodeImports).toEqual([]);
  });
});
