// What the client checks before sending and how it retries, read from the bundled document so the client
// (which may depend on nothing but openapi-fetch) carries the spec's own values: Idempotency-Key rules per
// operation, decimal fields and mutually exclusive fields of request bodies with their error codes, the
// catalog's retryable codes and the transfer's minimum wait after a temporary 503.
import { deref, errorCatalog, isObject, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';

interface KeyRule {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}
interface BodyRule {
  /** Fields holding a decimal amount (number or string), with the code a bad value gets. */
  decimals: Record<string, { code: string; pattern: string }>;
  /** Groups of fields that must not be sent together, with the code. */
  exclusive: { fields: string[]; code: string }[];
}

const INVALID_REQUEST = 'invalid_request';

/** A oneOf of a positive number with multipleOf and a string with a pattern: the spec's decimal amount. */
function decimalPattern(doc: OpenApiDocument, schema: Json): string | undefined {
  let s = deref(doc, schema);
  while (isObject(s) && Array.isArray(s.allOf) && s.allOf.length === 1) s = deref(doc, s.allOf[0]!);
  if (!isObject(s) || !Array.isArray(s.oneOf)) return undefined;
  const branches = s.oneOf.map((b) => deref(doc, b)).filter(isObject);
  const num = branches.find((b) => b.type === 'number');
  const str = branches.find((b) => b.type === 'string');
  if (num?.exclusiveMinimum === 0 && num.multipleOf === 0.01 && typeof str?.pattern === 'string') return str.pattern;
  return undefined;
}

function bodyRule(doc: OpenApiDocument, operation: JsonObject): BodyRule | undefined {
  const body = deref(doc, operation.requestBody ?? null);
  const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
  const schema = isObject(media) ? deref(doc, media.schema ?? null) : undefined;
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  const rule: BodyRule = { decimals: {}, exclusive: [] };
  for (const [name, prop] of Object.entries(schema.properties)) {
    const pattern = decimalPattern(doc, prop);
    if (!pattern) continue;
    const code = isObject(prop) && typeof prop['x-error-code'] === 'string' ? prop['x-error-code'] : INVALID_REQUEST;
    rule.decimals[name] = { code, pattern };
  }
  const not = isObject(schema.not) ? schema.not : undefined;
  if (not && Array.isArray(not.required)) {
    rule.exclusive.push({ fields: not.required.map(String), code: String(not['x-error-code'] ?? INVALID_REQUEST) });
  }
  return Object.keys(rule.decimals).length || rule.exclusive.length ? rule : undefined;
}

export function specRulesModule(doc: OpenApiDocument): string {
  const operationIds: Record<string, string> = {};
  const idempotencyKeys: Record<string, KeyRule> = {};
  const bodies: Record<string, BodyRule> = {};
  let transferRetry: JsonObject | undefined;
  for (const { method, path, operationId, operation } of operations(doc)) {
    operationIds[`${method.toUpperCase()} ${path}`] = operationId;
    for (const raw of (operation.parameters ?? []) as Json[]) {
      const param = deref(doc, raw);
      if (!isObject(param) || param.name !== 'Idempotency-Key' || param.in !== 'header') continue;
      const schema = deref(doc, param.schema ?? null);
      if (!isObject(schema)) continue;
      idempotencyKeys[operationId] = {
        ...(typeof schema.minLength === 'number' ? { minLength: schema.minLength } : {}),
        ...(typeof schema.maxLength === 'number' ? { maxLength: schema.maxLength } : {}),
        ...(typeof schema.pattern === 'string' ? { pattern: schema.pattern } : {}),
      };
    }
    const rule = bodyRule(doc, operation);
    if (rule) bodies[operationId] = rule;
    const retry = operation['x-retry'];
    if (isObject(retry) && isObject(retry.temporaryUnavailable)) transferRetry = { operationId, ...retry.temporaryUnavailable };
  }
  const unavailable: Record<string, number> = {};
  if (transferRetry) unavailable[String(transferRetry.operationId)] = Number(transferRetry.minDelaySeconds) * 1000;
  const catalog = errorCatalog(doc);
  const retryable = [...new Set(catalog.filter((e) => e.retryable).map((e) => e.code))].sort();
  const notRetryable503 = [...new Set(catalog.filter((e) => e.status === 503 && !e.retryable).map((e) => e.code))].sort();
  const out = (name: string, doc: string, value: unknown) => `/** ${doc} */\nexport const ${name} = ${JSON.stringify(value, null, 2)} as const;\n`;
  return [
    '',
    out('operationIds', 'operationId by "METHOD /path".', operationIds),
    out('idempotencyKeyRules', 'The Idempotency-Key schema of each operation that takes one.', idempotencyKeys),
    out('bodyRules', 'Decimal and mutually exclusive fields of request bodies, with the code a violation gets.', bodies),
    out('unavailableMinDelayMs', 'Minimum wait before retrying after a temporary 503, per operation (x-retry).', unavailable),
    out('retryableCodes', 'Codes the catalog marks x-retryable: repeated with the same Idempotency-Key.', retryable),
    out('nonTransient503Codes', '503 codes that are configuration, not transient: never retried.', notRetryable503),
  ].join('\n');
}
