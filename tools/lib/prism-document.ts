// The document Prism serves (`npm run mock` and every startPrism()): the bundled spec, with ONE difference,
// derived at build time and never edited: the response Prism answers a request it rejects itself (422 when
// the operation declares one, else 400: Prism's rule) gets, as its FIRST named example, one that says the
// request does not match the contract and where Prism lists the violations. Prism answers its own
// rejections with the first example of that response; in the source that is the catalog's first entry
// (e.g. `invalid_request`'s "Idempotency-Key header is required.", wrong when the key was sent and the
// amount is the problem). Schemas, parameters and every other example are the source's, byte for byte:
// test/mock/prism-document.test.ts checks it, so the derived document accepts and refuses what the source does.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deref, isObject, operations, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { bundledJson, root } from './paths.ts';
import { step } from './steps.ts';

export const prismDocumentPath = join(root, 'dist', 'prism', 'openapi.json');

/** The name and value of the example Prism answers its own request-validation failures with. */
export const PRISM_VALIDATION_EXAMPLE = 'request_does_not_match_contract';
export const prismValidationExample = {
  summary: "The request does not match the contract (Prism's own validation).",
  description: "Only Prism's mock answers this: the `sl-violations` response header lists each violation (where, which rule, a message). The API answers such a request with 400 `invalid_request` and a message naming the problem.",
  value: {
    error: 'The request does not match the contract; the sl-violations response header lists each violation (location, rule, message).',
    code: 'invalid_request',
    requestId: '00000000-0000-4000-8000-000000000000',
  },
};

/** The status Prism answers its own request-validation failures with for an operation's responses. */
export function prismValidationStatus(responses: JsonObject): '422' | '400' | undefined {
  if ('422' in responses) return '422';
  if ('400' in responses) return '400';
  return undefined;
}

export function derivePrismDocument(source: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(source);
  for (const { operation } of operations(doc)) {
    const responses = isObject(operation.responses) ? operation.responses : undefined;
    const status = responses && prismValidationStatus(responses);
    if (!responses || !status) continue;
    // Inlined per operation: a shared response ($ref) stays untouched for the operations that use it at another status.
    const response = structuredClone(deref(doc, responses[status]!));
    const media = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
    if (!isObject(media)) continue;
    media.examples = { [PRISM_VALIDATION_EXAMPLE]: structuredClone(prismValidationExample), ...(isObject(media.examples) ? media.examples : {}) };
    responses[status] = response;
  }
  return doc;
}

/** Build step: writes dist/prism/openapi.json from the bundle. */
export function writePrismDocument(): Promise<void> {
  return step('derive the Prism document (dist/prism/openapi.json)', () => {
    const source = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument;
    mkdirSync(dirname(prismDocumentPath), { recursive: true });
    writeFileSync(prismDocumentPath, `${JSON.stringify(derivePrismDocument(source), null, 2)}\n`);
  });
}
