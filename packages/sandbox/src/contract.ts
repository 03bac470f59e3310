// Everything the sandbox knows about the API, read from the bundled spec at start-up: the operations and
// their path patterns, the product each belongs to and its 403 code, request validators (Ajv 2020-12; a
// body's, with the spec's `x-error-code` mapping, from body-validation.ts), each error code's status and
// meaning from the catalog, which errors and edge responses each operation documents, whether it documents
// a body limit (413), and the API key header. No schema, code, status or header name is written here by hand.
import {
  createValidator,
  deref,
  edgeStatuses,
  errorCatalog,
  isObject,
  operations,
  type CatalogEntry,
  type Json,
  type JsonObject,
  type OpenApiDocument,
  type SpecValidator,
} from '@payments/spec';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { bodyValidation, type BodyRefusal, type BodyValidation } from './body-validation.ts';

export type Product = 'Banking' | 'Cards' | 'Checkout';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface OperationContract {
  operationId: string;
  method: string;
  path: string;
  product: Product;
  pattern: RegExp;
  pathParams: string[];
  /** The 403 code of the operation's product. */
  accessCode: string;
  idempotencyKey: ValidateFunction | undefined;
  body: JsonObject | undefined;
  validateBody: ValidateFunction | undefined;
  /** Path parameter → its schema's validator. */
  pathValidators: ReadonlyMap<string, ValidateFunction>;
  /** The 404 code of the operation (a path id that cannot exist is simply not found), if it has one. */
  notFoundCode: string | undefined;
  /** Whether the operation takes a request body. */
  hasBody: boolean;
  /** Whether the operation documents a 413 (a request body size limit); only these read a bounded body. */
  bodyLimited: boolean;
  /** The code of the operation's documented 413, if it has one. */
  payloadTooLargeCode: string | undefined;
  /** Every error code the operation documents (the catalog's entries for it). */
  errorCodes: ReadonlySet<string>;
  /** The statuses the operation documents as the edge network's, without a JSON body (`x-origin: edge`). */
  edgeStatuses: ReadonlySet<number>;
  /** The x-rate-limit of the operation, when stricter than the document's. */
  rateLimit: RateLimit | undefined;
}

export interface Contract {
  doc: OpenApiDocument;
  operations: OperationContract[];
  /**
   * The operation a request names and its decoded path parameters; `{ allow }` when the path is an
   * operation's but the method is not (the methods it has, HEAD beside GET); undefined when no path matches.
   */
  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | { allow: string[] } | undefined;
  /** Status and meaning of a code, from the error catalog. */
  error(code: string): { status: number; meaning: string };
  /** The spec code for a body that failed validation (x-error-code, or invalid_request), and the errors that decided it. */
  bodyRefusal(op: OperationContract, body: unknown, errors: ErrorObject[]): BodyRefusal;
  defaultRateLimit: RateLimit;
  /**
   * The name of the API key header, lowercased as node's `req.headers` has it: the `name` of the spec's one
   * security scheme of type `apiKey` sent `in: header`.
   */
  apiKeyHeader: string;
}

function rateLimitOf(value: Json | undefined): { limit: number; windowSeconds: number } | undefined {
  return isObject(value) && typeof value.limit === 'number' && typeof value.windowSeconds === 'number'
    ? { limit: value.limit, windowSeconds: value.windowSeconds }
    : undefined;
}

