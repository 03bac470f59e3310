// The generated packages agree with the spec, and another repository can use them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleGeneratedFiles } from '../tools/lib/codegen.ts';
import { bin, root } from '../tools/lib/paths.ts';

describe('packages/types and the client rules', () => {
  it('the committed generated files are what the spec generates now', async () => {
    expect(await staleGeneratedFiles()).toEqual([]);
  });

  it('a consumer project type-checks against the packages through their exports (and its expected errors are errors)', () => {
    const result = spawnSync(bin('tsc'), ['-p', join(root, 'test', 'consumer-fixture', 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);
});
