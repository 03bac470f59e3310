// The workflows are linted like the spec: redocly lint of each file, then our checks of what Redocly 2.77 misses.
// The broken copies below pass `redocly lint` (asserted: Redocly alone misses them) and fail lintWorkflows, the
// build's step, with the file and the JSON pointer of the mistake.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { redoclyLint } from '../../tools/lib/contract.ts';
import { StepError } from '../../tools/lib/steps.ts';
import { checkWorkflowFile, lintWorkflows, workflowFiles, workflowsSource } from '../../tools/lib/workflows.ts';

const work = mkdtempSync(join(tmpdir(), 'workflow-lint-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Yaml = Record<string, any>;

/** A copy of openapi/workflows/ in its own folder, its sources made absolute, with one file changed. */
function brokenCopy(name: string, file: string, change: (doc: Yaml) => void): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const source of workflowFiles()) {
    const doc = parse(readFileSync(source, 'utf8')) as Yaml;
    for (const s of doc.sourceDescriptions) s.url = resolve(dirname(source), s.url);
    for (const s of doc.sourceDescriptions) if (s.type === 'arazzo') s.url = join(dir, basename(s.url));
    if (basename(source) === file) change(doc);
    writeFileSync(join(dir, basename(source)), stringify(doc));
  }
  return dir;
}

const cases: { name: string; file: string; change: (doc: Yaml) => void; pointer: string; message: RegExp }[] = [
  {
    name: 'an operationId absent from its source document',
    file: 'banking.arazzo.yaml',
    change: (doc) => (doc.workflows[0].steps[1].operationId = '$sourceDescriptions.payments.createTransfers'),
    pointer: 'banking.arazzo.yaml#/workflows/0/steps/1/operationId',
    message: /operationId "createTransfers" is not in the source "payments"/,
  },
  {
    name: 'an output name outside ^[a-zA-Z0-9.\\-_]+$',
    file: 'banking.arazzo.yaml',
    change: (doc) => {
      const step = doc.workflows[0].steps[1];
      step.outputs['transfer id'] = step.outputs.transferId;
    },
    pointer: 'banking.arazzo.yaml#/workflows/0/steps/1/outputs/transfer id',
    message: /output name "transfer id" does not match/,
  },
  {
    name: 'a step workflowId that does not exist',
    file: 'cards.arazzo.yaml',
    change: (doc) => (doc.workflows[0].steps[0].workflowId = '$sourceDescriptions.sandbox.sandbox-organisation'),
    pointer: 'cards.arazzo.yaml#/workflows/0/steps/0/workflowId',
    message: /workflowId "sandbox-organisation" does not exist in the source "sandbox"/,
  },
];

describe('workflow lint', () => {
  it('every workflow file of openapi/workflows/ is clean', () => {
    const files = workflowFiles(workflowsSource);
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) expect(checkWorkflowFile(file), file).toEqual([]);
  });

  for (const c of cases) {
    it(`${c.name}: Redocly alone passes it, the build's lint fails with the file and pointer`, { timeout: 120_000 }, async () => {
      const dir = brokenCopy(c.name.replace(/\W+/g, '-'), c.file, c.change);
      await expect(redoclyLint(join(dir, c.file))).resolves.toBeTypeOf('string');
      const error = await lintWorkflows(dir).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(StepError);
      const output = (error as StepError).output;
      expect(output).toContain(c.pointer);
      expect(output).toMatch(c.message);
    });
  }
});
