// One contract run: detect the target and its capabilities, provision keys (with --admin-token), then per
// operation every selected check of the registry that applies, in a fixed order (so --seed replays the same
// run). Returns the report; writing it and the exit code are the CLI's business. Under --strict-503 every
// inconclusive answer (a documented 503 or the edge's 502/504) becomes a failure of its check.
import { loadSpec, type OpenApiDocument } from '@payments/spec';
import { capabilitiesOf, MISSING_BECAUSE } from './capabilities.ts';
import { CheckRecorder } from './check-result.ts';
import { INCONCLUSIVE, RATE_LIMITED } from './checks/expectations.ts';
import { createContext, type KitContext } from './context.ts';
import { unexercised, unexercisedAssumed } from './coverage.ts';
import type { Transport } from './http.ts';
import { KeyPool, type RateLimit } from './pacing.ts';
import { adminClient, FULL_ORGANIZATION, SetupError, tokenRefused, type AdminClient } from './probes/admin.ts';
import { propertySeed } from './properties.ts';
import { silentProgress, type Progress } from './progress.ts';
import { selectChecks, type CheckEnv } from './registry.ts';
import { loadApi, type OperationModel } from './spec-model.ts';
import { detectTarget, keyRefusal, prismAddsCors, UnreachableError } from './target.ts';
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

