// `node tools/launch.mjs <task> -- <options>` reaches the task as `npm run <script> -- <options>` does (npm
// drops the `--`, so does the launcher), and a task refuses an option it does not know with one usage line
// and exit 2, never a stack trace (a QA pass met `release -- --dry-run` crashing on both counts).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** Runs the launcher; `output`: what it printed on stdout and stderr (a task's log goes to either). */
function launch(...args: string[]): { status: number | null; output: string } {
  const env = { ...process.env };
  delete env.VITEST; // a task's log is silent inside vitest (tools/lib/steps.ts); this one runs as a user runs it
  const run = spawnSync(process.execPath, [join(root, 'tools', 'launch.mjs'), ...args], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('tools/launch.mjs options', () => {
  it('passes the options after `--` to the task', () => {
    const missing = join(root, '.no-such-spec.json');
    const run = launch('breaking', '--', '--spec', missing);
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain('No bundled spec at .no-such-spec.json'); // printed relative to the root
  });

  it('answers an unknown option with a usage line and exit 2', () => {
    const run = launch('breaking', '--', '--bogus');
    expect(run.status, run.output).toBe(2);
    expect(run.output).toContain("Unknown option '--bogus'");
    expect(run.output).not.toMatch(/\n\s+at /); // no stack frames
  });
});
