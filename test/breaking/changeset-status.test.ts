// `changeset status` runs in CI (on the clone's main branch): the changesets folder and config are valid
// and the pending changesets can be planned.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { bin, root } from '../../tools/lib/paths.ts';

it('changeset status succeeds', () => {
  const branch = spawnSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  const result = spawnSync(bin('changeset'), ['status'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  expect(result.status, `${result.stdout}${result.stderr} (branch ${branch})`).toBe(0);
  expect(result.stdout + result.stderr).toMatch(/changeset/i);
}, 60_000);
