// Everything the sandbox knows about the API, read from the bundled spec at start-up: the operations and
// their path patterns, the product each belongs to and its 403 code, request validators (Ajv 2020-12) with
// the spec's `x-error-code` mapping, and each error code's status and meaning from the catalog. No schema,
// code or status is written here by hand.
import {
  createValidator,
  deref,
  errorCatalog,
  isObject,
  operations,
  type Json,
  type JsonObject,
  type OpenApiDocument,
} from '@payments/spec';
import type { ErrorObject, ValidateFunction } from 'ajv';

export type Product = 'Banking' | 'Cards' | 'Checkout';

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
  pathValidators: Record<string, ValidateFunction>;
  /** The 404 code of the operation (a path id that cannot exist is simply not found), if it has one. */
  notFoundCode: string | undefined;
  /** The x-rate-limit of the operation, when stricter than the document's. */
  rateLimit: { limit: number; windowSeconds: number } | undefined;
}

export interface Contract {
  doc: OpenApiDocument;
  operations: OperationContract[];
  match(method: string, path: string): { op: OperationContract; params: Record<string, string> } | 'method-not-allowed' | undefined;
  /** Status and meaning of a code, from the error catalog. */
  error(code: string): { status: number; meaning: string };
  /** The spec code for a body that failed validation (x-error-code, or invalid_request). */
  bodyErrorCode(op: OperationContract, body: unknown, errors: ErrorObject[]): string;
  defaultRateLimit: { limit: number; windowSeconds: number };
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
      validateBody: bodySchema ? validator.compile(bodySchema) : undefined,
      pathValidators: Object.fromEntries(
        params.filter((p) => p.in === 'path' && isObject(p.schema)).map((p) => [String(p.name), validator.compile(p.schema as JsonObject)]),
      ),
      notFoundCode: catalog.find((e) => e.operationId === operationId && e.status === 404)?.code,
      rateLimit: rateLimitOf(operation['x-rate-limit']),
    };
  });

  const defaultRateLimit = rateLimitOf(doc['x-rate-limit']);
  if (!defaultRateLimit) throw new Error('the spec has no x-rate-limit');

  return {
    doc,
    operations: ops,
    defaultRateLimit,
    match(method, path) {
      let pathMatched = false;
      for (const op of ops) {
        const m = op.pattern.exec(path);
        if (!m) continue;
        pathMatched = true;
        if (op.method !== method) continue;
        const params = Object.fromEntries(op.pathParams.map((name, i) => [name, decodeURIComponent(m[i + 1]!)]));
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
          errors = [...(own.errors ?? [])];
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
}