export async function run(options: RunOptions, hooks: RunHooks = {}): Promise<Report> {
  const progress = hooks.progress ?? silentProgress;
  const started = Date.now();
  const api = loadApi(hooks.doc ?? loadSpec());
  const selected = selectOperations(api.operations, options.operations);
  const { checks: definitions, unknown } = selectChecks(options.checks ?? [], options.excludeChecks ?? []);
  if (unknown.length > 0) throw new UsageError(`unknown check${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (see --list-checks)`);
  const transport: Transport = { baseUrl: options.baseUrl.replace(/\/+$/, ''), timeoutMs: options.timeoutMs, onRequest: () => progress.request() };
  const notes: string[] = [];
  const notApplicable: Report['notApplicable'] = [];
  let ctx: KitContext | undefined;
  const report = (checks: CheckResult[], target: Report['target']): Report => {
    const coverage = ctx ? ctx.coverage.rows(selected) : [];
    const failed = checks.filter((c) => c.status === 'failed').length;
    const skipped = checks.filter((c) => c.status === 'skipped').length;
    return {
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
        failed,
        skipped,
        warnings: checks.reduce((n, c) => n + c.warnings.length, 0),
        inconclusive: checks.reduce((n, c) => n + c.inconclusive, 0),
        requests: checks.reduce((n, c) => n + c.requests, 0),
      },
      checks,
      notes,
      notApplicable,
      coverage,
      unexercised: unexercised(coverage),
      unexercisedAssumed: unexercisedAssumed(coverage),
      // 429s the run ran into (the rate-limit probe's own, expected one is not counted).
      pacing: { ...(ctx?.keys.stats ?? { keys: 1, waitedMs: 0, overBudget: 0 }), rateLimited: checks.reduce((n, c) => n + c.warnings.filter((w) => w.rule === RATE_LIMITED).reduce((m, w) => m + w.count, 0), 0) },
      allowSkips: options.allowSkips === true,
      verdict: failed > 0 || (skipped > 0 && options.allowSkips !== true) ? 'failed' : 'passed',
    };
  };

  let target: Report['target'];
  // An admin API that answers the token is the sandbox's: a server (Prism has none), and no request of the
  // run's key is spent on detection.
  // A refused token is said after detection (the target must be a server for its admin API to count).
  const early = options.target === 'auto' && options.adminToken ? await reachableAdmin(transport, options.adminToken, [], false) : undefined;
  if (early) {
    target = 'server';
    notes.push('target: a server (its admin API answered the token)');
  } else if (options.target === 'auto') {
    try {
      const detected = await detectTarget(api, quietTransport(transport), options.apiKey);
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
  const admin = early ?? (target === 'server' && options.adminToken ? await reachableAdmin(transport, options.adminToken, notes) : undefined);
  const addsCors = target === 'prism' ? await prismAddsCors(api, quietTransport(transport), options.apiKey) : false;
  // An empty key (an empty PAYMENTS_OTHER_API_KEY, a programmatic '') is no key: isolation is then not applicable.
  const otherApiKey = options.otherApiKey || undefined;
  const caps = capabilitiesOf(target, admin !== undefined, otherApiKey !== undefined, addsCors);
  if (caps.ownProblemJson) {
    notes.push("refusals: only their status is checked; the code a broken constraint documents (its x-error-code) is not compared, because Prism answers its own validation (invalid_request, or its problem+json)");
  }
  const { apiKey, keys, organizationId } = await provisionKeys(target, admin, options, notes, progress);
  if (!organizationId && target === 'server') {
    const refused = await keyRefusal(api, transport, keys);
    if (refused) throw new UsageError(`the server refused the API key: ${refused}, so every check would meet that answer; nothing else was run. Check --api-key (a key this server issued; payments-sandbox prints one), or give --admin-token to let the kit make its own`);
  }
  if (otherApiKey && target === 'server') {
    const refused = await keyRefusal(api, transport, new KeyPool({ primary: otherApiKey, maxWaitMs: 0 }));
    if (refused) throw new UsageError(`the server refused the key of --other-api-key: ${refused}; nothing was run. Check --other-api-key (a key this server issued to another organization)`);
  }
  ctx = createContext(api, transport, apiKey, target, caps, { keys, admin, organizationId, otherApiKey });
  const env: CheckEnv = {
    options,
    selected,
    seed: (op, id) => propertySeed(options.seed, `${op.operationId}/${id}`),
    timeLimitMs: hooks.propertyTimeLimitMs ?? 120_000,
  };
  const tasks: { name: string; run: () => Promise<CheckResult | undefined> }[] = [];
  for (const op of selected) {
    for (const def of definitions) {
      if (!def.appliesTo(op, ctx, env)) continue;
      const missing = def.needs.filter((c) => !caps[c]);
      if (missing.length > 0) {
        notApplicable.push({ check: def.id, operationId: op.operationId, reason: missing.map((c) => MISSING_BECAUSE[c]).join('; ') });
        continue;
      }
      const context = ctx;
      tasks.push({ name: `${op.operationId} › ${def.title}`, run: () => def.run(context, op, env) });
    }
  }
  if (tasks.length === 0 && (options.checks?.length ?? 0) > 0) {
    // Every check asked for by name is not applicable here: a run that checked nothing does not pass.
    const check = new CheckRecorder('(selection)', 'applicable', 'a check selected with --checks applies to the target');
    const why = [...new Set(notApplicable.map((n) => `${n.check}: ${n.reason}`))].join('; ');
    check.add([{ severity: 'failure', rule: 'not-applicable', message: `none of the checks selected (--checks ${options.checks!.join(',')}) applies to this target, so nothing was checked (${why || 'no selected operation has them'})` }]);
    return report([check.result()], target);
  }
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

/** The transport without the coverage hook: requests that belong to no check (detection, capability probes). */
function quietTransport(transport: Transport): Transport {
  const { onRequest: _counted, ...quiet } = transport;
  return quiet;
}

/**
 * The admin API, if it answers the token. A token the user gave that the server refuses (401/403 on
 * GET /admin/health) stops the run with a usage error naming the option, as a refused --api-key does: a run
 * without the checks that need it would pass while saying nothing about them. Another failure (no admin API
 * at that URL, 404) leaves those checks not applicable, with a note.
 */
async function reachableAdmin(transport: Transport, token: string, notes: string[], refusalStops = true): Promise<AdminClient | undefined> {
  const admin = adminClient({ transport }, token);
  try {
    await admin.health();
    return admin;
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    if (tokenRefused(err)) {
      if (!refusalStops) return undefined;
      throw new UsageError(`the server refused the admin token (--admin-token or $SANDBOX_ADMIN_TOKEN): GET /admin/health answered ${err.message.replace(/^admin GET \/admin\/health → /, '')}; nothing was run. Check the token (payments-sandbox prints it), or leave it out to run without the admin API`);
    }
    notes.push(`admin API not available (${err.message}): the checks that need it are not run`);
    return undefined;
  }
}

/**
 * The run's keys. With the admin API: an organization of the kit's own (every product on, funded) and
 * as many keys of it as the rate limit needs, so the run never waits and never meets a 429. Without it:
 * the given key, paced within the documented limit (waiting at most --max-wait-s in total). Against Prism: the
 * given key, unpaced.
 */
async function provisionKeys(target: Report['target'], admin: AdminClient | undefined, options: RunOptions, notes: string[], progress: Progress): Promise<{ apiKey: string; keys: KeyPool; organizationId?: string }> {
  if (target === 'prism') {
    // The mock is stateless and enforces no rate limit (QA: a default run sat 15 min on the card limit).
    notes.push("rate limit: Prism's mock enforces none, so nothing is paced");
    return { apiKey: options.apiKey, keys: new KeyPool({ primary: options.apiKey, maxWaitMs: 0, paced: false }) };
  }
  const maxWaitMs = (options.maxWaitS ?? 900) * 1000;
  const paced = () => new KeyPool({ primary: options.apiKey, maxWaitMs, onWait: (ms, limit) => progress.waiting?.(ms, waitingFor(limit)) });
  if (!admin) {
    notes.push(`rate limit: one key, paced within the spec's x-rate-limit (waits at most ${maxWaitMs / 1000} s in total; then 429s are reported and their checks skipped)`);
    return { apiKey: options.apiKey, keys: paced() };
  }
  try {
    const org = await admin.createOrganization(FULL_ORGANIZATION);
    const first = await admin.createApiKey(org.id);
    notes.push(`rate limit: the kit's own organization ${org.id} (admin API), a new key of it whenever one nears the spec's x-rate-limit`);
    const keys = new KeyPool({ primary: first.key, maxWaitMs, provision: async () => (await admin.createApiKey(org.id)).key });
    return { apiKey: first.key, keys, organizationId: org.id };
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    notes.push(`could not provision keys through the admin API (${err.message}): one key, paced`);
    return { apiKey: options.apiKey, keys: paced() };
  }
}

/** What a paced run waits for, said so that the way out is in it. */
const waitingFor = (limit: RateLimit): string =>
  `the rate limit${limit.bucket === 'default' ? '' : ` of ${limit.bucket}`} (${limit.limit} requests per ${limit.windowMs / 60_000} min per key, the spec's x-rate-limit; --admin-token lets the kit use fresh keys instead, --max-wait-s caps the waiting)`;

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
  return wanted.map((id) => known.get(id)!);
}
