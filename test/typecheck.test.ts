// The workspace type-checks under TypeScript strict (tsconfig.base.json). Run as a test so that a type
// error fails `npm test` with tsc's own message.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { bin, root } from '../tools/lib/paths.ts';

it('tsc --noEmit passes on tools, tests and packages', () => {
  const result = spawnSync(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: root, encoding: 'utf8' });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
}, 120_000);
