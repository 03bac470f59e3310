// The docs console ("Try it"): what it needs from the spec, read at build time and embedded in the page as
// JSON (operations with their Redoc route, parameters, Idempotency-Key rule and request examples), plus the
// browser code (tools/lib/docs-browser/console.ts, bundled by esbuild) and its styles. Nothing here is typed
// a second time: methods, paths, examples, header names and patterns come from the bundled document.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { deref, errorCatalog, isObject, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { CONSOLE_SETTINGS_PATH } from './docs-site.ts';

export interface ConsoleExample {
  name: string;
  summary: string;
  value: Json;
}

export interface ConsoleParameter {
  name: string;
  in: 'path' | 'header' | 'query';
  required: boolean;
  description: string;
  example?: string;
  /** The schema's rule, checked before a send (console-request.ts's firstBreach) and shown under the input. */
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

export interface ConsoleOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  /** Redoc's route of the operation's page (#/banking/createtransfer). */
  route: string;
  parameters: ConsoleParameter[];
  examples: ConsoleExample[];
  /**
   * Body fields the API wants unique (a second request with a taken value is a 409): the console fills them
   * with fresh values, so a reader's first create succeeds in any tab, on any day, against any database.
   */
  uniqueFields: string[];
  /** The 409 codes those fields' descriptions name: the answers that mean a taken value (not every 409 does). */
  takenCodes: string[];
  /** The edge's answers (`x-origin: edge`, no JSON error body) by status, with the spec's advice for each. */
  edgeAnswers: Record<string, string>;
}

/** A guide's link to a prefilled request: `#try/<name>`. */
export interface ConsoleScenario {
  name: string;
  operationId: string;
  title: string;
  /** Steps shown above the request, Markdown-free text. */
  steps: string[];
  /** Shown as a command to copy (the admin token never enters the page). */
  command?: string;
}

export interface ConsoleData {
  settingsPath: string;
  /** Every catalog code, and the route prefix of its card (`#/errors/<code>`): the page links codes there. */
  errorCodes: string[];
  errorsRoute: string;
  apiKeyHeader: string;
  operations: ConsoleOperation[];
  scenarios: ConsoleScenario[];
}

/** Redoc 3's slug of a tag or an operationId in its routes: lower case, spaces as hyphens. */
export const redocSlug = (text: string) => text.trim().toLowerCase().replace(/\s+/g, '-');

export const operationRoute = (tag: string, operationId: string) => `/${redocSlug(tag)}/${redocSlug(operationId)}`;

/** The guide (a tag) holding the error catalog; each code's card is a heading, so a route of its own. */
export const ERRORS_TAG = 'Errors';
export const errorCodeRoute = (code: string) => `/${redocSlug(ERRORS_TAG)}/${redocSlug(code)}`;

