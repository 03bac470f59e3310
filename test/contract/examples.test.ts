// Every example in the bundled spec validates against its schema with Ajv 2020-12 (exampleCases of
// @payments/spec: request and response examples, parameter and header examples, the `examples` of
// component schemas). Prism serves these examples and the docs show them, so an invalid one would teach
// clients the wrong thing.
import { describe, expect, it } from 'vitest';
import { createValidator, exampleCases, loadSpec, missingExamples } from '@payments/spec';

const doc = loadSpec();
const validator = createValidator(doc);

const cases = exampleCases(doc);

describe('examples', () => {
  it('exist for every operation: a request example for each body, a response example for each JSON response', () => {
    expect(missingExamples(doc, cases)).toEqual([]);
  });

  it.each(cases.map((c) => [c.where, c] as const))('%s validates against its schema', (_where, c) => {
    const validate = validator.compile(c.schema);
    const ok = validate(c.value);
    expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  });
});
