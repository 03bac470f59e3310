// The workflows in the docs: one guide page per workflow (its rule, section, inputs, and each step in order with
// its request and success criteria), linked from the operations it uses, and the data the console's workflow
// runner needs (tools/lib/docs-browser/console-workflow.ts). Read from the shipped workflows
// (packages/spec/dist/workflows/index.json) and the two bundles: methods and paths are never typed again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, operations, type Json, type OpenApiDocument } from '@payments/spec';
import { adminBundledJson } from './admin-contract.ts';
import { operationRoute, redocSlug, scriptJson } from './docs-console.ts';
import { CONSOLE_SETTINGS_PATH } from './docs-site.ts';
import { workflowsDist } from './workflows.ts';

type Doc = Record<string, any>;

export interface ConsoleWorkflowStep {
  stepId: string;
  description: string;
  /** `payments` (the public API), `admin` (the sandbox's admin API) or a child workflow. */
  source: string;
  method: string;
  path: string;
  parameters: { name: string; in: string; value: Json }[];
  payload?: Json;
  criteria: { condition: string; type?: string; context?: string }[];
  outputs: Record<string, string>;
}

export interface ConsoleWorkflow {
  workflowId: string;
  summary: string;
  /** Redoc's route of the workflow's guide page (#/workflow-<id>): a `#workflow/<id>` deep link opens the runner there. */
  route: string;
  /** Runnable in the page: only the public API with the reader's key (the admin token never enters the page). */
  runnable: boolean;
  inputs: Record<string, Json>;
  steps: ConsoleWorkflowStep[];
}

/** What the page embeds for the workflow runner (#workflow-data). */
export interface WorkflowPageData {
  /** The sandbox's console settings (its demo key, when npm start made one). */
  settingsPath: string;
  workflows: ConsoleWorkflow[];
}

interface Resolved {
  file: Doc;
  workflow: Doc;
}

const WORKFLOW_TAG_PREFIX = 'workflow-';
export const workflowTag = (workflowId: string) => `${WORKFLOW_TAG_PREFIX}${workflowId}`;
export const workflowRoute = (workflowId: string) => `/${redocSlug(workflowTag(workflowId))}`;

function readShipped(dir = workflowsDist): Doc[] {
  const index = join(dir, 'index.json');
  if (!existsSync(index)) throw new Error(`${index} is missing: the build ships the workflows before the docs (tools/lib/workflows.ts)`);
  return JSON.parse(readFileSync(index, 'utf8')) as Doc[];
}

/** The flows of the provider's document (the sandbox's setup file is a step of the others, not a flow). */
function flows(files: Doc[]): Resolved[] {
  return files.filter((f) => f.file !== 'sandbox.arazzo.yaml').flatMap((file) => (file.workflows as Doc[]).map((workflow) => ({ file, workflow })));
}

const byOperationId = (doc: OpenApiDocument) => new Map(operations(doc).map((o) => [o.operationId, o]));

function parameterOf(file: Doc, p: Doc): Doc {
  if (typeof p.reference !== 'string') return p;
  const name = p.reference.replace('$components.parameters.', '');
  const found = file.components?.parameters?.[name] as Doc | undefined;
  if (!found) throw new Error(`${file.file}: parameter reference ${p.reference} has no component`);
  return { ...found, ...(p.value !== undefined ? { value: p.value } : {}) };
}

function resolveStep(file: Doc, step: Doc, docs: { payments: OpenApiDocument; admin: OpenApiDocument }): ConsoleWorkflowStep {
  const ref = String(step.operationId ?? step.workflowId ?? '');
  const [, source = '', id = ref] = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(ref) ?? [];
  const base = {
    stepId: String(step.stepId),
    description: String(step.description ?? ''),
    parameters: ((step.parameters ?? []) as Doc[]).map((p) => parameterOf(file, p)).map((p) => ({ name: String(p.name), in: String(p.in ?? 'input'), value: p.value as Json })),
    ...(step.requestBody?.payload !== undefined ? { payload: step.requestBody.payload as Json } : {}),
    criteria: ((step.successCriteria ?? []) as Doc[]).map((c) => ({ condition: String(c.condition), ...(c.type ? { type: String(c.type) } : {}), ...(c.context ? { context: String(c.context) } : {}) })),
    outputs: (step.outputs ?? {}) as Record<string, string>,
  };
  if (step.workflowId) return { ...base, source: 'workflow', method: '', path: id };
  const op = byOperationId(source === 'admin' ? docs.admin : docs.payments).get(id);
  if (!op) throw new Error(`${file.file}: step ${base.stepId}: operation ${id} is not in the ${source} document`);
  return { ...base, source, method: op.method.toUpperCase(), path: op.path };
}

