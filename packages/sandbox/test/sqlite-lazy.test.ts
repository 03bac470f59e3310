// node:sqlite is loaded only by the embedded store (issue 23): a process that uses the PostgreSQL store, or
// the contract kit's client mode against a running sandbox (--base-url), must not need it (it is flagged or
// missing on some Node lines). Checked in a fresh process by Node's own list of the built-in modules it
// loaded; the control shows the probe sees node:sqlite once the embedded store is opened.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { root } from '../../../tools/lib/paths.ts';

function sqliteModulesAfter(code: string): string[] {
  const script = `${code}\nprocess.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => /sqlite/i.test(m))));\nprocess.exit(0);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as string[];
}

describe('node:sqlite is loaded lazily', () => {
  it('not by the sandbox package, its PostgreSQL store, or the kit with its client mode', () => {
    const loaded = sqliteModulesAfter(`
      await import('./packages/sandbox/src/index.ts');
      const { createStore } = await import('./packages/sandbox/src/store/index.ts');
      createStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none' }); // a pool: no connection until a query
      await import('./packages/contract-kit/src/index.ts');
      await import('./packages/contract-kit/src/client-mode/cli.ts');`);
    expect(loaded).toEqual([]);
  });

  it('by the embedded store (the probe sees it)', () => {
    const loaded = sqliteModulesAfter(`
      const { createStore } = await import('./packages/sandbox/src/store/index.ts');
      await createStore({}).close();`);
    expect(loaded.length).toBeGreaterThan(0);
  });
});
