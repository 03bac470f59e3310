// The sandbox refuses to start without a handler for every operation of the spec: checked when the contract
// is built, so that a new operation fails `npm run build` saying what to write, not `npm start` later.
import { readFileSync } from 'node:fs';
import { operations, type OpenApiDocument } from '@payments/spec';
import { handlers } from '../../packages/sandbox/src/operations/index.ts';
import { missingHandler } from '../../packages/sandbox/src/pipeline/pipeline.ts';
import { bundledJson } from './paths.ts';
import { step, StepError } from './steps.ts';

const STEP = 'the sandbox has a handler for every operation';

export function checkSandboxHandlers(doc = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument): Promise<void> {
  return step(STEP, () => {
    const missing = operations(doc).filter((op) => !handlers[op.operationId]);
    if (missing.length) throw new StepError(STEP, missing.map((op) => missingHandler(op.operationId)).join('\n'));
  });
}