function loadDocs(payments: OpenApiDocument): { payments: OpenApiDocument; admin: OpenApiDocument } {
  return { payments, admin: JSON.parse(readFileSync(adminBundledJson, 'utf8')) as OpenApiDocument };
}

/** What the console's workflow runner needs, per flow. */
export function workflowConsoleData(payments: OpenApiDocument, dir = workflowsDist): ConsoleWorkflow[] {
  const docs = loadDocs(payments);
  return flows(readShipped(dir)).map(({ file, workflow }) => {
    const steps = (workflow.steps as Doc[]).map((s) => resolveStep(file, s, docs));
    const props = (workflow.inputs?.properties ?? {}) as Record<string, Doc>;
    return {
      workflowId: String(workflow.workflowId),
      summary: String(workflow.summary ?? ''),
      route: workflowRoute(String(workflow.workflowId)),
      runnable: steps.every((s) => s.source === 'payments'),
      inputs: Object.fromEntries(Object.entries(props).filter(([, p]) => p.default !== undefined).map(([k, p]) => [k, p.default as Json])),
      steps,
    };
  });
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function stepMarkdown(step: ConsoleWorkflowStep, i: number, payments: OpenApiDocument): string {
  const op = operations(payments).find((o) => o.method.toUpperCase() === step.method && o.path === step.path);
  const tag = op && Array.isArray(op.operation.tags) ? String(op.operation.tags[0]) : undefined;
  const where =
    step.source === 'workflow'
      ? `runs the setup workflow \`${step.path}\` (the sandbox's admin API)`
      : step.source === 'admin'
        ? `\`${step.method} ${step.path}\` (the sandbox's admin API: a provider state)`
        : `\`${step.method} ${step.path}\`${op && tag ? ` ([${op.operationId}](#${operationRoute(tag, op.operationId)}))` : ''}`;
  const lines = [`${i + 1}. **${step.stepId}**: ${where}. ${step.description}`];
  const params = step.parameters.filter((p) => p.in !== 'input' || step.source === 'workflow');
  if (params.length > 0) lines.push('', `   Parameters: ${params.map((p) => `\`${p.name}\` (${p.in}) = \`${typeof p.value === 'string' ? p.value : JSON.stringify(p.value)}\``).join(', ')}`);
  // Inline, not a fenced block: Redoc renders a block as a scrollable <pre> that keyboard users cannot reach (axe's scrollable-region-focusable).
  if (step.payload !== undefined) lines.push('', `   Body: \`${JSON.stringify(step.payload)}\``);
  if (step.criteria.length > 0) lines.push('', `   Success criteria: ${step.criteria.map((c) => `\`${c.condition}\`${c.type ? ` (${c.type} on \`${c.context}\`)` : ''}`).join(' · ')}`);
  const outputs = Object.entries(step.outputs);
  if (outputs.length > 0) lines.push('', `   Outputs: ${outputs.map(([k, v]) => `\`${k}\` ← \`${v}\``).join(', ')}`);
  return lines.join('\n');
}

/** Where an installed @payments/spec has a workflow file (its `./workflows/*` export). */
export const shippedWorkflowFile = (file: string) => `@payments/spec/dist/workflows/${file}`;

/**
 * How a reader runs a workflow on a fresh sandbox: with the installed contract kit (`payments-contract-kit
 * workflows`, packages/contract-kit/README.md), or `npm run workflows` in a clone of the repository.
 */
export const runCommands = (workflowId: string) =>
  `\`npx payments-contract-kit workflows --workflow ${workflowId}\` (a fresh sandbox; in the repository \`npm run workflows -- --workflow ${workflowId}\`)`;

function guideMarkdown(r: Resolved, data: ConsoleWorkflow, payments: OpenApiDocument): string {
  const w = r.workflow;
  const props = Object.entries((w.inputs?.properties ?? {}) as Record<string, Doc>);
  const run = data.runnable
    ? `**Run it** step by step in the console: [run this workflow against the sandbox](#workflow/${data.workflowId}) (each step's answer is shown as it comes), or all at once with ${runCommands(data.workflowId)}.`
    : `**Run it** with ${runCommands(data.workflowId)}, or against a running sandbox with \`npx payments-contract-kit workflows --server URL --admin-token T --workflow ${data.workflowId}\`. It sets a provider state through the sandbox's admin API, whose token never enters this page, so the console does not run it.`;
  return [
    `**The provider's rule:** ${w['x-provider-rule'] ?? ''}`,
    '',
    `**Section of the provider's document:** ${w['x-provider-section'] ?? ''} · **File:** \`${shippedWorkflowFile(r.file.file)}\` (Arazzo ${r.file.arazzo}; in the repository \`openapi/workflows/${r.file.file}\`), workflow \`${data.workflowId}\``,
    '',
    String(w.description ?? '').trim(),
    '',
    run,
    '',
    '**Inputs**',
    '',
    '| Input | Type | Default | Meaning |',
    '|---|---|---|---|',
    ...props.map(([k, p]) => `| \`${k}\` | ${p.type ?? ''} | ${p.default !== undefined ? `\`${JSON.stringify(p.default)}\`` : '(given by the runner)'} | ${cell(String(p.description ?? ''))} |`),
    '',
    '**Steps**, in order (each must meet all its criteria; Respect also checks every answer\'s status, content type and schema against the document):',
    '',
    ...data.steps.map((s, i) => stepMarkdown(s, i, payments)),
  ].join('\n');
}

/** Adds a guide page per workflow (group "Workflows") and, on each public operation, links to the workflows using it. */
export function withWorkflowGuides(out: OpenApiDocument, payments: OpenApiDocument, dir = workflowsDist): OpenApiDocument {
  const resolved = flows(readShipped(dir));
  const data = workflowConsoleData(payments, dir);
  const tags = (out.tags as Json[]).filter(isObject);
  resolved.forEach((r, i) => tags.push({ name: workflowTag(data[i]!.workflowId), 'x-displayName': data[i]!.summary, 'x-traitTag': true, description: guideMarkdown(r, data[i]!, payments) }));
  const groups = (out['x-tagGroups'] as Json[]).filter(isObject);
  groups.push({ name: 'Workflows', tags: data.map((d) => workflowTag(d.workflowId)) });
  out.tags = tags;
  out['x-tagGroups'] = groups;
  const users = new Map<string, ConsoleWorkflow[]>();
  for (const d of data) for (const s of d.steps) if (s.source === 'payments') users.set(`${s.method} ${s.path}`, [...new Set([...(users.get(`${s.method} ${s.path}`) ?? []), d])]);
  for (const op of operations(out)) {
    const using = users.get(`${op.method.toUpperCase()} ${op.path}`);
    const operation = op.operation;
    if (using) operation.description = `${String(operation.description ?? '')}\n\n**Workflows using this operation:** ${using.map((d) => `[${d.summary}](#${workflowRoute(d.workflowId)})`).join(' · ')}`;
  }
  return out;
}

/** The workflow runner's data, as its own JSON script before </body> (the console's own data stays untouched). */
export function withWorkflowData(html: string, payments: OpenApiDocument, dir = workflowsDist): string {
  const at = html.lastIndexOf('</body>');
  if (at === -1) throw new Error('the rendered docs have no </body> to add the workflow data to');
  const data = scriptJson({ settingsPath: CONSOLE_SETTINGS_PATH, workflows: workflowConsoleData(payments, dir) } satisfies WorkflowPageData);
  return `${html.slice(0, at)}<script type="application/json" id="workflow-data">${data}</script>\n${html.slice(at)}`;
}
