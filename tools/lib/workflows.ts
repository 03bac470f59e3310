// The Arazzo workflows of openapi/workflows/: linted like the spec (redocly lint, then what Redocly 2.77 is
// measured to miss), and shipped in @payments/spec (dist/workflows/: the files with their sources pointing at the
// bundles next to them, and index.json, the parsed workflows the contract kit and the docs read).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { adminBundledJson, adminSpecSource, lintAdminSpec } from './admin-contract.ts';
import { redoclyLint } from './contract.ts';
import { bundledJson, root, specDist, specSource } from './paths.ts';
import { log, step, StepError } from './steps.ts';

export const workflowsSource = join(root, 'openapi', 'workflows');
export const workflowsDist = join(specDist, 'workflows');
/** Arazzo's rule for the names of outputs (and components), which Redocly 2.77 does not check. */
export const OUTPUT_NAME = /^[a-zA-Z0-9.\-_]+$/;

export interface Finding {
  file: string;
  pointer: string;
  message: string;
}

type Doc = Record<string, any>;

export function workflowFiles(dir = workflowsSource): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.arazzo.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

const readYaml = (path: string): Doc => parse(readFileSync(path, 'utf8')) as Doc;

/** The document a sourceDescription names: the bundle of our two OpenAPI sources (already built), else the file. */
function loadSource(url: string, from: string): Doc {
  const path = resolve(dirname(from), url);
  if (path === specSource) return JSON.parse(readFileSync(bundledJson, 'utf8')) as Doc;
  if (path === adminSpecSource) return JSON.parse(readFileSync(adminBundledJson, 'utf8')) as Doc;
  return readYaml(path);
}

const operationIds = (doc: Doc): Set<string> =>
  new Set(Object.values<Doc>(doc.paths ?? {}).flatMap((item) => Object.values<Doc>(item).map((op) => op?.operationId).filter((id): id is string => typeof id === 'string')));

/** `$sourceDescriptions.name.id` → [name, id]; a bare id → [undefined, id]. */
function splitReference(value: string): [string | undefined, string] {
  const match = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(value);
  return match ? [match[1], match[2]!] : [undefined, value];
}

/**
 * What Redocly 2.77 does not check in an Arazzo file (measured, toolchain.md): a step's operationId absent from its
 * source document, a step's workflowId that does not exist, an output name outside `^[a-zA-Z0-9.\-_]+$`.
 */
export function checkWorkflowFile(file: string): Finding[] {
  const doc = readYaml(file);
  const findings: Finding[] = [];
  const at = (pointer: string, message: string) => findings.push({ file: relative(root, file), pointer, message });
  const sources = new Map<string, Doc>();
  for (const source of doc.sourceDescriptions ?? []) sources.set(source.name, loadSource(source.url, file));
  const openapi = [...(doc.sourceDescriptions ?? [])].filter((s: Doc) => s.type !== 'arazzo').map((s: Doc) => s.name as string);
  const localWorkflows = new Set<string>((doc.workflows ?? []).map((w: Doc) => w.workflowId));
  const checkOutputs = (outputs: Doc | undefined, pointer: string) => {
    for (const name of Object.keys(outputs ?? {})) if (!OUTPUT_NAME.test(name)) at(`${pointer}/outputs/${name}`, `output name "${name}" does not match ${OUTPUT_NAME.source}`);
  };
  (doc.workflows ?? []).forEach((workflow: Doc, w: number) => {
    checkOutputs(workflow.outputs, `/workflows/${w}`);
    (workflow.steps ?? []).forEach((s: Doc, i: number) => {
      const pointer = `/workflows/${w}/steps/${i}`;
      checkOutputs(s.outputs, pointer);
      if (typeof s.operationId === 'string') {
        const [name, id] = splitReference(s.operationId);
        const candidates = name ? [name] : openapi;
        if (name && !sources.has(name)) at(`${pointer}/operationId`, `no sourceDescription named "${name}"`);
        else if (!candidates.some((c) => operationIds(sources.get(c)!).has(id))) at(`${pointer}/operationId`, `operationId "${id}" is not in ${candidates.map((c) => `the source "${c}"`).join(' or ')}`);
      }
      if (typeof s.workflowId === 'string') {
        const [name, id] = splitReference(s.workflowId);
        const known = name ? new Set<string>((sources.get(name)?.workflows ?? []).map((x: Doc) => x.workflowId)) : localWorkflows;
        if (name && !sources.has(name)) at(`${pointer}/workflowId`, `no sourceDescription named "${name}"`);
        else if (!known.has(id)) at(`${pointer}/workflowId`, `workflowId "${id}" does not exist${name ? ` in the source "${name}"` : ' in this file'}`);
      }
    });
  });
  return findings;
}

/** Redocly lint of each workflow file, then our checks; throws StepError with `file#pointer  message` lines. */
export async function lintWorkflows(dir = workflowsSource): Promise<void> {
  log('the workflows (openapi/workflows/):');
  const files = workflowFiles(dir);
  for (const file of files) await redoclyLint(file);
  await step('workflow checks (operationIds, workflowIds, output names)', () => {
    const findings = files.flatMap(checkWorkflowFile);
    if (findings.length > 0) throw new StepError('workflow checks', findings.map((f) => `${f.file}#${f.pointer}  ${f.message}`).join('\n'));
  });
}

/** Where the shipped copy's sources point: the bundles next to it in @payments/spec's dist/. */
function shippedUrl(url: string, from: string): string {
  const path = resolve(dirname(from), url);
  if (path === specSource) return '../openapi.yaml';
  if (path === adminSpecSource) return '../admin-openapi.yaml'; // @payments/spec ships the admin document beside the public one
  return `./${basename(path)}`;
}

/** Copies the workflow files into packages/spec/dist/workflows/ (sources → the bundles) and writes index.json. */
export function shipWorkflows(dir = workflowsSource, out = workflowsDist): Promise<void> {
  return step('ship the workflows (packages/spec/dist/workflows/)', () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const index = workflowFiles(dir).map((file) => {
      let text = readFileSync(file, 'utf8');
      const doc = parse(text) as Doc;
      for (const source of doc.sourceDescriptions ?? []) text = text.replace(`url: ${source.url}`, `url: ${shippedUrl(source.url, file)}`);
      writeFileSync(join(out, basename(file)), text);
      return { file: basename(file), ...(parse(text) as Doc) };
    });
    writeFileSync(join(out, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
  });
}

/** The admin document (the workflows' second source), then the workflows linted and shipped: before the docs, which render them. */
export async function buildWorkflows(): Promise<void> {
  await lintAdminSpec();
  await lintWorkflows();
  await shipWorkflows();
}
