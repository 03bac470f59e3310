// One contract run: detect the target, then per operation the generated-request properties, the auth probes
// and the stateful probes, in a fixed order (so --seed replays the same run). Returns the report; writing it
// and the exit code are the CLI's business. Under --strict-503 every inconclusive answer (a documented 503 or
// the edge's 502/504) becomes a failure of its check.
import { loadSpec, type OpenApiDocument } from '@payments/spec';
import { CheckRecorder } from './check-result.ts';
import { INCONCLUSIVE } from './checks/expectations.ts';
import { createContext, type KitContext } from './context.ts';
import type { Transport } from './http.ts';
import { mutationKinds } from './mutate.ts';
import { AUTH_PROBES, authProbe } from './probes/auth.ts';
import { revokedKeyProbe } from './probes/revoked.ts';
import { CONFLICT_CODE, conflictProbe, replayProbe } from './probes/stateful.ts';
import { invalidRequestsCheck, propertySeed, validRequestsCheck } from './properties.ts';
import { silentProgress, type Progress } from './progress.ts';
import { loadApi, type OperationModel } from './spec-model.ts';
import { detectTarget, UnreachableError } from './target.ts';
import type { CheckResult, Report, RunOptions } from './types.ts';

export const TOOL = '@payments/contract-kit';

export class UsageError extends Error {}

export interface RunHooks {
  progress?: Progress;
  /** The document to check against; the bundled spec by default. */
  doc?: OpenApiDocument;
  /** Per-property time budget (generation and shrinking). */
  propertyTimeLimitMs?: number;
}

interface Task {
  name: string;
  run(): Promise<CheckResult | undefined>;
}

export async function run(options: RunOptions, hooks: RunHooks = {}): Promise<Report> {
  const progress = hooks.progress ?? silentProgress;
  const started = Date.now();
  const api = loadApi(hooks.doc ?? loadSpec());
  const selected = selectOperations(api.operations, options.operations);
  const transport: Transport = { baseUrl: options.baseUrl.replace(/\/+$/, ''), timeoutMs: options.timeoutMs, onRequest: () => progress.request() };
  const notes: string[] = [];
  const report = (checks: CheckResult[], target: Report['target']): Report => ({
    tool: TOOL,
    baseUrl: transport.baseUrl,
    target,
    seed: options.seed,
    runs: options.runs,
    strict503: options.strict503 === true,
    operations: selected.map((op) => op.operationId),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    totals: {
      checks: checks.length,
      passed: checks.filter((c) => c.status === 'passed').length,
      failed: checks.filter((c) => c.status === 'failed').length,
      skipped: checks.filter((c) => c.status === 'skipped').length,
      warnings: checks.reduce((n, c) => n + c.warnings.length, 0),
      inconclusive: checks.reduce((n, c) => n + c.inconclusive, 0),
      requests: checks.reduce((n, c) => n + c.requests, 0),
    },
    checks,
    notes,
  });

  let target: Report['target'];
  if (options.target === 'auto') {
    try {
      const { onRequest: _counted, ...quiet } = transport; // detection requests belong to no check
      const detected = await detectTarget(api, quiet, options.apiKey);
      target = detected.target;
      notes.push(detected.note);
    } catch (err) {
      if (!(err instanceof UnreachableError)) throw err;
      const check = new CheckRecorder('(connection)', 'reachable', 'the base URL answers');
      check.add([{ severity: 'failure', rule: 'no-response', message: err.message }]);
      return report([check.result()], 'server');
    }
  } else {
    target = options.target;
    notes.push(`target: ${target} (--target)`);
  }
  const ctx = createContext(api, transport, options.apiKey, target);
  const tasks = plan(ctx, selected, options);
  progress.begin(tasks.length);
  const checks: CheckResult[] = [];
  try {
    for (const task of tasks) {
      progress.checkStart(task.name);
      const found = await task.run();
      const result = found && options.strict503 ? strictInconclusive(found) : found;
      if (result) {
        checks.push(result);
        progress.checkEnd(result);
      }
    }
  } finally {
    progress.end();
  }
  return report(checks, target);
}

/** --strict-503: the check's inconclusive warnings become failures (the count stays as it was). */
export function strictInconclusive(result: CheckResult): CheckResult {
  const moved = result.warnings.filter((w) => w.rule === INCONCLUSIVE);
  if (moved.length === 0) return result;
  return {
    ...result,
    status: 'failed',
    failures: [
      ...result.failures,
      ...moved.map(({ count, ...w }) => ({
        ...w,
        severity: 'failure' as const,
        message: `${w.message}${count > 1 ? ` (x${count})` : ''}; a failure under --strict-503`,
      })),
    ],
    warnings: result.warnings.filter((w) => w.rule !== INCONCLUSIVE),
  };
}

function selectOperations(all: OperationModel[], wanted: string[]): OperationModel[] {
  if (wanted.length === 0) return all;
  const known = new Map(all.map((op) => [op.operationId, op]));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new UsageError(`unknown operation${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the spec has ${all.map((op) => op.operationId).join(', ')})`);
  return all.filter((op) => wanted.includes(op.operationId));
}

function plan(ctx: KitContext, ops: OperationModel[], options: RunOptions): Task[] {
  const tasks: Task[] = [];
  const revokedOn = ops.find((op) => op.method === 'GET' && op.pathParams.length === 0) ?? ops[0];
  const property = (id: string) => ({ seed: propertySeed(options.seed, id), runs: options.runs, timeLimitMs: 120_000 });
  for (const op of ops) {
    const id = op.operationId;
    tasks.push({ name: `${id} › valid requests`, run: () => validRequestsCheck(ctx, op, property(`${id}/valid`)) });
    if (mutationKinds(ctx, op).length > 0) {
      tasks.push({ name: `${id} › invalid requests`, run: () => invalidRequestsCheck(ctx, op, property(`${id}/invalid`), []) });
    }
    if (op.secured) {
      for (const probe of AUTH_PROBES) tasks.push({ name: `${id} › ${probe.name}`, run: () => authProbe(ctx, op, probe, propertySeed(options.seed, `${id}/${probe.slug}`)) });
    }
    if (op.method === 'POST' && op.idempotencyKey) tasks.push({ name: `${id} › idempotent replay`, run: () => replayProbe(ctx, op) });
    if (op.codes.get(409)?.has(CONFLICT_CODE)) tasks.push({ name: `${id} › idempotency conflict`, run: () => conflictProbe(ctx, op) });
    if (op === revokedOn && op.secured) {
      tasks.push({ name: `${id} › revoked key`, run: () => revokedKeyProbe(ctx, op, options.adminToken, propertySeed(options.seed, `${id}/revoked`)) });
    }
  }
  return tasks;
}
