// What the kit reads from the bundled document, once: per operation its parameters, request body and
// documented responses (content, headers, x-assumed, x-origin), each with its JSON pointer so validators
// and the x-assumed lookup work on the document itself. Nothing here restates the API by hand.
import {
  assumedReasonOf,
  createValidator,
  escapePointer,
  locate,
  type Located,
  errorCatalog,
  isObject,
  loadSpec,
  operations,
  resolvePointer,
  type CatalogEntry,
  type Json,
  type JsonObject,
  type OpenApiDocument,
  type SpecValidator,
} from '@payments/spec';

export { assumedReasonOf, escapePointer, locate, type Located } from '@payments/spec';

export interface ParamModel {
  name: string;
  in: string;
  required: boolean;
  schemaPointer: string;
  schema: JsonObject;
  assumedReason: string | undefined;
}

export interface HeaderModel {
  name: string;
  required: boolean;
  /** Error codes the header always comes with, read from its description ("Always sent with `code`"): the
   *  document cannot mark a header required for one code of a response only, so it says so in words. */
  requiredWithCodes: string[];
  schemaPointer: string | undefined;
  assumedReason: string | undefined;
}

/** An error code a request-body schema node carries (`x-error-code`): the code of a violation of that node. */
export interface SchemaCode {
  code: string;
  /** Every node of the body schema that carries the code. */
  pointers: string[];
  /** The x-assumed-reason of a carrier node, if any: then the schema is only the spec's guess at the server's
   *  rule (e.g. the wallet address, whose EIP-55 checksum no pattern can carry), so a schema-valid value can
   *  still legitimately get the code. */
  assumedReason: string | undefined;
}

export interface ResponseModel {
  /** The key in `responses`: `201`, `4XX`, `default`. */
  status: string;
  pointer: string;
  /** Declared media types (lower case); empty when the response is declared without content. */
  content: { type: string; schemaPointer: string | undefined }[];
  headers: HeaderModel[];
  /** `x-origin: edge`: the edge network's answer, never the API's JSON. */
  edge: boolean;
  assumedReason: string | undefined;
  /** OpenAPI `links`: what a client can call next with values of this response. */
  links: LinkModel[];
}

/** An OpenAPI link: the target operation, its parameters and (partial) request body as runtime expressions
 *  (`$response.body#/id`) or literals. */
export interface LinkModel {
  name: string;
  operationId: string;
  parameters: Record<string, Json>;
  requestBody: Json | undefined;
}

export interface OperationModel {
  operationId: string;
  method: string;
  path: string;
  pointer: string;
  pathParams: ParamModel[];
  idempotencyKey: ParamModel | undefined;
  body: { required: boolean; mediaType: string; schemaPointer: string; schema: JsonObject } | undefined;
  responses: ResponseModel[];
  secured: boolean;
  /** Named request-body examples, in document order. */
  requestExamples: Json[];
  /** Error codes the document gives this operation, per status. */
  codes: Map<number, Set<string>>;
  /** Codes set by `x-error-code` on nodes of the request body's schema, by code. */
  schemaCodes: Map<string, SchemaCode>;
  /** The codes the spec gives ONLY to a schema violation it expresses fully (no carrier is x-assumed): a
   *  schema-valid request must never get one of them. */
  schemaOnlyCodes: Set<string>;
}

export interface ApiModel {
  doc: OpenApiDocument;
  validator: SpecValidator;
  operations: OperationModel[];
  byId: Map<string, OperationModel>;
  catalog: CatalogEntry[];
  /** The header of the document's apiKey security scheme. */
  apiKeyHeader: string;
  /** The shared error body's schema (the $ref most error responses use). */
  errorSchemaPointer: string;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]*\+)?json$/;
export const isJsonMedia = (type: string): boolean => JSON_MEDIA.test(type.split(';')[0]!.trim().toLowerCase());

