// The docs' code samples run: every operation has a TypeScript and a curl sample (openapi/samples/), and
// both succeed against the sandbox with a 2xx and a body that matches the operation's response schema.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createValidator, deref, isObject, loadSpec, operations, type Json, type JsonObject } from '@payments/spec';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { adminOf, call } from '../../packages/sandbox/test/support.ts';
import { extractSample, samplePaths, samplesFor, withSamples } from '../../tools/lib/samples.ts';

const spec = loadSpec();
const validator = createValidator(spec);
const ops = operations(spec);

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({});
});
afterAll(async () => {
  await sandbox?.close();
});

/** A fresh organization (every product on, card terms accepted, PIX checkout set up, funded) with a recipient and a transfer. */
async function fixture() {
  const admin = adminOf(sandbox);
  const { key } = await admin.org({ cardTermsAccepted: true, checkoutPix: true });
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', {
    key,
    idem: crypto.randomUUID(),
    body: { rail: 'brl_pix', nickname: 'Fixture recipient', pixKey: 'fixture@example.com' },
  });
  expect(recipient.status, recipient.text).toBe(201);
  const transfer = await call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem: crypto.randomUUID(), body: { recipientId: recipient.body.id, amount: '10.00' } });
  expect(transfer.status, transfer.text).toBe(201);
  return { baseUrl: sandbox.url, apiKey: key as string, recipientId: recipient.body.id as string, transferId: transfer.body.id as string };
}

function successOf(operation: JsonObject) {
  const responses = operation.responses as JsonObject;
  const statuses = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
  expect(statuses).toHaveLength(1);
  const response = deref(spec, responses[statuses[0]!] as Json) as JsonObject;
  const schema = ((response.content as JsonObject)['application/json'] as JsonObject).schema as JsonObject;
  return { status: Number(statuses[0]), validate: validator.compile(schema) };
}

function bash(script: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const child = execFile('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    );
    child.stdin?.end();
  });
}

describe('every operation has both samples', () => {
  it.each(ops.map((op) => [op.operationId]))('%s: a .ts and a .curl.sh sample', (operationId) => {
    const samples = samplesFor(operationId);
    expect(samples.map((s) => s.lang)).toEqual(['curl', 'TypeScript']);
    for (const sample of samples) expect(sample.source).not.toMatch(/sample:(start|end)|export async function run/);
  });

  it('withSamples adds x-codeSamples to every operation without changing the input', () => {
    const before = JSON.stringify(spec);
    const doc = withSamples(spec);
    expect(JSON.stringify(spec)).toBe(before);
    for (const { operation } of operations(doc)) {
      expect(operation['x-codeSamples']).toEqual(samplesFor(String(operation.operationId)));
    }
  });

  it('a missing sample is an error, not a silent gap', () => {
    expect(() => samplesFor('noSuchOperation')).toThrow(/no code sample for noSuchOperation/);
  });

  it('extracts marked regions, dedented', () => {
    expect(extractSample('x\n// sample:start\nimport a;\n// sample:end\nf() {\n  // sample:start\n  a();\n    b();\n  // sample:end\n}\n')).toBe('import a;\n\na();\n  b();\n');
    expect(extractSample('curl x\n')).toBe('curl x\n');
  });
});

describe('the TypeScript samples run against the sandbox', () => {
  it.each(ops.map((op) => [op.operationId, op]))('%s', async (operationId, op) => {
    const ids = await fixture();
    const mod = (await import(pathToFileURL(samplePaths(operationId).typescript).href)) as { run: (args: Record<string, string>) => Promise<unknown> };
    expect(typeof mod.run).toBe('function');
    const log = console.log;
    console.log = () => {};
    let body: unknown;
    try {
      body = await mod.run(ids); // the client throws on any non-2xx
    } finally {
      console.log = log;
    }
    const { validate } = successOf(op.operation);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('the curl samples run against the sandbox', () => {
  it.each(ops.map((op) => [op.operationId, op]))('%s', async (operationId, op) => {
    const ids = await fixture();
    const template = readFileSync(samplePaths(operationId).curl, 'utf8');
    const env: Record<string, string> = {
      BASE_URL: ids.baseUrl,
      API_KEY: ids.apiKey,
      RECIPIENT_ID: ids.recipientId,
      TRANSFER_ID: ids.transferId,
      IDEMPOTENCY_KEY: crypto.randomUUID(),
    };
    // Every placeholder of the template is one we substitute (set -u would also fail on an unknown one).
    for (const [, name] of template.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)) expect(Object.keys(env)).toContain(name);
    // The template as written; curl also prints the status on a last line.
    const script = `set -euo pipefail\ncurl() { command curl --write-out '\\n%{http_code}' "$@"; }\n${extractSample(template)}`;
    const { stdout, stderr, code } = await bash(script, env);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const status = Number(lines.pop());
    const { status: expected, validate } = successOf(op.operation);
    expect(status, stdout).toBe(expected);
    const body = JSON.parse(lines.join('\n')) as unknown;
    expect(isObject(body) || Array.isArray(body)).toBe(true);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });
});