/** The one `apiKey` security scheme sent in a header: its header name, lowercased. */
function apiKeyHeaderOf(doc: OpenApiDocument): string {
  const schemes = isObject(doc.components.securitySchemes) ? Object.values(doc.components.securitySchemes) : [];
  const names = schemes
    .map((scheme) => deref(doc, scheme))
    .filter((scheme): scheme is JsonObject => isObject(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string')
    .map((scheme) => String(scheme.name).toLowerCase());
  if (names.length !== 1) throw new Error(`the spec must have exactly one apiKey security scheme in a header; it has ${names.length}`);
  return names[0]!;
}

/** Each product's access code: the 403 code every operation of the product shares. */
function productAccessCodes(doc: OpenApiDocument, catalog: CatalogEntry[]): (product: string) => string {
  const forbidden = new Map<string, Set<string>[]>(); // product → each operation's 403 codes
  for (const { operationId, operation } of operations(doc)) {
    const product = String((operation.tags as string[])[0]);
    const codes = new Set(catalog.filter((e) => e.operationId === operationId && e.status === 403).map((e) => e.code));
    forbidden.set(product, [...(forbidden.get(product) ?? []), codes]);
  }
  return (product) => {
    const perOp = forbidden.get(product) ?? [];
    const shared = [...(perOp[0] ?? [])].filter((code) => perOp.every((set) => set.has(code)));
    if (!shared[0]) throw new Error(`the spec gives the ${product} operations no shared 403 code`);
    return shared[0];
  };
}

/** What the contract reads once for every operation. */
interface Readers {
  validator: SpecValidator;
  catalog: CatalogEntry[];
  accessCode: (product: string) => string;
  bodies: BodyValidation;
}

/** One operation's contract: its route, product, validators, documented errors and limits. */
function operationContract(doc: OpenApiDocument, { method, path, operationId, operation }: ReturnType<typeof operations>[number], readers: Readers): OperationContract {
  const { validator, catalog, accessCode, bodies } = readers;
  const params = ((operation.parameters ?? []) as Json[]).map((p) => deref(doc, p)).filter(isObject);
  const keyParam = params.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
  const body = deref(doc, operation.requestBody ?? null);
  const media = isObject(body) && isObject(body.content) ? deref(doc, body.content['application/json'] ?? null) : undefined;
  const bodySchema = isObject(media) && isObject(media.schema) ? media.schema : undefined;
  const { pattern, names: pathParams } = pathTemplate(path);
  const product = String((operation.tags as string[])[0]) as Product;
  const ownErrors = catalog.filter((e) => e.operationId === operationId);
  const responses = isObject(operation.responses) ? operation.responses : {};
  const pathSchemas = new Map(params.filter((p) => p.in === 'path' && isObject(p.schema)).map((p) => [String(p.name), p.schema as JsonObject]));
  return {
    operationId,
    method: method.toUpperCase(),
    path,
    product,
    pattern,
    pathParams,
    accessCode: accessCode(product),
    idempotencyKey: isObject(keyParam?.schema) ? validator.compile(keyParam.schema) : undefined,
    body: bodySchema,
    validateBody: bodySchema ? bodies.validatorFor(operationId, bodySchema) : undefined,
    // Every path parameter has a validator, and none accepts a missing value: match() leaves out a segment
    // that is not valid percent-encoding, so such a path is answered like any id that names nothing.
    pathValidators: new Map(pathParams.map((name) => [name, validator.compile(pathSchemas.get(name) ?? { type: 'string' })])),
    notFoundCode: ownErrors.find((e) => e.status === 404)?.code,
    rateLimit: rateLimitOf(operation['x-rate-limit']),
    hasBody: bodySchema !== undefined,
    bodyLimited: '413' in responses,
    payloadTooLargeCode: ownErrors.find((e) => e.status === 413)?.code,
    errorCodes: new Set(ownErrors.map((e) => e.code)),
    edgeStatuses: new Set(edgeStatuses(doc).filter((e) => e.operationId === operationId).map((e) => e.status)),
  };
}

/** Contract.match over the spec's operations. */
function matchOperation(ops: OperationContract[], method: string, path: string): ReturnType<Contract['match']> {
  const found = matchRoute(ops, method, path);
  if (!found || 'samePath' in found) return found && { allow: found.samePath.flatMap((op) => (op.method === 'GET' ? ['GET', 'HEAD'] : [op.method])) };
  const params: Record<string, string> = {};
  found.route.pathParams.forEach((name, i) => {
    const value = found.segments[i];
    if (value !== undefined) params[name] = value; // left out: the path validator refuses it (the 404)
  });
  return { op: found.route, params };
}

/** A spec path template (`/v1/x/{id}`) as a pattern over request paths, and its parameters' names in order. */
export function pathTemplate(path: string): { pattern: RegExp; names: string[] } {
  return { pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`), names: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!) };
}

/**
 * The first route whose pattern and method match a request, with its path segments decoded (undefined where
 * a segment is not valid percent-encoding); else the routes with that path and another method, if any.
 * Shared by the public API (Contract.match) and the admin API.
 */
export function matchRoute<R extends { method: string; pattern: RegExp }>(routes: readonly R[], method: string, path: string): { route: R; segments: (string | undefined)[] } | { samePath: R[] } | undefined {
  const samePath: R[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.method === method) return { route, segments: m.slice(1).map((segment) => decodePathSegment(segment)) };
    samePath.push(route);
  }
  return samePath.length ? { samePath } : undefined;
}

export function loadContract(doc: OpenApiDocument): Contract {
  const validator = createValidator(doc);
  const catalog = errorCatalog(doc);
  const codes = new Map(catalog.map((e) => [e.code, { status: e.status, meaning: e.meaning }]));
  const bodies = bodyValidation(doc, validator);
  const readers: Readers = { validator, catalog, accessCode: productAccessCodes(doc, catalog), bodies };
  const ops = operations(doc).map((entry) => operationContract(doc, entry, readers));
  const defaultRateLimit = rateLimitOf(doc['x-rate-limit']);
  if (!defaultRateLimit) throw new Error('the spec has no x-rate-limit');
  return {
    doc,
    operations: ops,
    defaultRateLimit,
    apiKeyHeader: apiKeyHeaderOf(doc),
    match: (method, path) => matchOperation(ops, method, path),
    error(code) {
      const found = codes.get(code);
      if (!found) throw new Error(`the spec's error catalog has no code ${code}`);
      return found;
    },
    bodyRefusal: (op, data, errors) => bodies.refusal(op.body, data, errors),
  };
}

/** A percent-encoded path segment, decoded; undefined when it is not valid percent-encoding (`%ZZ`). */
function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
