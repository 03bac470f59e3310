// The bundled OpenAPI document (packages/spec/dist/openapi.json, written by `npm run build`) and the small
// amount of typing the readers below need. Everything else about the API is read from it, never restated.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface ExampleObject extends JsonObject {}
export interface OpenApiDocument extends JsonObject {
  paths: JsonObject;
  components: JsonObject;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export const bundledSpecPath = fileURLToPath(new URL('../dist/openapi.json', import.meta.url));
/** The sandbox's admin API document (openapi-admin/, bundled by the build next to the public one). */
export const adminSpecPath = fileURLToPath(new URL('../dist/admin-openapi.json', import.meta.url));

let cached: OpenApiDocument | undefined;

/** The bundled document; throws a clear error when the build has not produced it yet. */
export function loadSpec(path: string = bundledSpecPath): OpenApiDocument {
  if (path === bundledSpecPath && cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`No bundled spec at ${path}: run \`npm run build\` first.`);
  }
  const doc = JSON.parse(text) as OpenApiDocument;
  if (path === bundledSpecPath) cached = doc;
  return doc;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` (`#/components/...`) once; other values are returned as they are. */
export function deref<T extends Json>(doc: OpenApiDocument, value: T): T {
  let current: Json = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${String(current.$ref)}`);
    current = resolvePointer(doc, current.$ref);
  }
  return current as T;
}

export function resolvePointer(doc: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are bundled, got ${ref}`);
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolved $ref ${ref}`);
    node = node[key] as Json;
  }
  return node;
}

export interface OperationRef {
  method: (typeof HTTP_METHODS)[number];
  path: string;
  operationId: string;
  operation: JsonObject;
}

/** Every operation of the document, in document order. */
export function operations(doc: OpenApiDocument): OperationRef[] {
  const result: OperationRef[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (isObject(operation)) result.push({ method, path, operationId: String(operation.operationId), operation });
    }
  }
  return result;
}
