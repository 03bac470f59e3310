// Respect's JSON log → one result per workflow and step: passed, failed (with the criteria that failed, named),
// not run (an earlier step failed, so Respect stopped), or not applicable (the target cannot honour it; never
// counted as passed).
import { isSpecCheck, type Judged, type ResponseJudge, type Verdict } from './judge.ts';
import type { RespectCheck, RespectStep, RespectWorkflow } from './respect.ts';
import type { Workflow } from './model.ts';

export type StepStatus = 'passed' | 'failed' | 'not-run' | 'not-applicable';
/** `partial`: every step that ran passed, and some steps did not apply to the target (never counted as passed). */
export type WorkflowStatus = 'passed' | 'partial' | 'failed' | 'not-applicable';

export interface FailedCheck {
  /** Respect's check: `success criteria check`, `status code check`, `schema check`, … */
  name: string;
  /** The criterion's condition as written in the workflow, when it is one. */
  condition?: string;
  message: string;
  /**
   * On a warning: the spec only assumed what the answer differs from (its x-assumed-reason). On a failed
   * criterion: it reads a field the answer lacks, whose name the spec only assumes (a server may name it otherwise).
   */
  assumedReason?: string;
  /** On a failed criterion: what the answer held for its references (`$response.body#/amount = "40.00"`). */
  seen?: string;
}

export interface StepResult {
  /** `organization › createApiKey` for the steps of a child workflow. */
  stepId: string;
  status: StepStatus;
  request?: { method: string; url: string };
  statusCode?: number;
  failed: FailedCheck[];
  /** Differences of the answer from what the spec only assumes: reported, never a failure. */
  warnings: FailedCheck[];
  durationMs: number;
  /** Why a step did not apply to the target. */
  reason?: string;
}

export interface WorkflowResult {
  workflowId: string;
  file: string;
  summary: string;
  section: string;
  status: WorkflowStatus;
  /** Why the workflow, or some of its steps, did not apply to the target. */
  reason?: string;
  steps: StepResult[];
  durationMs: number;
}

const failedChecks = (checks: RespectCheck[], response?: RespectStep['response'], assumedAt?: Verdict['assumedAt']): FailedCheck[] =>
  checks
    .filter((c) => !c.passed)
    .map((c) => {
      const seen = c.condition ? seenBy(c.condition, response) : undefined;
      const assumedReason = c.condition && assumedAt && response ? absentAssumedField(c.condition, response, assumedAt) : undefined;
      return { name: c.name, ...(c.condition ? { condition: c.condition } : {}), message: (c.message ?? '').trim(), ...(seen ? { seen } : {}), ...(assumedReason ? { assumedReason } : {}) };
    });

/**
 * The x-assumed reason of the first body field a criterion reads that the answer lacks and the spec only
 * assumes (its name, or where it sits): a server that names it otherwise fails the step, and says why here.
 */
