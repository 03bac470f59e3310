// The generated packages agree with the spec, and another repository can use them.
//
// `npm run build` (and so `npm test`) rewrites the generated files before the tests run, except under CI,
// where it only checks them. So comparing the files on disk with a fresh generation proves little on a
// developer's machine: the build has just written them. What matters is what is COMMITTED: the files in
// git's HEAD must be what the committed spec generates. That is checked against a fresh in-memory
// generation, whenever the working tree's spec and generators are the committed ones (in a clone, and in
// CI, always); and the comparison itself is shown to catch a drifted spec.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '@payments/spec';
import { errorCodesFile, openapiFile, specRulesFile, staleGeneratedFiles } from '../tools/lib/codegen.ts';
import { bin, bundledJson, root } from '../tools/lib/paths.ts';

const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
/** What the generated files are generated from: the spec, its bundling, the generators and their versions. */
const INPUTS = ['openapi', 'redocly.yaml', 'packages/spec/src', 'tools/lib/contract.ts', 'tools/lib/codegen.ts', 'tools/lib/spec-rules.ts', 'pnpm-lock.yaml'];
const head = git('rev-parse', '--verify', 'HEAD');
const changedInputs = head.status === 0 ? git('status', '--porcelain', '--', ...INPUTS).stdout.trim() : 'not a git checkout';

describe('packages/types and the client rules', () => {
  it.skipIf(changedInputs !== '')('the generated files committed in HEAD are what the committed spec generates now', async () => {
    const committed = (file: string) => {
      const shown = git('show', `HEAD:${relative(root, file)}`);
      return shown.status === 0 ? shown.stdout : undefined;
    };
    expect(await staleGeneratedFiles({ read: committed })).toEqual([]);
  });

  it('the generated files on disk are what the spec generates now (under CI the build does not rewrite them)', async () => {
    expect(await staleGeneratedFiles()).toEqual([]);
  });

  it('the comparison catches a drifted spec: a new error code, a changed x-retry minimum', async () => {
    const doc = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument;
    const post = (doc.paths as Record<string, Record<string, Record<string, any>>>)['/v1/banking/transfers']!.post!;
    post.responses['418'] = { description: 'drift', content: { 'application/json': { examples: { teapot: { value: { error: 'x', code: 'teapot', requestId: 'x' } } } } } };
    post['x-retry'].temporaryUnavailable.minDelaySeconds = 30;
    expect(await staleGeneratedFiles({ doc })).toEqual(expect.arrayContaining([errorCodesFile, specRulesFile, openapiFile]));
  });

  it('a consumer project type-checks against the packages through their exports (and its expected errors are errors)', () => {
    const result = spawnSync(bin('tsc'), ['-p', join(root, 'test', 'consumer-fixture', 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);
});
