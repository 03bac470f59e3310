// Node 22's ExperimentalWarning for node:sqlite would be the one non-JSON line of the request log on stderr
// (found by a QA pass on Node 22): it alone is left out, every other warning still prints. Node 24 and 26 do
// not emit it, so the warning is sent by hand, in a process of its own.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const module = pathToFileURL(new URL('../src/node-warnings.ts', import.meta.url).pathname).href;

it("leaves out node:sqlite's ExperimentalWarning, and only it", () => {
  const script = `
    const { omitSqliteExperimentalWarning } = await import(${JSON.stringify(module)});
    omitSqliteExperimentalWarning();
    process.emitWarning('SQLite is an experimental feature and might change at any time', 'ExperimentalWarning');
    process.emitWarning('Something else is experimental', 'ExperimentalWarning');
    process.emitWarning('SQLite is an experimental feature (as a DeprecationWarning)', 'DeprecationWarning');`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).not.toContain('ExperimentalWarning: SQLite');
  expect(run.stderr).toContain('ExperimentalWarning: Something else is experimental');
  expect(run.stderr).toContain('DeprecationWarning: SQLite is an experimental feature (as a DeprecationWarning)');
});
