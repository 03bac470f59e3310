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

  it('answers --help with the task\'s header (its usage and options), exit 0', () => {
    const run = launch('release', '--', '--help');
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('node tools/launch.mjs release [--dry-run] [--registry URL] [--publish-only]');
    expect(run.output).not.toContain('== 0.'); // nothing ran
  });

  it('answers options that exclude each other with a usage line and exit 2, as any wrong command line', () => {
    const run = launch('release', '--', '--dry-run', '--publish-only');
    expect(run.status, run.output).toBe(2);
    expect(run.output).toContain('--dry-run and --publish-only exclude each other');
  });

  it('answers an unknown option with a usage line and exit 2', () => {
    const run = launch('breaking', '--', '--bogus');
    expect(run.status, run.output).toBe(2);
    expect(run.output).toContain("Unknown option '--bogus'");
    expect(run.output).not.toMatch(/\n\s+at /); // no stack frames
  });
});

describe('tools/launch.mjs <file.ts>', () => {
  // The machine's own Node (20 on these machines) cannot run TypeScript: the commands npm start prints, and the
  // README's `packages/…/*.ts` rows, go through the launcher, which runs the file under Node 24 (new-contributor QA).
  const machineNode = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).stdout?.trim();
  const node = machineNode ? '/usr/bin/node' : process.execPath;
  const launchWith = (...args: string[]) => {
    const env = { ...process.env, PATH: `/usr/bin:/bin` }; // no Node 24 on PATH, as in a new contributor's shell
    const run = spawnSync(node, [join(root, 'tools', 'launch.mjs'), ...args], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };

  it(`runs a package's CLI under Node 24 (from ${machineNode ?? 'this Node'})`, () => {
    const run = launchWith('packages/sandbox/src/cli.ts', '--help');
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('usage: node tools/launch.mjs packages/sandbox/src/cli.ts <command> [options]');
  });

  it('the sandbox alone answers --help with its usage instead of starting', () => {
    const run = launchWith('packages/sandbox/src/main.ts', '--help');
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('The sandbox alone, configured by environment');
    expect(run.output).not.toContain('listening');
  });

  it('names a file that is not there', () => {
    const run = launchWith('packages/no-such-file.ts');
    expect(run.status).toBe(1);
    expect(run.output).toContain('no such file: packages/no-such-file.ts');
  });
});

describe('npm start with a PORT that is taken', () => {
  it('says so before it builds anything', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as import('node:net').AddressInfo).port;
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
      delete env.VITEST;
      const run = spawnSync(process.execPath, [join(root, 'tools', 'launch.mjs'), 'start'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).toBe(1);
      expect(output).toContain(`PORT=${port}: port ${port} on 127.0.0.1 is in use`);
      expect(output).not.toContain('redocly'); // nothing was linted or bundled first
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
