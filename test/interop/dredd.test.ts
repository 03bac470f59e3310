// Dredd (npm `dredd` 14.1.0, tools/interop/dredd) over the bundled spec against the sandbox (issue 14): one
// transaction per documented status of every operation, each given its meaning by test/interop/dredd-hooks.cjs
// through the sandbox's public and admin APIs. Every transaction Dredd can express passes; the ones it cannot
// are skipped by the hooks with their reason and must be exactly the documented list below.
//
// What Dredd does not check at all (it reads OpenAPI 3.1 partly): allOf, pattern, maxLength, multipleOf, not,
// additionalProperties (it warns "unsupported key" and ignores them), and only the first named example of a
// request body. Our own contract tests (test/contract, the contract kit) cover those.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, loadSpec } from '@payments/spec';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { ensureInteropTool } from '../../tools/lib/interop.ts';
import { bundledJson, bundledYaml } from '../../tools/lib/paths.ts';

const HOOKS = new URL('./dredd-hooks.cjs', import.meta.url).pathname;

/** What Dredd cannot express, and why: the hooks skip exactly these (by transaction name). */
const CANNOT_EXPRESS = new Map<RegExp, string>([
  [/ > 504$/, 'Dredd gives the 502 and 504 responses one name and one expected status (504)'],
]);

interface DreddRun {
  code: number | null;
  output: string;
  passed: string[];
  failed: string[];
  skips: { name: string; reason: string }[];
}

let sandbox: RunningSandbox;
let run: DreddRun;
let bin: string;
const work = mkdtempSync(join(tmpdir(), 'dredd-'));

function runDredd(bin: string, url: string, adminToken: string): Promise<DreddRun> {
  const skipsFile = join(work, 'skips.json');
  return new Promise((resolve, reject) => {
    const child = spawn(join(bin, 'dredd'), [bundledYaml, url, `--hookfiles=${HOOKS}`, '--loglevel=warning', '--color=false'], {
      cwd: work,
      env: { ...process.env, SANDBOX_URL: url, SANDBOX_ADMIN_TOKEN: adminToken, DREDD_SKIPS_FILE: skipsFile, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 540_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const lines = (kind: string) => [...output.matchAll(new RegExp(`^${kind}: (.+?)(?: duration: \\d+ms)?$`, 'gm'))].map((m) => m[1]!.trim());
      let skips: DreddRun['skips'] = [];
      try {
        skips = JSON.parse(readFileSync(skipsFile, 'utf8')) as DreddRun['skips'];
      } catch {
        // the hooks never reached afterAll: the assertions below show Dredd's output
      }
      resolve({ code, output, passed: lines('pass'), failed: lines('fail'), skips });
    });
  });
}

beforeAll(async () => {
  bin = ensureInteropTool('dredd');
  sandbox = await startSandbox({});
  run = await runDredd(bin, sandbox.url, sandbox.adminToken);
}, 600_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('Dredd 14.1.0 over the bundle against the sandbox', () => {
  it('the hooks use the rate limit the spec states', () => {
    const limit = loadSpec()['x-rate-limit'];
    expect(isObject(limit) && limit.limit).toBe(Number(/REQUEST_LIMIT = (\d+)/.exec(readFileSync(HOOKS, 'utf8'))?.[1]));
  });

  it('passes every transaction it can express', () => {
    expect(run.failed, run.output.slice(-20_000)).toEqual([]);
    expect(run.output).not.toMatch(/^error: /m);
    expect(run.code, run.output.slice(-5_000)).toBe(0);
    // Every operation, and every kind of status the contract documents, really ran.
    expect(run.passed.length, run.output.slice(-5_000)).toBeGreaterThanOrEqual(55);
    for (const status of ['200', '201', '400', '401', '403', '404', '409', '413', '422', '429', '503', '504']) {
      expect(run.passed.some((name) => name.includes(`(${status})`)), `a passing ${status}`).toBe(true);
    }
  });

  it('refuses the bundle when a path parameter has only a schema-level example (the bug the parameter example fixes)', () => {
    const doc = JSON.parse(readFileSync(bundledJson, 'utf8'));
    delete doc.components.parameters.TransferId.example;
    const file = join(work, 'schema-example-only.json');
    writeFileSync(file, JSON.stringify(doc));
    const names = spawnSync(join(bin, 'dredd'), [file, 'http://127.0.0.1:9', '--names', '--color=false'], { cwd: work, encoding: 'utf8', timeout: 120_000 });
    expect(`${names.stdout}${names.stderr}`).toContain("Required URI parameter 'transferId' has no example or default value");
    expect(names.status).not.toBe(0);
  });

  it('skips only what Dredd cannot express, each with its reason', () => {
    expect(run.skips.length).toBeGreaterThan(0);
    for (const skip of run.skips) {
      const known = [...CANNOT_EXPRESS].find(([pattern]) => pattern.test(skip.name));
      expect(known, `unexpected skip: ${skip.name}: ${skip.reason}`).toBeDefined();
      expect(skip.reason).toContain(known![1]);
    }
  });
});