function stringOrUndefined(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

const integerOrUndefined = (value: Json | undefined) => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

function parametersOf(doc: OpenApiDocument, raw: Json | undefined): ConsoleParameter[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((p) => deref(doc, p)).filter(isObject).flatMap((p) => {
    const where = p.in;
    if (where !== 'path' && where !== 'header' && where !== 'query') return [];
    const resolved = isObject(p.schema) ? deref(doc, p.schema) : undefined;
    const schema = isObject(resolved) ? resolved : {};
    const example = stringOrUndefined(p.example) ?? stringOrUndefined(schema.example);
    const pattern = stringOrUndefined(schema.pattern);
    const minLength = integerOrUndefined(schema.minLength);
    const maxLength = integerOrUndefined(schema.maxLength);
    return [{
      name: String(p.name),
      in: where,
      required: p.required === true,
      description: String(p.description ?? ''),
      ...(example === undefined ? {} : { example }),
      ...(pattern === undefined ? {} : { pattern }),
      ...(minLength === undefined ? {} : { minLength }),
      ...(maxLength === undefined ? {} : { maxLength }),
    }];
  });
}

function examplesOf(doc: OpenApiDocument, operation: JsonObject): ConsoleExample[] {
  const body = isObject(operation.requestBody) ? deref(doc, operation.requestBody) : undefined;
  const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  if (!isObject(media)) return [];
  if (isObject(media.examples)) {
    return Object.entries(media.examples).flatMap(([name, raw]) => {
      const example = deref(doc, raw);
      return isObject(example) && 'value' in example ? [{ name, summary: String(example.summary ?? name), value: example.value as Json }] : [];
    });
  }
  return 'example' in media ? [{ name: 'example', summary: 'Example', value: media.example as Json }] : [];
}

/** The edge's answers (`x-origin: edge`), by status, with the spec's advice for each. */
function edgeAnswersOf(doc: OpenApiDocument, operation: JsonObject): Record<string, string> {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const edge: Record<string, string> = {};
  for (const [status, ref] of Object.entries(responses)) {
    const response = deref(doc, ref);
    if (isObject(response) && response['x-origin'] === 'edge') edge[status] = String(response.description ?? '').replace(/`/g, '').trim(); // shown as text, not Markdown
  }
  return edge;
}

/**
 * The request body's fields whose schema says the value is unique ("Unique among…", "At most one … per …")
 * and names the 409 a taken value gets, across every variant of a oneOf, with those 409 codes. Read from the
 * descriptions: the spec has no keyword for uniqueness.
 */
function uniqueFieldsOf(doc: OpenApiDocument, operation: JsonObject): { fields: string[]; takenCodes: string[] } {
  const body = isObject(operation.requestBody) ? deref(doc, operation.requestBody) : undefined;
  const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  const found = new Set<string>();
  const codes = new Set<string>();
  const visit = (raw: Json | undefined, depth: number): void => {
    const schema = raw === undefined ? undefined : deref(doc, raw);
    if (!isObject(schema) || depth > 4) return;
    for (const variant of [...(Array.isArray(schema.oneOf) ? schema.oneOf : []), ...(Array.isArray(schema.allOf) ? schema.allOf : [])]) visit(variant, depth + 1);
    if (!isObject(schema.properties)) return;
    for (const [name, property] of Object.entries(schema.properties)) {
      const resolved = deref(doc, property);
      const description = isObject(resolved) ? String(resolved.description ?? '') : '';
      const taken = /`409 ([a-z_]+)`/.exec(description);
      if (!/\b(unique|at most one)\b/i.test(description) || !taken) continue;
      found.add(name);
      codes.add(taken[1]!);
    }
  };
  if (isObject(media)) visit(media.schema, 0);
  return { fields: [...found], takenCodes: [...codes] };
}

/** The API key header's name, from the security scheme the document applies. */
function apiKeyHeader(doc: OpenApiDocument): string {
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const header = Object.values(schemes).map((s) => deref(doc, s)).find((s) => isObject(s) && s.type === 'apiKey' && s.in === 'header');
  if (!isObject(header) || typeof header.name !== 'string') throw new Error('the document has no apiKey security scheme in a header for the docs console');
  return header.name;
}

export function consoleData(doc: OpenApiDocument, scenarios: ConsoleScenario[]): ConsoleData {
  const ops = operations(doc).map(({ method, path, operationId, operation }) => {
    const tag = Array.isArray(operation.tags) ? String(operation.tags[0]) : '';
    if (!tag) throw new Error(`${operationId} has no tag: the docs console cannot find its page`);
    const pathItem = deref(doc, (doc.paths as JsonObject)[path]!);
    const unique = uniqueFieldsOf(doc, operation);
    return {
      operationId,
      method: method.toUpperCase(),
      path,
      summary: String(operation.summary ?? operationId),
      route: operationRoute(tag, operationId),
      parameters: [...parametersOf(doc, isObject(pathItem) ? pathItem.parameters : undefined), ...parametersOf(doc, operation.parameters)],
      examples: examplesOf(doc, operation),
      uniqueFields: unique.fields,
      takenCodes: unique.takenCodes,
      edgeAnswers: edgeAnswersOf(doc, operation),
    };
  });
  for (const s of scenarios) {
    if (!ops.some((o) => o.operationId === s.operationId)) throw new Error(`docs console scenario ${s.name}: no operation ${s.operationId}`);
  }
  const errorCodes = [...new Set(errorCatalog(doc).map((e) => e.code))];
  return { settingsPath: CONSOLE_SETTINGS_PATH, errorCodes, errorsRoute: `/${redocSlug(ERRORS_TAG)}`, apiKeyHeader: apiKeyHeader(doc), operations: ops, scenarios };
}

const browserEntry = fileURLToPath(new URL('./docs-browser/main.ts', import.meta.url));

/** The browser code (console and accessibility fixes) as one minified script. */
export async function consoleScript(): Promise<string> {
  const result = await build({ entryPoints: [browserEntry], bundle: true, format: 'iife', minify: true, target: 'es2022', write: false, legalComments: 'none' });
  const code = result.outputFiles[0]?.text;
  if (!code) throw new Error('esbuild produced no docs console script');
  return code;
}

/** JSON inside <script type="application/json">: only `<` needs escaping there (no `</script>` or `<!--`). */
export const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
