// What the client checks before sending and how it retries, read from the bundled document so the client
// (which may depend on nothing but openapi-fetch) carries the spec's own values: Idempotency-Key rules per
// operation, decimal fields and mutually exclusive fields of request bodies with their error codes, what
// is retried (the edge's statuses, the catalog's x-retryable codes) and the transfer's minimum wait after a
// temporary 503.
import { deref, edgeStatuses, errorCatalog, isObject, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';

/**
 * The key schema as one regular expression (the client's code stays small): the pattern alone when it is
 * `^[class]{m,n}$` within the length bounds, else the lengths as a lookahead before the (unanchored) pattern.
 */
function keyPattern(schema: JsonObject): string {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? String(schema.maxLength) : '';
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const bounded = pattern && /^\^\[[^\]]+\]\{(\d+),(\d+)\}\$$/.exec(pattern);
  if (bounded && Number(bounded[1]) >= min && (max === '' || Number(bounded[2]) <= Number(max))) return pattern;
  const lengths = `^(?=[\\s\\S]{${min},${max}}$)`;
  return pattern ? `${lengths}[\\s\\S]*?(?:${pattern})` : `^[\\s\\S]{${min},${max}}$`;
}
interface BodyRule {
  /** Fields holding a decimal amount (number or string), with the code a bad value gets. */
  decimals: Record<string, { code: string; pattern: RegExp }>;
  /** Groups of fields that must not be sent together, with the code (absent: none). */
  exclusive?: { fields: string[]; code: string }[];
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
  const rule: BodyRule = { decimals: {} };
  for (const [name, prop] of Object.entries(schema.properties)) {
    const pattern = decimalPattern(doc, prop);
    if (!pattern) continue;
    const code = isObject(prop) && typeof prop['x-error-code'] === 'string' ? prop['x-error-code'] : INVALID_REQUEST;
    rule.decimals[name] = { code, pattern: new RegExp(pattern) };
  }
  const not = isObject(schema.not) ? schema.not : undefined;
  if (not && Array.isArray(not.required)) {
    rule.exclusive = [{ fields: not.required.map(String), code: String(not['x-error-code'] ?? INVALID_REQUEST) }];
  }
  return Object.keys(rule.decimals).length || rule.exclusive ? rule : undefined;
}

/**
 * A value as TypeScript source: JSON, but a RegExp as a regular expression literal, so the client compiles
 * no pattern at run time (and ships no cache of compiled ones).
 */
function literal(value: unknown): string {
  const patterns: RegExp[] = [];
  const json = JSON.stringify(value, (_, v: unknown) => (v instanceof RegExp ? `\0${patterns.push(v) - 1}` : v), 2);
  return json.replace(/"\\u0000(\d+)"/g, (_, i: string) => String(patterns[Number(i)]));
}

export function specRulesModule(doc: OpenApiDocument): string {
  const operationIds: Record<string, string> = {};
  const idempotencyKeys: Record<string, RegExp> = {};
  const bodies: Record<string, BodyRule> = {};
  let transferRetry: JsonObject | undefined;
  for (const { method, path, operationId, operation } of operations(doc)) {
    operationIds[`${method.toUpperCase()} ${path}`] = operationId;
    for (const raw of (operation.parameters ?? []) as Json[]) {
      const param = deref(doc, raw);
      if (!isObject(param) || param.name !== 'Idempotency-Key' || param.in !== 'header') continue;
      const schema = deref(doc, param.schema ?? null);
      if (!isObject(schema)) continue;
      idempotencyKeys[operationId] = new RegExp(keyPattern(schema));
    }
    const rule = bodyRule(doc, operation);
    if (rule) bodies[operationId] = rule;
    const retry = operation['x-retry'];
    if (isObject(retry) && isObject(retry.temporaryUnavailable)) transferRetry = { operationId, ...retry.temporaryUnavailable };
  }
  const unavailable: Record<string, number> = {};
  if (transferRetry) unavailable[String(transferRetry.operationId)] = Number(transferRetry.minDelaySeconds) * 1000;
  const out = (name: string, doc: string, value: unknown) => `/** ${doc} */\nexport const ${name} = ${literal(value)} as const;\n`;
  return [
    '',
    out('operationIds', 'operationId by "METHOD /path".', operationIds),
    out('idempotencyKeyRules', 'The Idempotency-Key schema (minLength, maxLength, pattern) of each operation that takes one, as one regular expression.', idempotencyKeys),
    out('bodyRules', 'Decimal and mutually exclusive fields of request bodies, with the code a violation gets.', bodies),
    out('unavailableMinDelayMs', 'Minimum wait before retrying after a temporary 503, per operation (x-retry).', unavailable),
    out(
      'retryOn',
      'What is retried, by status or code, per operation ("*": the entries every operation shares). "backoff": the edge (x-origin: edge), outcome unknown; "unavailable": the temporary status of x-retry, waited at least its minimum; "retryAfter": another x-retryable status (a rate limit), its Retry-After waited as it is; false: a code the catalog marks not x-retryable under a retried status (configuration).',
      retryOnRules(doc, transferRetry ? Number(transferRetry.status) : undefined),
    ),
  ].join('\n');
}

type RetryMode = 'backoff' | 'retryAfter' | 'unavailable' | false;

function retryOnRules(doc: OpenApiDocument, unavailableStatus: number | undefined): Record<string, Record<string, RetryMode>> {
  const perOperation: Record<string, Record<string, RetryMode>> = {};
  for (const { operationId } of operations(doc)) perOperation[operationId] = {};
  for (const { operationId, status } of edgeStatuses(doc)) perOperation[operationId]![status] = 'backoff';
  const catalog = errorCatalog(doc);
  for (const e of catalog) if (e.retryable) perOperation[e.operationId]![e.status] = e.status === unavailableStatus ? 'unavailable' : 'retryAfter';
  for (const e of catalog) if (!e.retryable && perOperation[e.operationId]![e.status]) perOperation[e.operationId]![e.code] = false;
  // The entries every operation has go once under "*": the client's own code stays small.
  const rules = Object.values(perOperation);
  const shared = Object.fromEntries(Object.entries(rules[0] ?? {}).filter(([key, mode]) => rules.every((r) => r[key] === mode)));
  const result: Record<string, Record<string, RetryMode>> = { '*': shared };
  for (const [operationId, rule] of Object.entries(perOperation)) {
    const own = Object.fromEntries(Object.entries(rule).filter(([key]) => !(key in shared)));
    if (Object.keys(own).length) result[operationId] = own;
  }
  return result;
}
