// `payments-contract-kit workflows` as a user meets its edges: a server it cannot reach, a URL without its
// scheme, an admin token or an API key the server refuses stop the run before any workflow with one line and
// exit 2 (they were a stack trace, a blame on the token, or seven failed workflows); a run in which no step
// ran (every chosen workflow not applicable) fails as NOTHING CHECKED instead of passing.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '@payments/sandbox';
import { workflowsMain } from '../src/workflows/cli.ts';
import { loadWorkflows } from '../src/workflows/model.ts';
import { renderWorkflowSummary } from '../src/workflows/report.ts';
import { runWorkflows } from '../src/workflows/run.ts';

/** workflowsMain with its stderr captured. */
async function runCli(argv: string[]): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await workflowsMain(argv), stderr };
  } finally {
    process.stderr.write = write;
  }
}

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A loopback HTTP server answering every request with one status and JSON body (a server without the admin API). */
async function answering(status: number, body: unknown): Promise<{ url: string; server: Server }> {
  const server = createHttpServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

async function withServer(status: number, body: unknown, run: (url: string) => Promise<void>): Promise<void> {
  const { url, server } = await answering(status, body);
  try {
    await run(url);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({});
});
afterAll(async () => {
  await sandbox?.close();
});

describe('refused before any workflow runs: one line, exit 2', () => {
  it('a server nothing answers at', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await runCli(['--server', url, '--api-key', 'svc_live_abcdefabcdefabcdef']);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^workflows: cannot reach ${url}/?: ECONNREFUSED\\n$`));
  });

  it('the same server with an admin token: the server is named, not the token', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await runCli(['--server', url, '--admin-token', 'adm_any_token_for_the_test_000']);
    expect(code).toBe(2);
    expect(stderr).toContain(`cannot reach ${url}`);
    expect(stderr).not.toContain('admin token');
  });

  it('an admin token for a server without the admin API: no admin API, not a refused token', async () => {
    await withServer(404, { error: 'Not found', code: 'not_found', requestId: 'r' }, async (url) => {
      const { code, stderr } = await runCli(['--server', url, '--admin-token', 'adm_any_token_for_the_test_000']);
      expect(code).toBe(2);
      expect(stderr).toContain(`there is no sandbox admin API at ${url} (404 on GET /admin/health`);
      expect(stderr).not.toContain('did not accept');
    });
  });

  it('an admin token the admin API refuses', async () => {
    const { code, stderr } = await runCli(['--server', sandbox.url, '--admin-token', 'adm_not_this_sandboxes_token_00']);
    expect(code).toBe(2);
    expect(stderr).toContain('did not accept the admin token (401 on GET /admin/health)');
  });

  it('a run id that cannot go into an Idempotency-Key', async () => {
    const { code, stderr } = await runCli(['--server', sandbox.url, '--api-key', 'svc_live_abcdefabcdefabcdef', '--run-id', 'a b/c']);
    expect(code).toBe(2);
    expect(stderr).toBe('workflows: --run-id must be 1–64 letters, digits, "-" or "_" (it goes into Idempotency-Keys, nicknames and a PIX key); got "a b/c"\n');
  });

  it('an API key a server refuses with 403 and no access-control code', async () => {
    await withServer(403, { error: 'Forbidden', code: 'forbidden', requestId: 'r' }, async (url) => {
      const { code, stderr } = await runCli(['--server', url, '--api-key', 'svc_live_abcdefabcdefabcdef', '--target', 'server']);
      expect(code).toBe(2);
      expect(stderr).toContain('refused the API key (GET /v1/banking/balance with it answered 403 forbidden, as a made-up key of the same shape does)');
    });
  });

  it('an empty option value (an unset variable in a script) is refused, not taken as no value', async () => {
    const { code, stderr } = await runCli(['--api-key=']);
    expect(code).toBe(2);
    expect(stderr).toContain('workflows: --api-key is empty: give a value, or leave the option out');
  });

  it('a URL without its scheme', async () => {
    const { code, stderr } = await runCli(['--server', '127.0.0.1:8080', '--api-key', 'svc_live_abcdefabcdefabcdef']);
    expect(code).toBe(2);
    expect(stderr).toBe('workflows: --server must be an absolute http(s) URL, as http://127.0.0.1:8080; got "127.0.0.1:8080"\n');
  });

  it('an API key the server refuses', async () => {
    const { code, stderr } = await runCli(['--server', sandbox.url, '--api-key', 'svc_live_notakeyofthissandbox00']);
    expect(code).toBe(2);
    expect(stderr).toContain('refused the API key (GET /v1/banking/balance with it answered 401 invalid_api_key)');
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});

it('a run in which no step ran is NOTHING CHECKED, not passed (exit 1)', { timeout: 60_000 }, async () => {
  const key = (await (await fetch(`${sandbox.url}/admin/organizations`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminToken}`, 'content-type': 'application/json' }, body: '{"banking":true}' })).json()) as { id: string };
  const created = (await (await fetch(`${sandbox.url}/admin/organizations/${key.id}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminToken}` } })).json()) as { key: string };
  // transfer-503-retry sets a fault through the admin API: without it, not applicable.
  const report = await runWorkflows({ server: sandbox.url, apiKey: created.key, workflows: ['transfer-503-retry'], target: 'auto', timeoutMs: 10_000 });
  expect(report.totals.notApplicable).toBe(1);
  expect(report.verdict).toBe('nothing-checked');
  expect(renderWorkflowSummary(report)).toMatch(/NOTHING CHECKED\n$/);
  const { code } = await runCli(['--server', sandbox.url, '--api-key', created.key, '--workflow', 'transfer-503-retry']);
  expect(code).toBe(1);
});

describe('workflows --list', () => {
  it('lists every shipped workflow with what it needs and its section, and runs nothing', async () => {
    const write = process.stdout.write.bind(process.stdout);
    let stdout = '';
    process.stdout.write = ((chunk: string) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
    let result;
    try {
      result = await runCli(['--list']);
    } finally {
      process.stdout.write = write;
    }
    expect(result).toEqual({ code: 0, stderr: '' });
    const all = loadWorkflows();
    for (const w of all) expect(stdout).toContain(w.workflowId);
    expect(stdout).toMatch(/^revoked-key +admin API +A revoked key fails authentication/m);
    expect(stdout).toMatch(/^pix-payout +API key \(Prism: in part\) +Register a PIX recipient/m);
    expect(stdout).toMatch(/^transfer-not-found +API key +Look up a transfer/m);
    expect(stdout).toContain('section 5. Authentication, rules 1, 2 and 5');
    expect(stdout).toContain(`${all.length} workflows.`);
  });
});
