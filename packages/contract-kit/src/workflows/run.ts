// Runs the provider's workflows with Respect against a target: a fresh sandbox (default), a given sandbox (with
// its admin API: every workflow), a server without the admin API (staging: the workflows that need a provider
// state are not applicable), or Prism's stateless mock (only the steps a mock can honour).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { startSandbox, type RunningSandbox } from '@payments/sandbox';
import { httpUrlProblem } from '../args.ts';
import { admin } from '../client-mode/provision.ts';
import { loadApi, type ApiModel } from '../spec-model.ts';
import { KeyPool } from '../pacing.ts';
import { detectTarget, keyRefusal } from '../target.ts';
import { defaultWorkflowsDir, loadWorkflows, readIndex, type Workflow } from './model.ts';
import { planForMock, writeMockVariant } from './mock-variant.ts';
import { responseJudge, SPEC_CHECKS, type ResponseJudge } from './judge.ts';
import { notApplicable, workflowResult, type WorkflowResult } from './outcome.ts';
import { findRedocly, runRespect } from './respect.ts';

export class WorkflowUsageError extends Error {}

export interface WorkflowRunOptions {
  /** The public API's base URL; omitted: a fresh sandbox is started (and stopped). */
  server?: string | undefined;
  /** The sandbox's admin API (default: the server, when an admin token is given). */
  adminUrl?: string | undefined;
  adminToken?: string | undefined;
  /** The caller's key for the workflows that take one (default: a new organization's, made through the admin API). */
  apiKey?: string | undefined;
  /** Only these workflowIds (default: all). */
  workflows: string[];
  target: 'auto' | 'prism' | 'server';
  /** The folder of the workflow files and index.json (default: @payments/spec's dist/workflows/). */
  dir?: string | undefined;
  /** Makes Idempotency-Keys and names new; default random (printed). */
  runId?: string | undefined;
  timeoutMs: number;
  /** Progress lines (stderr for the CLI). */
  onProgress?: (line: string) => void;
  /** Respect's own output per file (--verbose). */
  onRespectOutput?: (file: string, output: string) => void;
}

export interface WorkflowReport {
  tool: string;
  server: string;
  target: 'sandbox' | 'server' | 'prism';
  runId: string;
  startedAt: string;
  durationMs: number;
  results: WorkflowResult[];
  /** `warnings`: answers that differ only from what the spec assumes (listed under each step; never a failure). */
  totals: { workflows: number; passed: number; partial: number; failed: number; notApplicable: number; steps: number; stepsPassed: number; stepsFailed: number; stepsNotApplicable: number; stepsNotRun: number; warnings: number };
  /** `nothing-checked`: no step ran (every workflow chosen was not applicable to the target). */
  verdict: 'passed' | 'failed' | 'nothing-checked';
}

/** Every product on, card terms accepted: the organization whose key the key-taking workflows use. */
const CALLER_ORGANIZATION = { name: 'workflows', banking: true, cards: true, checkout: true, cardTermsAccepted: true, walletTransfers: true, funding: { BRL: '100000.00', USD: '100000.00' } };

/** A GET the run cannot do without: its status, or a usage error naming the URL and why it was not reached. */
async function reach(url: string, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  try {
    return (await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) })).status;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new WorkflowUsageError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
}

/** --server and --admin-url: absolute http(s) URLs (a URL without its scheme is a usage error, not a stack trace). */
function checkUrl(name: string, value: string | undefined): void {
  if (value !== undefined && httpUrlProblem(value)) throw new WorkflowUsageError(`${name} must be an absolute http(s) URL, as http://127.0.0.1:8080; got "${value}"`);
}

/** The run id goes into Idempotency-Keys, nicknames and a PIX key's e-mail address: letters, digits, `-` and `_`. */
function checkRunId(runId: string | undefined): void {
  if (runId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(runId)) throw new WorkflowUsageError(`--run-id must be 1–64 letters, digits, "-" or "_" (it goes into Idempotency-Keys, nicknames and a PIX key); got "${runId}"`);
}

/** The admin API answers its health with the token (true), refuses the token (usage error), or is not there at all. */
async function checkAdmin(adminUrl: string, adminToken: string, timeoutMs: number): Promise<true> {
  const status = await reach(`${adminUrl}/admin/health`, { authorization: `Bearer ${adminToken}` }, timeoutMs);
  if (status < 300) return true;
  if (status === 401 || status === 403) throw new WorkflowUsageError(`the admin API at ${adminUrl} did not accept the admin token (${status} on GET /admin/health): check --admin-token or $SANDBOX_ADMIN_TOKEN`);
  throw new WorkflowUsageError(`there is no sandbox admin API at ${adminUrl} (${status} on GET /admin/health; a server of the API, or Prism, has none): leave out --admin-token, or give --admin-url of a sandbox`);
}

