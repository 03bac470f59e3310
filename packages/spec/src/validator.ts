// Ajv 2020-12 over the bundled document: one instance knows every component, so a schema is compiled by
// its JSON pointer and its $refs resolve as they do in the document.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { useExactMultipleOf } from './decimal.ts';
import type { OpenApiDocument } from './document.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'openapi.json';

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
  });
  // `multipleOf: 0.01` means "at most two decimal places" for a JSON number too (decimal.ts).
  useExactMultipleOf(ajv);
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
