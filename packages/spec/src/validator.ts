// Ajv 2020-12 over the bundled document: one instance knows every component, so a schema is compiled by
// its JSON pointer and its $refs resolve as they do in the document.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from './document.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'openapi.json';

/**
 * JSON numbers are binary doubles: 0.07 / 0.01 is not an integer. A tolerance of 1e-6 (Ajv's
 * `multipleOfPrecision`) keeps `multipleOf: 0.01` meaning "at most two decimal places". Prism's validator is
 * given the same tolerance (packages/mock/src/validator-hook.ts), so the mock and our validators agree.
 */
export const MULTIPLE_OF_PRECISION = 6;

export interface SpecValidator {
  /** A validator for the schema at `pointer` (e.g. `#/components/schemas/Transfer`). */
  schemaAt(pointer: string): ValidateFunction;
  /** A validator for an inline schema whose $refs point into the document. */
  compile(schema: object): ValidateFunction;
}

export function createValidator(doc: OpenApiDocument): SpecValidator {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false, // OpenAPI adds keywords (example, x-*) that are not JSON Schema vocabulary
    multipleOfPrecision: MULTIPLE_OF_PRECISION,
  });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID } as object);
  const cache = new Map<string, ValidateFunction>();
  return {
    schemaAt(pointer) {
      let fn = cache.get(pointer);
      if (!fn) {
        fn = ajv.compile({ $ref: `${DOC_ID}${pointer}` });
        cache.set(pointer, fn);
      }
      return fn;
    },
    compile(schema) {
      return ajv.compile(rebase(schema));
    },
  };
}

/** Rewrites `#/components/...` refs of a fragment so they resolve against the registered document. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOC_ID}${value}` : value,
  );
}
