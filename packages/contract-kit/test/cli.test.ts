// The command: usage errors (exit 2), a failing run against the broken fixture (exit 1, summary, JSON and
// JUnit files, progress lines on a non-TTY stderr), a clean run (exit 0), and --seed replaying a run.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/types.ts';
import { startBrokenServer, type BrokenServer } from './fixtures/broken-server.ts';

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
    expect(stdout).toMatch(/Usage:\n {2}payments-contract-kit --base-url URL --api-key KEY \[options\].*\n {2}node packages\/contract-kit\/src\/cli\.ts --base-url URL --api-key KEY/);
    for (const flag of ['--admin-token', '--seed', '--runs', '--json', '--junit', '--operations', '--strict-503']) expect(stdout).toContain(flag);
  });

  it.each([
    [[], /--base-url is required/],
    [['--base-url', 'http://127.0.0.1:1'], /--api-key is required/],
    [['--base-url', 'not a url', '--api-key', 'k'], /--base-url must be an absolute URL/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--runs', 'many'], /--runs must be an integer/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--runs', '0'], /--runs must be between 1/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--operations', 'noSuchOperation'], /unknown operation noSuchOperation/],
    [['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--frobnicate'], /Unknown option '--frobnicate'/],
  ])('%j exits 2', async (args, message) => {
    const { code, stderr } = await cli(args as string[]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('runs', () => {
  let broken: BrokenServer;
  let clean: BrokenServer;
  let dir: string;
  beforeAll(async () => {
    broken = await startBrokenServer();
    clean = await startBrokenServer({ violations: {} });
    dir = mkdtempSync(join(tmpdir(), 'contract-kit-'));
  });
  afterAll(async () => {
    await broken?.close();
    await clean?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('against the broken fixture: exit 1, the summary, the JSON and JUnit reports', async () => {
    const json = join(dir, 'report.json');
    const junit = join(dir, 'out', 'report.xml');
    const { code, stdout, stderr } = await cli(['--base-url', broken.url, '--seed', '5', '--runs', '5', '--json', json, '--junit', junit], { PAYMENTS_API_KEY: broken.apiKey });
    expect(code, stderr).toBe(1);
    expect(stdout).toMatch(/^operation\s+requests\s+passed\s+failed\s+skipped\s+warnings\s+inconclusive$/m);
    expect(stdout).toMatch(/^createTransfer\s+\d+\s+\d+\s+2\s+0\s+\d+\s+0$/m);
    expect(stdout).toMatch(/^FAILED: \d+ checks/m);
    expect(stdout).toContain('seed 5 (replay this run with --seed 5)');
    expect(stdout).not.toContain(broken.apiKey);
    expect(stderr).toContain('contract-kit: seed 5');
    expect(stderr).toMatch(/contract-kit: \d+ checks\n/); // not a TTY: plain lines, no carriage returns
    expect(stderr).not.toContain('\r');

    const report = JSON.parse(readFileSync(json, 'utf8')) as Report;
    expect(report.seed).toBe(5);
    expect(report.totals.failed).toBeGreaterThanOrEqual(7);
    // The edge's JSON 502 on getBankingBalance is inconclusive too (besides its edge-body failure): counted.
    expect(report.totals.inconclusive).toBe(report.checks.reduce((n, c) => n + c.inconclusive, 0));
    expect(report.checks.find((c) => c.id === 'getBankingBalance/valid')?.inconclusive).toBeGreaterThan(0);
    expect(report.strict503).toBe(false);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(report.checks.length);
    expect((xml.match(/<failure /g) ?? []).length).toBe(report.totals.failed);
    expect((xml.match(/<skipped /g) ?? []).length).toBe(report.totals.skipped);
    expect(xml).toMatch(/<testcase classname="contract.createTransfer" name="the same key with another amount gets banking_transfer_idempotency_conflict" time="[\d.]+">\n {6}<failure type="conflict" message="[^"]*expected 409 banking_transfer_idempotency_conflict/);
    expect(xml).not.toContain(broken.apiKey);
  });

  it('--seed replays the same run (the same minimal requests, fresh keys aside)', async () => {
    const runOnce = async (file: string) => {
      await cli(['--base-url', broken.url, '--seed', '1234', '--runs', '5', '--json', file], { PAYMENTS_API_KEY: broken.apiKey });
      const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
      return report.checks.map((c) => [c.id, c.status, c.requests, c.counterexample?.curl.replace(/Idempotency-Key: [^']*/, 'Idempotency-Key: …')]);
    };
    const first = await runOnce(join(dir, 'a.json'));
    const second = await runOnce(join(dir, 'b.json'));
    expect(second).toEqual(first);
    expect(first.some(([, , , curl]) => curl)).toBe(true);
  });

  it('against the clean fixture: exit 0', async () => {
    const { code, stdout } = await cli(['--base-url', clean.url, '--api-key', clean.apiKey, '--runs', '3', '--operations', 'createTransfer,getTransfer']);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^PASSED: /m);
    expect(stdout).toMatch(/^createTransfer /m);
    expect(stdout).not.toMatch(/^issueCard /m);
  });

  it('a server answering 503 to everything: exit 0 with the inconclusive answers shown; exit 1 under --strict-503', async () => {
    const down = await startBrokenServer({ violations: { getBankingBalance: ['unavailable'] } });
    try {
      const args = ['--base-url', down.url, '--api-key', down.apiKey, '--runs', '3', '--operations', 'getBankingBalance', '--seed', '3'];
      const lenient = await cli(args);
      expect(lenient.code, lenient.stdout).toBe(0);
      expect(lenient.stdout).toMatch(/^getBankingBalance\s+\d+\s+\d+\s+0\s+\d+\s+\d+\s+[1-9]\d*$/m);
      expect(lenient.stdout).toMatch(/^INCONCLUSIVE: \d+ answers were a documented 503/m);
      const strict = await cli([...args, '--strict-503']);
      expect(strict.code, strict.stdout).toBe(1);
      expect(strict.stdout).toMatch(/\[inconclusive\] GET \/v1\/banking\/balance → 503: a documented 503 \(temporarily_unavailable\)/);
      expect(strict.stdout).toMatch(/^FAILED: .* inconclusive \(--strict-503\)/m);
    } finally {
      await down.close();
    }
  });

  it('an unreachable server is a failed run (exit 1), not a hang', async () => {
    const { code, stdout } = await cli(['--base-url', 'http://127.0.0.1:9', '--api-key', 'svc_live_x', '--timeout-ms', '2000']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });
});
