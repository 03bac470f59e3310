// Everything the sandbox knows about the API, read from the bundled spec at start-up: the operations and
// their path patterns, the product each belongs to and its 403 code, request validators (Ajv 2020-12) with
// the spec's `x-error-code` mapping, each error code's status and meaning from the catalog, which errors and
// edge responses each operation documents, whether it documents a body limit (413), and the API key header.
// No schema, code, status or header name is written here by hand.
import {
  createValidator,
  deref,
  edgeStatuses,
  errorCatalog,
  isObject,
  operations,
  type Json,
  type JsonObject,
  type OpenApiDocument,
} from '@payments/spec';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { InvalidAmount, normalizeAmount } from './money.ts';

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
  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | 'method-not-allowed' | undefined;
  /** Status and meaning of a code, from the error catalog. */
  error(code: string): { status: number; meaning: string };
  /** The spec code for a body that failed validation (x-error-code, or invalid_request). */
  bodyErrorCode(op: OperationContract, body: unknown, errors: ErrorObject[]): string;
  defaultRateLimit: RateLimit;
  /**
   * The name of the API key header, lowercased as node's `req.headers` has it: the `name` of the spec's one
   * security scheme of type `apiKey` sent `in: header`.
   */
  apiKeyHeader: string;
}

const INVALID_REQUEST = 'invalid_request';

function rateLimitOf(value: Json | undefined): { limit: number; windowSeconds: number } | undefined {
  return isObject(value) && typeof value.limit === 'number' && typeof value.windowSeconds === 'number'
    ? { limit: value.limit, windowSeconds: value.windowSeconds }
    : undefined;
}

