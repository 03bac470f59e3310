// The document Prism serves (dist/prism/openapi.json, tools/lib/prism-document.ts) says what the source says:
// it differs from the bundle only by the generic first example of the responses Prism answers its own
// validation failures with, so it accepts and refuses the same requests. Checked structurally and under our
// validator (Ajv 2020-12 with the multipleOf tolerance, @payments/spec) on the amounts the mock is tested with.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createValidator, deref, isObject, loadSpec, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { derivePrismDocument, PRISM_VALIDATION_EXAMPLE, prismDocumentPath, prismValidationExample, prismValidationStatus } from '../../tools/lib/prism-document.ts';

const source = loadSpec();
const derived = JSON.parse(readFileSync(prismDocumentPath, 'utf8')) as OpenApiDocument;

describe('the document Prism serves', () => {
  it('is the build output of derivePrismDocument on the current bundle', () => {
    expect(derived).toEqual(derivePrismDocument(source));
  });

  it('differs from the source only by the generic example first in the response Prism answers its rejections with', () => {
    const undone = structuredClone(derived);
    let changed = 0;
    for (const { operationId, operation } of operations(undone)) {
      const responses = operation.responses as JsonObject;
      const status = prismValidationStatus(responses);
      if (!status) continue;
      const media = ((responses[status] as JsonObject).content as JsonObject)['application/json'] as JsonObject;
      const examples = media.examples as JsonObject;
      expect(Object.keys(examples)[0], operationId).toBe(PRISM_VALIDATION_EXAMPLE);
      expect(examples[PRISM_VALIDATION_EXAMPLE]).toEqual(prismValidationExample);
      delete examples[PRISM_VALIDATION_EXAMPLE];
      // Back to the source's form: the response as the source writes it (possibly a $ref).
      const original = (source.paths as JsonObject)[pathOf(operationId)] as JsonObject;
      const originalResponse = ((original[methodOf(operationId)] as JsonObject).responses as JsonObject)[status] as Json;
      expect(responses[status], operationId).toEqual(deref(source, originalResponse));
      responses[status] = originalResponse;
      changed++;
    }
    expect(changed).toBeGreaterThanOrEqual(4);
    expect(undone).toEqual(source);
  });

  it('accepts and refuses the same checkout sessions as the source under our validator', () => {
    const validators = [source, derived].map((doc) => createValidator(doc).compile(requestSchema(doc, 'createCheckoutSession')));
    const amounts: Json[] = [
      ...Array.from({ length: 10_000 }, (_, i) => (i + 1) / 100),
      ...Array.from({ length: 2_000 }, (_, i) => Number(((i + 1) * 0.0137).toFixed(3))), // three decimals, mostly invalid
      37.455, 0, -1, 'abc', '37.45', '0.07', '37.456', 1e21, 100.001,
    ];
    const bodies: Json[] = [...amounts.map((amount) => ({ amount })), { amount: 10, discountPercent: 5 }, { discountPercent: 5 }, {}];
    let accepted = 0;
    for (const body of bodies) {
      const [a, b] = validators.map((validate) => validate(body));
      expect(b, JSON.stringify(body)).toBe(a);
      if (a) accepted++;
    }
    expect(accepted).toBeGreaterThanOrEqual(10_000);
    expect(accepted).toBeLessThan(bodies.length - 5);
  });
});

function find(operationId: string) {
  const op = operations(source).find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no ${operationId}`);
  return op;
}
const pathOf = (operationId: string) => find(operationId).path;
const methodOf = (operationId: string) => find(operationId).method;

function requestSchema(doc: OpenApiDocument, operationId: string): JsonObject {
  const op = operations(doc).find((o) => o.operationId === operationId)!;
  const body = deref(doc, op.operation.requestBody as Json);
  const schema = isObject(body) && isObject(body.content) && isObject(body.content['application/json']) ? body.content['application/json'].schema : undefined;
  if (!isObject(schema)) throw new Error(`${operationId} has no JSON request schema`);
  return schema;
}
