// The command: usage errors (exit 2), a failing run against a mutant sandbox (exit 1, summary, JSON and JUnit
// files, progress lines on a non-TTY stderr), a clean run (exit 0), --seed replaying a run, check selection
// (--checks, --config, --list-checks), and a throttled run that does not pass (429s → skipped → exit 1).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/types.ts';
import { startSandbox } from '../../sandbox/src/sandbox.ts';
import { adminOf } from '../../sandbox/test/support.ts';
import { startMutant, type RunningMutant } from './mutants/proxy.ts';
import { MUTANTS } from './mutants/registry.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, PAYMENTS_API_KEY: '', SANDBOX_ADMIN_TOKEN: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('usage', () => {
  it('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await cli(['--help']);
    expect(code).toBe(0);
    // The commands an installed package has, each subcommand named (QA: workflows was missing, and the usage
    // showed the repository's paths).
    expect(stdout).toMatch(/Usage:\n {2}payments-contract-kit --base-url URL --api-key KEY \[options\].*\n {2}payments-contract-kit client \[options\] -- <command>[\s\S]*\n {2}payments-contract-kit workflows \[options\]/);
    expect(stdout).not.toContain('packages/contract-kit/src');
    for (const flag of ['--admin-token', '--other-api-key', '--seed', '--runs', '--json', '--junit', '--operations', '--strict-503']) expect(stdout).toContain(flag);
  });

  it.each([
    [[], /--base-url is required/],
    [['--base-url', 'http://127.0.0.1:1'], /--api-key is required/],
    [['--base-url', 'not a url', '--api-key', 'k'], /--base-url must be an absolute URL/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--runs', 'many'], /--runs must be an integer/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--runs', '0'], /--runs must be between 1/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--operations', 'noSuchOperation'], /unknown operation noSuchOperation/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--other-api-key', 'k'], /--other-api-key must be a key of ANOTHER organization/],
  ])('%j exits 2', async (args, message) => {
    const { code, stderr } = await cli(args as string[]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('check selection', () => {
  it('--list-checks prints every check with what it needs and the rule it corresponds to', async () => {
    const { code, stdout } = await cli(['--list-checks']);
    expect(code).toBe(0);
    for (const id of ['coverage', 'valid', 'invalid', 'auth-no-key', 'auth-revoked-key', 'idempotent-replay', 'idempotency-conflict', 'concurrent-key', 'resource-chain', 'isolation', 'cors', 'faults']) {
      expect(stdout).toMatch(new RegExp(`^${id}\\n  .+\\n  needs: .+\\n  corresponds to: .+`, 'm'));
    }
  });

  it('an unknown check id is a usage error (exit 2), from the command line or the config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-kit-'));
    try {
      const bad = await cli(['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--checks', 'nope', '--target', 'server']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/unknown check nope/);
      expect(bad.stderr, 'nothing ran, so no seed to replay (QA)').not.toMatch(/seed/);
      const config = join(dir, 'kit.json');
      writeFileSync(config, JSON.stringify({ frobnicate: 1 }));
      const badConfig = await cli(['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--config', config]);
      expect(badConfig.code).toBe(2);
      expect(badConfig.stderr).toMatch(/unknown key "frobnicate"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runs', () => {
  let broken: RunningMutant;
  let clean: RunningMutant;
  let cleanKey: string;
  let dir: string;
  beforeAll(async () => {
    broken = await startMutant(MUTANTS.find((m) => m.name === 'conflict-ignored')!);
    clean = await startMutant(undefined);
    ({ key: cleanKey } = await adminOf({ url: clean.sandbox.url, adminToken: clean.adminToken }).org({ cardTermsAccepted: true, checkoutPix: true, walletTransfers: true }));
    dir = mkdtempSync(join(tmpdir(), 'contract-kit-'));
  });
  afterAll(async () => {
    await broken?.close();
    await clean?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('against a mutant: exit 1, the summary with the coverage table, the JSON and JUnit reports', async () => {
    const json = join(dir, 'report.json');
    const junit = join(dir, 'out', 'report.xml');
    const { code, stdout, stderr } = await cli(['--base-url', broken.url, '--seed', '5', '--runs', '5', '--json', json, '--junit', junit], { PAYMENTS_API_KEY: 'svc_live_unused', SANDBOX_ADMIN_TOKEN: broken.adminToken });
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/^operation\s+requests\s+passed\s+failed\s+skipped\s+warnings\s+inconclusive$/m);
    expect(stdout).toMatch(/^createTransfer\s+\d+\s+\d+\s+1\s+0\s+\d+\s+0$/m);
    expect(stdout).toMatch(/^COVERAGE/m);
    // The conflict never answered (the mutant replays the original): the coverage table says so.
    expect(stdout).toMatch(/^ {4}409\s+\d+\s+wallet_recipient_required \d+, banking_transfer_attempt_pending_review \d+, banking_transfer_idempotency_conflict -$/m);
    expect(stdout).toMatch(/^FAILED: \d+ checks/m);
    expect(stdout).toContain('seed 5 (replay this run with --seed 5)');
    expect(stdout).not.toContain(broken.adminToken);
    expect(stderr).toContain('contract-kit: seed 5');
    expect(stderr).toMatch(/contract-kit: \d+ checks\n/); // not a TTY: plain lines, no carriage returns
    expect(stderr).not.toContain('\r');

    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.seed).toBe(5);
    expect(report.verdict).toBe('failed');
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['createTransfer/idempotency-conflict']);
    expect(report.unexercised).toContain('createTransfer 409 banking_transfer_idempotency_conflict');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(report.checks.length);
    expect((xml.match(/<failure /g) ?? []).length).toBe(report.totals.failed);
    expect(xml).toMatch(/<testcase classname="contract.createTransfer" name="idempotency-conflict: the same key with another recipient or amount gets banking_transfer_idempotency_conflict" time="[\d.]+">\n {6}<failure type="conflict" message="[^"]*expected 409 banking_transfer_idempotency_conflict/);
  });

  it('--seed replays the same run (the same minimal requests, fresh keys aside)', async () => {
    const mutant = await startMutant(MUTANTS.find((m) => m.name === 'invalid-input-500')!);
    try {
      const runOnce = async (file: string) => {
        await cli(['--base-url', mutant.url, '--seed', '1234', '--runs', '5', '--operations', 'createRecipient', '--checks', 'valid,invalid', '--json', file], { PAYMENTS_API_KEY: 'svc_live_unused', SANDBOX_ADMIN_TOKEN: mutant.adminToken });
        const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
        return report.checks.map((c) => [c.id, c.status, c.requests, c.counterexample?.curl.replace(/Idempotency-Key: [^']*/, 'Idempotency-Key: …').replace(/(nickname|pixKey)":"[^"]*"/g, '$1":…')]);
      };
      const first = await runOnce(join(dir, 'a.json'));
      const second = await runOnce(join(dir, 'b.json'));
      expect(second).toEqual(first);
      expect(first.some(([, , , curl]) => curl)).toBe(true);
    } finally {
      await mutant.close();
    }
  });

  it('against the unmodified sandbox, checks chosen by a config file: exit 0', async () => {
    const config = join(dir, 'kit.json');
    writeFileSync(config, JSON.stringify({ operations: ['createTransfer', 'getTransfer'], checks: ['coverage', 'valid', 'resource-chain'], runs: 3 }));
    const { code, stdout } = await cli(['--base-url', clean.url, '--api-key', cleanKey, '--config', config]);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^PASSED: /m);
    expect(stdout).toMatch(/^createTransfer /m);
    expect(stdout).not.toMatch(/^issueCard /m);
    const report = join(dir, 'clean.json');
    await cli(['--base-url', clean.url, '--api-key', cleanKey, '--config', config, '--json', report, '--checks', 'coverage']);
    expect([...new Set((JSON.parse(readFileSync(report, 'utf8')) as Report).checks.map((c) => c.id.split('/')[1]))]).toEqual(['coverage']);
  });

  it('one key, an empty PAYMENTS_OTHER_API_KEY: isolation is not applicable and the run passes (exit 0)', async () => {
    const json = join(dir, 'one-key.json');
    const { code, stdout } = await cli(['--base-url', clean.url, '--api-key', cleanKey, '--checks', 'isolation,coverage', '--operations', 'createTransfer', '--json', json], { PAYMENTS_OTHER_API_KEY: '' });
    expect(code, stdout).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.checks.map((c) => c.id)).toEqual(['createTransfer/coverage']);
    expect(report.notApplicable.map((n) => n.check)).toEqual(['isolation']);
  });

  it('an admin token the server refuses stops the run (exit 2), naming the option; from the environment too', async () => {
    for (const [args, env] of [
      [['--admin-token', 'not-the-token'], {}],
      [[], { SANDBOX_ADMIN_TOKEN: 'not-the-token' }],
    ] as const) {
      const { code, stdout, stderr } = await cli(['--base-url', clean.url, '--api-key', cleanKey, '--checks', 'coverage', '--operations', 'createTransfer', ...args], env);
      expect(code, stdout + stderr).toBe(2);
      expect(stderr).toMatch(/refused the admin token \(--admin-token or \$SANDBOX_ADMIN_TOKEN\): GET \/admin\/health answered 401/);
      expect(stderr).not.toMatch(/replay with --seed/);
      expect(stdout).toBe('');
    }
  });

  it('client mode: an admin token the sandbox refuses stops the run (exit 2) with one message', async () => {
    const { code, stdout, stderr } = await cli(['client', '--base-url', clean.url, '--admin-token', 'not-the-token', '--', process.execPath, '-e', '0']);
    expect(code, stdout + stderr).toBe(2);
    expect(stderr).toMatch(/refused the admin token \(--admin-token or \$SANDBOX_ADMIN_TOKEN\): GET \/admin\/health answered 401/);
    expect(stdout).not.toMatch(/ERROR/);
  });

  it('a throttled run does not pass: its 429s are reported and their checks skipped (exit 1), unless --allow-skips', async () => {
    // Card issuance allows 60 requests per 15 minutes per key; 40 valid + 40 invalid requests cannot fit, and
    // --max-wait-s 0 forbids waiting for the window. (With --admin-token the kit would take more keys instead.)
    const throttled = await startMutant(undefined);
    try {
      const { key } = await adminOf({ url: throttled.sandbox.url, adminToken: throttled.adminToken }).org({ cardTermsAccepted: true });
      const args = ['--base-url', throttled.url, '--api-key', key, '--operations', 'issueCard', '--checks', 'valid,invalid', '--runs', '40', '--max-wait-s', '0', '--seed', '2'];
      const strict = await cli(args);
      expect(strict.code, strict.stdout).toBe(1);
      expect(strict.stdout).toMatch(/^RATE LIMIT: [1-9]\d* unexpected answers were 429 \(the rate-limit check's own not counted\); \d+ requests sent over the budget/m);
      expect(strict.stdout).toMatch(/answers were 429 \(rate limited\): those requests were not checked/);
      expect(strict.stdout).toMatch(/^FAILED: /m);
      const allowed = await cli([...args, '--allow-skips']);
      expect(allowed.code, allowed.stdout).toBe(0);
      expect(allowed.stdout).toMatch(/skipped checks allowed \(--allow-skips\)/);
    } finally {
      await throttled.close();
    }
  });

  it('a server answering 503 to everything: its checks established nothing, so the run fails; --strict-503 names each answer', async () => {
    const down = await startMutant({ name: 'down', defect: 'every balance read is a 503', visible: true, handle: async () => ({ status: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'Temporarily unavailable.', code: 'temporarily_unavailable', requestId: crypto.randomUUID() }) }) });
    try {
      const args = ['--base-url', down.url, '--api-key', 'svc_live_anything', '--runs', '3', '--operations', 'getBankingBalance', '--checks', 'valid', '--seed', '3', '--target', 'server'];
      const lenient = await cli(args);
      expect(lenient.code, lenient.stdout).toBe(1);
      expect(lenient.stdout).toMatch(/^INCONCLUSIVE: \d+ answers were a documented 503/m);
      expect(lenient.stdout).toMatch(/every answer \(\d+\) was inconclusive: nothing was checked/);
      const strict = await cli([...args, '--strict-503']);
      expect(strict.code, strict.stdout).toBe(1);
      expect(strict.stdout).toMatch(/\[inconclusive\] GET \/v1\/banking\/balance → 503: a documented 503 \(temporarily_unavailable\)/);
    } finally {
      await down.close();
    }
  });

  it("a check whose every answer of its operation was a 503 is skipped, whatever its set-up requests got (QA: it passed, exit 0)", async () => {
    const sandbox = await startSandbox({});
    try {
      const admin = adminOf(sandbox);
      const { org, key } = await admin.org();
      await admin.fault({ operationId: 'getTransfer', kind: 'unavailable', count: 100000, organizationId: org.id });
      const run = await cli(['--base-url', sandbox.url, '--api-key', key, '--operations', 'getTransfer', '--checks', 'valid', '--runs', '5', '--seed', '4']);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stdout).toMatch(/every answer \(\d+\) was inconclusive: nothing was checked/);
      expect(run.stdout).toMatch(/^FAILED: /m);
    } finally {
      await sandbox.close();
    }
  });

  it('a report file that cannot be written is a usage error before the run (exit 2), not a stack trace after it (QA)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-unwritable-'));
    try {
      const cases: [string[], string][] = [
        [['--json', dir], `--json ${dir}: is a folder, not a file`],
        [['--junit', join('/proc/version', 'kit.xml')], '--junit /proc/version/kit.xml: /proc/version is a file, not a folder'],
      ];
      for (const [flags, said] of cases) {
        const refused = await cli(['--base-url', 'http://127.0.0.1:9', '--api-key', 'svc_live_x', ...flags]);
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`contract-kit: ${said}; nothing was run.`);
        expect(refused.stderr).not.toMatch(/seed|\n\s+at /);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unreachable server is a failed run (exit 1), not a hang', async () => {
    const { code, stdout } = await cli(['--base-url', 'http://127.0.0.1:9', '--api-key', 'svc_live_x', '--timeout-ms', '2000']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });
});