export function loadApi(doc: OpenApiDocument = loadSpec()): ApiModel {
  const validator = createValidator(doc);
  const catalog = errorCatalog(doc);
  const ops = operations(doc).map(({ method, path, operationId, operation }) => {
    const pointer = `#/paths/${escapePointer(path)}/${method}`;
    const item = locate(doc, doc.paths[path], `#/paths/${escapePointer(path)}`)!;
    const params = [
      ...listAt(doc, item.node.parameters, `${item.pointer}/parameters`),
      ...listAt(doc, operation.parameters, `${pointer}/parameters`),
    ].map((p) => paramModel(doc, p));
    const codes = new Map<number, Set<string>>();
    for (const entry of catalog.filter((e) => e.operationId === operationId)) {
      codes.set(entry.status, (codes.get(entry.status) ?? new Set()).add(entry.code));
    }
    const security = Array.isArray(operation.security) ? operation.security : doc.security;
    const body = bodyModel(doc, operation.requestBody, `${pointer}/requestBody`);
    const schemaCodes = body ? schemaErrorCodes(doc, body.schemaPointer) : new Map<string, SchemaCode>();
    const model: OperationModel = {
      operationId,
      method: method.toUpperCase(),
      path,
      pointer,
      pathParams: params.filter((p) => p.in === 'path'),
      idempotencyKey: params.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
      body,
      responses: responseModels(doc, operation.responses, `${pointer}/responses`),
      secured: Array.isArray(security) && security.length > 0,
      requestExamples: requestExamples(doc, operation.requestBody, `${pointer}/requestBody`),
      codes,
      schemaCodes,
      schemaOnlyCodes: new Set([...schemaCodes.values()].filter((c) => !c.assumedReason && c.code !== VALIDATION_CODE).map((c) => c.code)),
    };
    return model;
  });
  return {
    doc,
    validator,
    operations: ops,
    byId: new Map(ops.map((op) => [op.operationId, op])),
    catalog,
    apiKeyHeader: apiKeyHeader(doc),
    errorSchemaPointer: sharedErrorSchema(doc, ops),
  };
}

function listAt(doc: OpenApiDocument, value: Json | undefined, pointer: string): Located[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry, i) => locate(doc, entry, `${pointer}/${i}`)).filter((l): l is Located => Boolean(l));
}

function paramModel(doc: OpenApiDocument, p: Located): ParamModel {
  const schema = locate(doc, p.node.schema, `${p.pointer}/schema`);
  return {
    name: String(p.node.name),
    in: String(p.node.in),
    required: p.node.required === true,
    schemaPointer: `${p.pointer}/schema`,
    schema: schema?.node ?? {},
    assumedReason: p.assumedReason ?? schema?.assumedReason,
  };
}

function bodyModel(doc: OpenApiDocument, value: Json | undefined, pointer: string): OperationModel['body'] {
  const body = locate(doc, value, pointer);
  if (!body || !isObject(body.node.content)) return undefined;
  const [mediaType] = Object.keys(body.node.content).filter(isJsonMedia);
  if (!mediaType) return undefined;
  const mediaPointer = `${body.pointer}/content/${escapePointer(mediaType)}`;
  const media = locate(doc, body.node.content[mediaType], mediaPointer);
  if (!media || media.node.schema === undefined) return undefined;
  const schema = locate(doc, media.node.schema, `${media.pointer}/schema`);
  return { required: body.node.required === true, mediaType, schemaPointer: `${media.pointer}/schema`, schema: schema?.node ?? {} };
}

function requestExamples(doc: OpenApiDocument, value: Json | undefined, pointer: string): Json[] {
  const body = locate(doc, value, pointer);
  if (!body || !isObject(body.node.content)) return [];
  const [mediaType] = Object.keys(body.node.content).filter(isJsonMedia);
  const media = mediaType ? locate(doc, body.node.content[mediaType], `${body.pointer}/content/${escapePointer(mediaType)}`) : undefined;
  if (!media) return [];
  const named = isObject(media.node.examples) ? Object.entries(media.node.examples) : [];
  const values = named.map(([name, ex]) => locate(doc, ex, `${media.pointer}/examples/${escapePointer(name)}`)?.node.value);
  return [...values, media.node.example].filter((v): v is Json => v !== undefined);
}