/** A key the server refuses stops the run before any workflow, by the kit's own test of a refused key (target.ts). */
async function checkApiKey(api: ApiModel, server: string, apiKey: string, timeoutMs: number): Promise<void> {
  const refused = await keyRefusal(api, { baseUrl: server, timeoutMs }, new KeyPool({ primary: apiKey, maxWaitMs: 0 }));
  if (refused) throw new WorkflowUsageError(`the server at ${server} refused the API key (${refused}): check --api-key or $PAYMENTS_API_KEY`);
}

async function whichTarget(api: ApiModel, options: WorkflowRunOptions, server: string, hasAdmin: boolean, apiKey: string): Promise<'server' | 'prism'> {
  if (options.target !== 'auto') return options.target;
  if (hasAdmin) return 'server';
  return (await detectTarget(api, { baseUrl: server, timeoutMs: options.timeoutMs }, apiKey)).target;
}

/** A key-shaped placeholder for Prism, which checks that the header is there, not whose key it is. */
const mockKey = () => `svc_live_${randomBytes(16).toString('hex')}`;

export async function runWorkflows(options: WorkflowRunOptions): Promise<WorkflowReport> {
  const started = Date.now();
  const progress = options.onProgress ?? (() => {});
  const dir = options.dir ?? defaultWorkflowsDir();
  const all = loadWorkflows(dir);
  const unknown = options.workflows.filter((id) => !all.some((w) => w.workflowId === id));
  if (unknown.length > 0) throw new WorkflowUsageError(`unknown workflow ${unknown.join(', ')} (known: ${all.map((w) => w.workflowId).join(', ')})`);
  const chosen = options.workflows.length > 0 ? all.filter((w) => options.workflows.includes(w.workflowId)) : all;
  checkUrl('--server', options.server);
  checkUrl('--admin-url', options.adminUrl);
  checkRunId(options.runId);
  findRedocly(); // before a sandbox starts: a missing redocly is said at once
  let sandbox: RunningSandbox | undefined;
  if (!options.server) {
    progress('workflows: starting a fresh sandbox (in memory)');
    sandbox = await startSandbox({});
  }
  try {
    const server = sandbox?.url ?? options.server!;
    const adminToken = sandbox?.adminToken ?? options.adminToken;
    const adminUrl = sandbox?.url ?? options.adminUrl ?? (adminToken ? server : undefined);
    if (!sandbox) await reach(server, {}, options.timeoutMs); // any answer will do: the server is there
    const hasAdmin = adminToken !== undefined && adminUrl !== undefined && (await checkAdmin(adminUrl, adminToken, options.timeoutMs));
    const api = loadApi(); // the bundled spec, parsed once per run
    const target = await whichTarget(api, options, server, hasAdmin, options.apiKey ?? mockKey());
    if (options.apiKey && target === 'server') await checkApiKey(api, server, options.apiKey, options.timeoutMs);
    let apiKey = options.apiKey;
    if (!apiKey && target === 'prism') apiKey = mockKey();
    if (!apiKey && hasAdmin) {
      const org = await admin({ baseUrl: adminUrl!, adminToken: adminToken! }, 'POST', '/organizations', CALLER_ORGANIZATION);
      apiKey = String((await admin({ baseUrl: adminUrl!, adminToken: adminToken! }, 'POST', `/organizations/${org.id}/api-keys`, {})).key);
    }
    if (!apiKey && chosen.some((w) => w.needsApiKey)) throw new WorkflowUsageError('--api-key is needed (or --admin-url and --admin-token, to make an organization and its key)');
    const runId = options.runId ?? `wf${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    progress(`workflows: ${chosen.length} against ${server} (${sandbox ? 'a fresh sandbox' : target === 'prism' ? "Prism's stateless mock" : hasAdmin ? 'a sandbox, with its admin API' : 'a server, without an admin API'}), run id ${runId}`);
    const judge = responseJudge(api, server, target);
    const context: RunContext = { options, dir, server, adminUrl: hasAdmin ? adminUrl : undefined, adminToken: hasAdmin ? adminToken : undefined, apiKey, runId, target, progress, judge };
    const results = await runAll(chosen, context);
    return report(results, { server, target: sandbox ? 'sandbox' : target, runId, started });
  } finally {
    await sandbox?.close();
  }
}

interface RunContext {
  options: WorkflowRunOptions;
  dir: string;
  server: string;
  adminUrl: string | undefined;
  adminToken: string | undefined;
  apiKey: string | undefined;
  runId: string;
  target: 'server' | 'prism';
  progress: (line: string) => void;
  judge: ResponseJudge;
}

async function runAll(chosen: Workflow[], ctx: RunContext): Promise<WorkflowResult[]> {
  const results = new Map<string, WorkflowResult>();
  const files = readIndex(ctx.dir);
  let done = 0;
  const record = (r: WorkflowResult) => {
    results.set(r.workflowId, r);
    done++;
    const failed = r.steps.find((s) => s.status === 'failed');
    const why = r.status === 'failed' && failed ? `: step ${failed.stepId}${failed.failed[0] ? ` — ${failed.failed[0].condition ?? failed.failed[0].name}` : ''}` : r.status === 'not-applicable' ? `: ${r.reason}` : '';
    ctx.progress(`[${done}/${chosen.length}] ${r.status.padEnd(14)} ${r.workflowId}${why}`);
  };
  for (const file of files) {
    const mine = chosen.filter((w) => w.path.endsWith(`/${file.file}`));
    if (mine.length === 0) continue;
    let runnable: { workflow: Workflow; skipped: Map<string, string> }[];
    let path = mine[0]!.path;
    let cleanup: string | undefined;
    if (ctx.target === 'prism') {
      const plan = planForMock(mine);
      for (const { workflow, reason } of plan.notApplicable) record(notApplicable(workflow, file.file, reason));
      runnable = plan.run;
      if (runnable.length > 0) {
        path = writeMockVariant(file, mine[0]!.path, plan);
        cleanup = dirname(path);
      }
    } else {
      runnable = [];
      for (const workflow of mine) {
        if (workflow.needsAdmin && !ctx.adminUrl) record(notApplicable(workflow, file.file, "it sets a provider state through the sandbox's admin API: give --admin-token (and --admin-url when the admin API is not at --server)"));
        else runnable.push({ workflow, skipped: new Map() });
      }
    }
    if (runnable.length === 0) continue;
    ctx.progress(`▶ ${file.file}: ${runnable.map((r) => r.workflow.workflowId).join(', ')}`);
    try {
      const run = await runRespect(path, {
        servers: { payments: ctx.server, ...(ctx.adminUrl ? { admin: ctx.adminUrl } : {}) },
        inputs: { runId: ctx.runId, ...(ctx.apiKey ? { apiKey: ctx.apiKey } : {}), ...(ctx.adminToken ? { adminToken: ctx.adminToken } : {}) },
        workflows: runnable.map((r) => r.workflow.workflowId),
        timeoutMs: ctx.options.timeoutMs,
        warnings: SPEC_CHECKS,
      });
      ctx.options.onRespectOutput?.(file.file, run.output);
      const executed = Object.values(run.log?.files ?? {}).flatMap((f) => f.executedWorkflows);
      if (!run.log) ctx.progress(`respect wrote no log for ${file.file} (exit ${run.exitCode}):\n${run.output.trim().split('\n').slice(-15).join('\n')}`);
      for (const { workflow, skipped } of runnable) record(workflowResult(workflow, file.file, executed.find((e) => e.workflowId === workflow.workflowId), skipped, ctx.judge));
    } finally {
      if (cleanup) rmSync(cleanup, { recursive: true, force: true });
    }
  }
  return chosen.map((w) => results.get(w.workflowId)!);
}

function report(results: WorkflowResult[], meta: { server: string; target: WorkflowReport['target']; runId: string; started: number }): WorkflowReport {
  const steps = results.flatMap((r) => r.steps);
  const count = <T>(list: T[], test: (x: T) => boolean) => list.filter(test).length;
  const failed = count(results, (r) => r.status === 'failed');
  return {
    tool: 'payments-contract-kit workflows',
    server: meta.server,
    target: meta.target,
    runId: meta.runId,
    startedAt: new Date(meta.started).toISOString(),
    durationMs: Date.now() - meta.started,
    results,
    totals: {
      workflows: results.length,
      passed: count(results, (r) => r.status === 'passed'),
      partial: count(results, (r) => r.status === 'partial'),
      failed,
      notApplicable: count(results, (r) => r.status === 'not-applicable'),
      steps: steps.length,
      stepsPassed: count(steps, (s) => s.status === 'passed'),
      stepsFailed: count(steps, (s) => s.status === 'failed'),
      stepsNotApplicable: count(steps, (s) => s.status === 'not-applicable'),
      stepsNotRun: count(steps, (s) => s.status === 'not-run'),
      warnings: steps.reduce((sum, s) => sum + s.warnings.length, 0),
    },
    verdict: failed > 0 ? 'failed' : count(steps, (s) => s.status === 'passed') === 0 ? 'nothing-checked' : 'passed',
  };
}
