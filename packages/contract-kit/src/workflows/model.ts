// The workflows as the contract kit reads them: @payments/spec's dist/workflows/index.json (written by the build
// from openapi/workflows/), each workflow with the file Respect runs it from and what it needs of the target.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface StepDoc {
  stepId: string;
  description?: string;
  operationId?: string;
  workflowId?: string;
  /** A stateless mock (Prism) can honour this step's criteria. */
  'x-mock'?: boolean;
  parameters?: unknown[];
  requestBody?: { contentType?: string; payload?: unknown };
  successCriteria?: { condition: string; context?: string; type?: string }[];
  outputs?: Record<string, string>;
}

export interface WorkflowDoc {
  workflowId: string;
  summary?: string;
  description?: string;
  'x-provider-section'?: string;
  'x-provider-rule'?: string;
  inputs?: { properties?: Record<string, { type?: string; description?: string; default?: unknown }>; required?: string[] };
  steps: StepDoc[];
}

export interface WorkflowFile {
  file: string;
  info: { title: string; summary?: string; description?: string };
  sourceDescriptions: { name: string; url: string; type: string }[];
  workflows: WorkflowDoc[];
}

export interface Workflow extends WorkflowDoc {
  /** The Arazzo file (absolute path). */
  path: string;
  /** Needs the sandbox's admin API (a provider state, or its own organization). */
  needsAdmin: boolean;
  /** Takes the caller's API key. */
  needsApiKey: boolean;
}

/** Workflows that only set up a provider state for others (sandbox.arazzo.yaml): run as steps, never alone. */
const SETUP_FILES = new Set(['sandbox.arazzo.yaml']);

export function defaultWorkflowsDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@payments/spec/workflows/index.json'));
}

export function readIndex(dir: string): WorkflowFile[] {
  return JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as WorkflowFile[];
}

/** Every runnable workflow of the folder (setup files left out), in file order. */
export function loadWorkflows(dir = defaultWorkflowsDir()): Workflow[] {
  return readIndex(dir)
    .filter((f) => !SETUP_FILES.has(f.file))
    .flatMap((f) =>
      f.workflows.map((w) => {
        const inputs = Object.keys(w.inputs?.properties ?? {});
        return { ...w, path: join(dir, f.file), needsAdmin: inputs.includes('adminToken'), needsApiKey: inputs.includes('apiKey') };
      }),
    );
}