function responseModels(doc: OpenApiDocument, value: Json | undefined, pointer: string): ResponseModel[] {
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([status, raw]) => {
    const response = locate(doc, raw, `${pointer}/${escapePointer(status)}`);
    if (!response) return [];
    const content = isObject(response.node.content)
      ? Object.keys(response.node.content).map((type) => {
          const media = locate(doc, (response.node.content as JsonObject)[type], `${response.pointer}/content/${escapePointer(type)}`);
          return { type: type.toLowerCase(), schemaPointer: media && media.node.schema !== undefined ? `${media.pointer}/schema` : undefined };
        })
      : [];
    const headers = isObject(response.node.headers)
      ? Object.entries(response.node.headers).flatMap(([name, rawHeader]) => {
          if (name.toLowerCase() === 'content-type') return []; // OpenAPI: ignored when declared
          const header = locate(doc, rawHeader, `${response.pointer}/headers/${escapePointer(name)}`);
          if (!header) return [];
          const schema = header.node.schema === undefined ? undefined : locate(doc, header.node.schema, `${header.pointer}/schema`);
          return [
            {
              name,
              required: header.node.required === true,
              requiredWithCodes: alwaysSentWith(header.node.description),
              schemaPointer: schema ? `${header.pointer}/schema` : undefined,
              assumedReason: header.assumedReason ?? schema?.assumedReason,
            },
          ];
        })
      : [];
    const links = isObject(response.node.links)
      ? Object.entries(response.node.links).flatMap(([name, raw]) => {
          const link = locate(doc, raw, `${response.pointer}/links/${escapePointer(name)}`);
          if (!link || typeof link.node.operationId !== 'string') return [];
          return [{ name, operationId: link.node.operationId, parameters: isObject(link.node.parameters) ? link.node.parameters : {}, requestBody: link.node.requestBody }];
        })
      : [];
    return [{ status, pointer: response.pointer, content, headers, edge: response.node['x-origin'] === 'edge', assumedReason: response.assumedReason, links }];
  });
}

const ALWAYS_SENT_WITH = /\balways sent with\s+((?:`[\w.-]+`(?:\s*(?:,|\band\b|\bor\b)\s*)?)+)/i;

/** The codes in a header description's "Always sent with `a` (and `b`)". */
export function alwaysSentWith(description: Json | undefined): string[] {
  if (typeof description !== 'string') return [];
  const match = ALWAYS_SENT_WITH.exec(description);
  return match ? [...match[1]!.matchAll(/`([\w.-]+)`/g)].map((m) => m[1]!) : [];
}

/** The generic validation code (the catalog's code for "the request does not match the contract"). */
export const VALIDATION_CODE = 'invalid_request';

/**
 * Every `x-error-code` in the schema at `pointer` (through $ref, allOf/oneOf/anyOf, properties, items,
 * additionalProperties and not), with the nodes that carry it and whether one of them is x-assumed.
 */
export function schemaErrorCodes(doc: OpenApiDocument, pointer: string): Map<string, SchemaCode> {
  const found = new Map<string, SchemaCode>();
  const seen = new Set<string>();
  const visit = (value: Json | undefined, at: string) => {
    const loc = locate(doc, value, at);
    if (!loc || seen.has(loc.pointer)) return;
    seen.add(loc.pointer);
    const { node } = loc;
    const code = node['x-error-code'];
    if (typeof code === 'string') {
      const entry = found.get(code) ?? { code, pointers: [], assumedReason: undefined };
      entry.pointers.push(loc.pointer);
      entry.assumedReason ??= assumedReasonOf(node);
      found.set(code, entry);
    }
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((branch, i) => visit(branch, `${loc.pointer}/${key}/${i}`));
    }
    if (isObject(node.properties)) {
      for (const [name, prop] of Object.entries(node.properties)) visit(prop, `${loc.pointer}/properties/${escapePointer(name)}`);
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) {
      if (isObject(node[key])) visit(node[key], `${loc.pointer}/${key}`);
    }
  };
  visit({ $ref: pointer }, pointer);
  return found;
}

function apiKeyHeader(doc: OpenApiDocument): string {
  const schemes = isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  for (const scheme of Object.values(schemes)) {
    if (isObject(scheme) && scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') return scheme.name;
  }
  throw new Error('the document has no apiKey security scheme in a header');
}

/** The schema most 4xx/5xx JSON responses point at: the shared error body. */
function sharedErrorSchema(doc: OpenApiDocument, ops: OperationModel[]): string {
  const counts = new Map<string, number>();
  for (const op of ops) {
    for (const response of op.responses) {
      if (!/^[45]/.test(response.status)) continue;
      for (const media of response.content) {
        if (!media.schemaPointer || !isJsonMedia(media.type)) continue;
        const raw = resolvePointer(doc, media.schemaPointer);
        const target = isObject(raw) && typeof raw.$ref === 'string' ? raw.$ref : media.schemaPointer;
        counts.set(target, (counts.get(target) ?? 0) + 1);
      }
    }
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  if (!best) throw new Error('the document has no JSON error responses to read the shared error body from');
  return best[0];
}

/** The documented response for a status: exact, then `4XX`-style ranges, then `default`. */
export function documentedResponse(op: OperationModel, status: number): ResponseModel | undefined {
  const exact = op.responses.find((r) => r.status === String(status));
  if (exact) return exact;
  const range = op.responses.find((r) => r.status.toUpperCase() === `${String(status)[0]}XX`);
  return range ?? op.responses.find((r) => r.status === 'default');
}