function absentAssumedField(condition: string, response: NonNullable<RespectStep['response']>, assumedAt: Verdict['assumedAt']): string | undefined {
  for (const [ref, pointer] of condition.matchAll(/\$response\.body#(\/[^\s)]*)/g)) {
    const reason = valueAt(ref, response) === undefined ? assumedAt(pointer!) : undefined;
    if (reason) return reason;
  }
  return undefined;
}

/** A criterion's references to the answer with what it held (absent when it held nothing there); a filter shows the body. */
function seenBy(condition: string, response: RespectStep['response']): string | undefined {
  if (!response) return undefined;
  const refs = [...new Set(condition.match(/\$statusCode|\$response\.body#\/[^\s)]*|\$response\.header\.[\w-]+/g) ?? [])];
  if (refs.length === 0 && condition.startsWith('$[?')) refs.push('$response.body');
  const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value).slice(0, 200));
  return refs.length > 0 ? refs.map((ref) => `${ref} = ${shown(valueAt(ref, response))}`).join(', ') : undefined;
}

function valueAt(ref: string, response: NonNullable<RespectStep['response']>): unknown {
  if (ref === '$statusCode') return response.statusCode;
  if (ref.startsWith('$response.header.')) {
    const name = ref.slice('$response.header.'.length).toLowerCase();
    return Object.entries(response.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  }
  let node: unknown = response.body;
  for (const part of ref.slice('$response.body#/'.length).split('/').filter((p, i) => p !== '' || i > 0)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/**
 * A step's failures and warnings. Respect's own spec checks give way to the judge's verdict on a public API
 * response (the judge knows x-assumed); on any other response (the admin API) they stand as failures.
 */
function verdictOf(step: RespectStep, judge: ResponseJudge | undefined): { failed: FailedCheck[]; warnings: FailedCheck[] } {
  const checks = step.checks ?? [];
  const judged = judge?.(step);
  if (!judged) return { failed: failedChecks(checks, step.response), warnings: [] };
  const fromJudge = (j: Judged): FailedCheck => ({ name: j.name, message: j.message, ...(j.assumedReason ? { assumedReason: j.assumedReason } : {}) });
  return { failed: [...failedChecks(checks.filter((c) => !isSpecCheck(c.name)), step.response, judged.assumedAt), ...judged.failed.map(fromJudge)], warnings: judged.warnings.map(fromJudge) };
}

function flatten(step: RespectStep, judge: ResponseJudge | undefined, prefix = ''): StepResult[] {
  const id = `${prefix}${step.stepId}`;
  if (step.type === 'workflow') {
    const children = (step.executedSteps ?? []).flatMap((s) => flatten(s, judge, `${id} › `));
    return children.length > 0 ? children : [{ stepId: id, status: 'failed', failed: [{ name: 'child workflow', message: 'the child workflow ran no step' }], warnings: [], durationMs: 0 }];
  }
  const { failed, warnings } = verdictOf(step, judge);
  return [
    {
      stepId: id,
      status: failed.length > 0 || step.status === 'error' ? 'failed' : 'passed',
      ...(step.request ? { request: { method: step.request.method.toUpperCase(), url: step.request.url } } : {}),
      ...(step.response ? { statusCode: step.response.statusCode } : {}),
      failed,
      warnings,
      durationMs: step.totalTimeMs ?? 0,
    },
  ];
}

const base = (w: Workflow, file: string) => ({ workflowId: w.workflowId, file, summary: w.summary ?? '', section: w['x-provider-section'] ?? '' });

/** A workflow Respect ran (possibly only some of its steps: `skipped` are the ones left out, with their reason). */
export function workflowResult(w: Workflow, file: string, executed: RespectWorkflow | undefined, skipped: Map<string, string> = new Map(), judge?: ResponseJudge): WorkflowResult {
  const ran = executed ? executed.executedSteps.flatMap((s) => flatten(s, judge)) : [];
  const seen = new Set(ran.map((s) => s.stepId.split(' › ')[0]));
  const steps: StepResult[] = [...ran];
  for (const s of w.steps) {
    if (seen.has(s.stepId)) continue;
    const reason = skipped.get(s.stepId);
    steps.push(reason ? { stepId: s.stepId, status: 'not-applicable', failed: [], warnings: [], durationMs: 0, reason } : { stepId: s.stepId, status: 'not-run', failed: [], warnings: [], durationMs: 0 });
  }
  const order = new Map(w.steps.map((s, i) => [s.stepId, i]));
  steps.sort((a, b) => (order.get(a.stepId.split(' › ')[0]!) ?? 0) - (order.get(b.stepId.split(' › ')[0]!) ?? 0));
  // Respect's `warn`: only checks run as warnings failed, and the steps above carry the judge's verdict on them.
  const failed = !executed || (executed.status !== 'success' && executed.status !== 'warn') || steps.some((s) => s.status === 'failed' || s.status === 'not-run');
  return {
    ...base(w, file),
    status: failed ? 'failed' : skipped.size > 0 ? 'partial' : 'passed',
    ...(skipped.size > 0 ? { reason: [...new Set(skipped.values())].join('; ') } : {}),
    steps,
    durationMs: executed?.totalTimeMs ?? 0,
  };
}

export function notApplicable(w: Workflow, file: string, reason: string): WorkflowResult {
  return { ...base(w, file), status: 'not-applicable', reason, steps: w.steps.map((s) => ({ stepId: s.stepId, status: 'not-applicable', failed: [], warnings: [], durationMs: 0, reason })), durationMs: 0 };
}
