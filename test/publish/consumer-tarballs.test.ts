// Another project installs the RELEASE TARBALLS (not the workspace links): npm installs
// @payments/types and @payments/client from their .tgz files plus openapi-fetch from the registry. The
// consumer fixture type-checks against the installed declarations with the repository's tsc, and a plain
// .mjs script run by Node imports @payments/client from node_modules and talks to a real sandbox.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { startSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { adminOf } from '../../packages/sandbox/test/support.ts';
import { packPackage } from '../../tools/lib/pack.ts';
import { bin, root } from '../../tools/lib/paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'payments-consumer-'));
let sandbox: RunningSandbox;

function run(cmd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

// What a consumer would write: plain ESM, no TypeScript, no path mapping.
const script = `
import { createPaymentsClient, deriveIdempotencyKey, ApiError } from '@payments/client';
const client = createPaymentsClient({ apiKey: process.env.PAYMENTS_API_KEY, baseUrl: process.env.PAYMENTS_URL });
const balance = await client.GET('/v1/banking/balance');
const recipient = await client.POST('/v1/banking/recipients', { body: { rail: 'brl_pix', nickname: 'Ana', pixKey: 'ana@example.com' } });
const idempotencyKey = await deriveIdempotencyKey('createTransfer', 'invoice-42');
const transfer = await client.POST('/v1/banking/transfers', { body: { recipientId: recipient.data.id, amount: '150.00' }, idempotencyKey });
let missing;
try {
  await client.GET('/v1/banking/transfers/{transferId}', { params: { path: { transferId: 'trf_missing' } } });
} catch (err) {
  missing = { isApiError: err instanceof ApiError, code: err.code, status: err.status };
}
console.log(JSON.stringify({ balance: balance.data, transfer: transfer.data, key: transfer.idempotencyKey, expectedKey: idempotencyKey, missing }));
`;

beforeAll(async () => {
  const types = await packPackage('packages/types', dir);
  const client = await packPackage('packages/client', dir);
  copyFileSync(join(root, 'test', 'consumer-fixture', 'consumer.ts'), join(dir, 'consumer.ts'));
  copyFileSync(join(root, 'test', 'consumer-fixture', 'tsconfig.json'), join(dir, 'tsconfig.json'));
  writeFileSync(join(dir, 'pay.mjs'), script);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'tarball-consumer',
        private: true,
        type: 'module',
        dependencies: { '@payments/types': `file:${types.tarball}`, '@payments/client': `file:${client.tarball}`, 'openapi-fetch': '0.17.0' },
      },
      null,
      2,
    )}\n`,
  );
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--offline=false', '--loglevel=error'], { npm_config_update_notifier: 'false' }, 80_000);
  if (install.code !== 0) throw new Error(`npm install failed (${install.code}):\n${install.stdout}\n${install.stderr}`);
  sandbox = await startSandbox({});
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a project that installs the release tarballs', () => {
  it('type-checks the consumer fixture against the installed declarations (and its expected errors are errors)', () => {
    const result = spawnSync(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 60_000);

  it('runs plain ESM against the sandbox: balance, a transfer with the derived key, a typed API error', async () => {
    const { key } = await adminOf(sandbox).org();
    const result = await run(process.execPath, ['pay.mjs'], { PAYMENTS_API_KEY: key, PAYMENTS_URL: sandbox.url }, 30_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout.trim());
    expect(out.balance.balances).toEqual(expect.arrayContaining([expect.objectContaining({ currency: 'BRL' }), expect.objectContaining({ currency: 'USD' })]));
    expect(out.transfer).toMatchObject({ amount: '150.00', status: 'pending' });
    expect(out.transfer.id).toEqual(expect.any(String));
    expect(out.key).toBe(out.expectedKey);
    expect(out.missing).toEqual({ isApiError: true, code: 'banking_transfer_not_found', status: 404 });
  }, 30_000);
});
