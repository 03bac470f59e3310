// npm publish through the release's publishAll against a real local registry (Verdaccio): a version already
// there is skipped, but not when the registry's copy depends on other versions than this build's. A sandbox,
// kit or mock packed against a new @payments/spec at an unchanged version was "already published, skipped",
// and consumers kept the copy that loads the old spec (release QA, #5 and its re-test's N2).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packPackage } from '../../tools/lib/pack.ts';
import { startLocalRegistry, type LocalRegistry } from '../../tools/lib/registry.ts';
import { publishAll, type Manifest, type ReleaseTarball } from '../../tools/lib/release.ts';

const out = mkdtempSync(join(tmpdir(), 'publish-drift-'));
let registry: LocalRegistry | undefined;
let mock: ReleaseTarball;
const userconfig = process.env.NPM_CONFIG_USERCONFIG;

beforeAll(async () => {
  registry = await startLocalRegistry();
  process.env.NPM_CONFIG_USERCONFIG = registry.npmrc; // the publish token (npm reads it from this process's environment)
  const packed = await packPackage('packages/mock', out);
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', packed.tarball, 'package/package.json'], { encoding: 'utf8' })) as Manifest;
  mock = { ...packed, dir: 'mock', manifest };
}, 180_000);

afterAll(async () => {
  if (userconfig === undefined) delete process.env.NPM_CONFIG_USERCONFIG;
  else process.env.NPM_CONFIG_USERCONFIG = userconfig;
  await registry?.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('publishAll', () => {
  it('publishes a version, then skips it when the registry has it with the same dependencies', async () => {
    const id = `${mock.manifest.name}@${mock.manifest.version}`;
    expect(await publishAll([mock], registry!.url)).toEqual([`${id}: published`]);
    expect(await publishAll([mock], registry!.url)).toEqual([`${id}: already published, skipped`]);
  }, 120_000);

  it('refuses, publishing nothing, when the registry has that version with other dependencies', async () => {
    const spec = mock.manifest.dependencies!['@payments/spec']!;
    const moved = { ...mock, manifest: { ...mock.manifest, dependencies: { ...mock.manifest.dependencies, '@payments/spec': '^9.0.0' } } };
    await expect(publishAll([moved], registry!.url)).rejects.toThrow(
      `${mock.manifest.name}@${mock.manifest.version} is on the registry with @payments/spec ${spec}; this build has @payments/spec ^9.0.0`,
    );
  }, 120_000);
});