/** Follows $ref and single-entry allOf wrappers, collecting the first x-error-code met on the way. */
function unwrap(doc: OpenApiDocument, schema: Json): { schema: JsonObject | undefined; code: string | undefined } {
  let code: string | undefined;
  let current = deref(doc, schema);
  for (let i = 0; i < 10 && isObject(current); i++) {
    if (!code && typeof current['x-error-code'] === 'string') code = current['x-error-code'];
    if (Array.isArray(current.allOf) && current.allOf.length === 1) current = deref(doc, current.allOf[0]!);
    else break;
  }
  return { schema: isObject(current) ? current : undefined, code };
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

/** The multipleOf of a number schema, or of the number branch of a oneOf/anyOf: a decimal field's step. */
function decimalStep(doc: OpenApiDocument, schema: JsonObject): number | undefined {
  const candidates = [schema, ...[...((schema.oneOf ?? []) as Json[]), ...((schema.anyOf ?? []) as Json[])].map((b) => unwrap(doc, b).schema)];
  for (const candidate of candidates) {
    if (candidate?.type === 'number' && typeof candidate.multipleOf === 'number') return candidate.multipleOf;
  }
  return undefined;
}

/** Top-level properties of a body schema, those of a oneOf's object branches included. */
function bodyProperties(doc: OpenApiDocument, schema: Json): [string, Json][] {
  const top = unwrap(doc, schema).schema;
  if (!top) return [];
  const objects = [top, ...((Array.isArray(top.oneOf) ? top.oneOf : []) as Json[]).map((b) => unwrap(doc, b).schema)];
  return objects.flatMap((o) => (o && isObject(o.properties) ? Object.entries(o.properties) : []));
}

/** For a oneOf of objects told apart by a required const property: that property's name. */
function discriminator(doc: OpenApiDocument, branches: JsonObject[]): string | undefined {
  const first = branches[0];
  for (const prop of (first?.required ?? []) as string[]) {
    if (branches.every((b) => isObject(b.properties) && isObject(deref(doc, b.properties[prop] ?? null)) && 'const' in (deref(doc, b.properties[prop] ?? null) as JsonObject))) {
      return prop;
    }
  }
  return undefined;
}

export function loadContract(doc: OpenApiDocument): Contract {
  const validator = createValidator(doc);
  const catalog = errorCatalog(doc);
  const codes = new Map(catalog.map((e) => [e.code, { status: e.status, meaning: e.meaning }]));
  const branchValidators = new WeakMap<JsonObject, ValidateFunction>();

  // A product's access code is the 403 code every operation of the product shares.
  const forbidden = new Map<string, Map<string, Set<string>>>(); // product → operationId → 403 codes
  for (const { operationId, operation } of operations(doc)) {
    const product = String((operation.tags as string[])[0]);
    const codesOfOp = new Set(catalog.filter((e) => e.operationId === operationId && e.status === 403).map((e) => e.code));
    forbidden.set(product, (forbidden.get(product) ?? new Map()).set(operationId, codesOfOp));
  }
  const accessCode = (product: string) => {
    const perOp = [...(forbidden.get(product)?.values() ?? [])];
    const shared = [...(perOp[0] ?? [])].filter((code) => perOp.every((set) => set.has(code)));
    if (!shared[0]) throw new Error(`the spec gives the ${product} operations no shared 403 code`);
    return shared[0];
  };

  const ops: OperationContract[] = operations(doc).map(({ method, path, operationId, operation }) => {
    const params = ((operation.parameters ?? []) as Json[]).map((p) => deref(doc, p)).filter(isObject);
    const keyParam = params.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    const body = deref(doc, operation.requestBody ?? null);
    const media = isObject(body) && isObject(body.content) ? deref(doc, body.content['application/json'] ?? null) : undefined;
    const bodySchema = isObject(media) && isObject(media.schema) ? media.schema : undefined;
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const product = String((operation.tags as string[])[0]) as Product;
    const ownErrors = catalog.filter((e) => e.operationId === operationId);
    const responses = isObject(operation.responses) ? operation.responses : {};
    const pathSchemas = new Map(params.filter((p) => p.in === 'path' && isObject(p.schema)).map((p) => [String(p.name), p.schema as JsonObject]));
    return {
      operationId,
      method: method.toUpperCase(),
      path,
      product,
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
      pathParams,
      accessCode: accessCode(product),
      idempotencyKey: isObject(keyParam?.schema) ? validator.compile(keyParam.schema) : undefined,
      body: bodySchema,
      validateBody: bodySchema ? exactDecimals(operationId, bodySchema, validator.compile(bodySchema)) : undefined,
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
  });

  const defaultRateLimit = rateLimitOf(doc['x-rate-limit']);
  if (!defaultRateLimit) throw new Error('the spec has no x-rate-limit');

  const apiKeyHeader = apiKeyHeaderOf(doc);

  return {
    doc,
    operations: ops,
    defaultRateLimit,
    apiKeyHeader,
    match(method, path) {
      let pathMatched = false;
      for (const op of ops) {
        const m = op.pattern.exec(path);
        if (!m) continue;
        pathMatched = true;
        if (op.method !== method) continue;
        const params: Record<string, string> = {};
        op.pathParams.forEach((name, i) => {
          const value = decodePathSegment(m[i + 1]!);
          if (value !== undefined) params[name] = value; // left out: the path validator refuses it (the 404)
        });
        return { op, params };
      }
      return pathMatched ? 'method-not-allowed' : undefined;
    },
    error(code) {
      const found = codes.get(code);
      if (!found) throw new Error(`the spec's error catalog has no code ${code}`);
      return found;
    },
    bodyErrorCode(op, data, errors) {
      let schema = unwrap(doc, op.body ?? null).schema;
      // A oneOf told apart by a const property: a value no branch has gets that property's code; otherwise
      // the errors that matter are those of the branch the value selects.
      if (schema && Array.isArray(schema.oneOf) && isObject(data)) {
        const branches = schema.oneOf.map((b) => unwrap(doc, b).schema).filter((b): b is JsonObject => Boolean(b));
        const prop = discriminator(doc, branches);
        if (prop) {
          const branch = branches.find((b) => (deref(doc, (b.properties as JsonObject)[prop]!) as JsonObject).const === data[prop]);
          if (!branch) return unwrap(doc, (branches[0]!.properties as JsonObject)[prop]!).code ?? INVALID_REQUEST;
          schema = branch;
          const own = validatorFor(branch);
          own(data);
          if (own.errors?.length) errors = [...own.errors]; // else: the exact-decimal errors, kept
        }
      }
      for (const error of errors) {
        if (error.keyword === 'not' && error.instancePath === '' && isObject(schema?.not) && typeof schema.not['x-error-code'] === 'string') {
          return schema.not['x-error-code'];
        }
        const [, field] = error.instancePath.split('/');
        if (!field || !schema || !isObject(schema.properties)) continue;
        const prop = schema.properties[field.replace(/~1/g, '/').replace(/~0/g, '~')];
        if (prop === undefined) continue;
        const { schema: target, code } = unwrap(doc, prop);
        const nested = target ? unwrap(doc, target).code : undefined;
        if (code ?? nested) return (code ?? nested)!;
      }
      return INVALID_REQUEST;
    },
  };

  function validatorFor(schema: JsonObject): ValidateFunction {
    let fn = branchValidators.get(schema);
    if (!fn) branchValidators.set(schema, (fn = validator.compile(schema)));
    return fn;
  }

  /**
   * The body validator, exact on decimal fields (a number schema with `multipleOf`, e.g. the spec's Amount).
   * Ajv checks `multipleOf` with a tolerance on binary doubles (multipleOfPrecision), so 0.1 + 0.2 passes it;
   * here a JSON number counts by its shortest round-trip decimal (String(n)), which must be an exact multiple,
   * and the canonical form the sandbox stores and answers (money.ts) must itself be valid for the field, as
   * every response is checked against the spec. A refusal is an error at the field's path, so the field's
   * code applies (bodyErrorCode).
   */
  function exactDecimals(operationId: string, bodySchema: JsonObject, compiled: ValidateFunction): ValidateFunction {
    const fields = bodyProperties(doc, bodySchema).flatMap(([name, schema]) => {
      const target = unwrap(doc, schema).schema;
      const step = target ? decimalStep(doc, target) : undefined;
      if (step === undefined) return [];
      // money.ts keeps amounts in integer cents: a field of another step would need another unit.
      if (step !== 0.01) throw new Error(`${operationId}: the sandbox keeps amounts in cents, but ${name} has multipleOf ${step}`);
      return [{ name, canonicalValid: validator.compile(schema as JsonObject) }];
    });
    if (fields.length === 0) return compiled;
    const fieldError = (name: string, message: string, params: Record<string, unknown>): ErrorObject => ({
      instancePath: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      schemaPath: `#/properties/${name}`,
      keyword: 'multipleOf',
      params,
      message,
    });
    const validate = ((data: unknown) => {
      const ok = compiled(data);
      validate.errors = compiled.errors ?? null;
      if (!ok || !isObject(data)) return ok;
      const errors: ErrorObject[] = [];
      for (const { name, canonicalValid } of fields) {
        const value = data[name];
        if (value === undefined) continue;
        let canonical: string;
        try {
          canonical = normalizeAmount(value);
        } catch (err) {
          if (!(err instanceof InvalidAmount)) throw err;
          errors.push(fieldError(name, `must be a decimal with at most two decimal places (${String(value)} is not)`, { multipleOf: 0.01 }));
          continue;
        }
        if (!canonicalValid(canonical)) errors.push(fieldError(name, `is out of range: its canonical form ${canonical} is not a valid amount`, { canonical }));
      }
      if (errors.length === 0) return true;
      validate.errors = errors;
      return false;
    }) as ValidateFunction;
    return Object.assign(validate, { schema: compiled.schema, schemaEnv: compiled.schemaEnv });
  }
}

/** A percent-encoded path segment, decoded; undefined when it is not valid percent-encoding (`%ZZ`). */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
