// Requests per operation, generated with fast-check from the spec's schemas: path parameters, the
// Idempotency-Key parameter and the request body. A plan is what fast-check generates and shrinks; it becomes
// an HTTP request only when sent (that is where the API key goes in and where the Idempotency-Key is made
// fresh, so shrinking never replays an earlier key).
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv';
import type { Json } from '@payments/spec';
import { schemaArbitrary } from './arbitraries.ts';
import { freshToken, type KitContext } from './context.ts';
import type { HttpRequest } from './http.ts';
import { mutationArbitrary, type MutationKind } from './mutate.ts';
import type { OperationModel } from './spec-model.ts';

export interface RequestPlan {
  operationId: string;
  kind: 'valid' | 'invalid';
  /** `valid`, or what the mutation broke (e.g. `missing required field "nickname"`). */
  description: string;
  mutation?: MutationKind;
  pathValues: Record<string, string>;
  /** The generated key; null = the header is left out; undefined = the operation takes none. */
  idempotencyKey: string | null | undefined;
  /** Whether the key is valid and must be made fresh when sent. */
  freshKey: boolean;
  body?: { json: Json } | { raw: string };
  /** For a mutation: the error code the broken constraint carries (`x-error-code`), else the catalog's
   *  validation code; the rejection must carry it. */
  expectedCode?: string | string[];
  /** For a mutation that breaks only an x-assumed constraint (a bound, a name): its reason. Its acceptance
   *  (or another code) is then a warning: the server may rightly differ where the spec only assumed. */
  assumedReason?: string;
}

const cache = new WeakMap<OperationModel, fc.Arbitrary<RequestPlan>>();

/** Valid requests: every part valid per the spec (checked with the document's Ajv). */
export function validPlans(ctx: KitContext, op: OperationModel): fc.Arbitrary<RequestPlan> {
  const cached = cache.get(op);
  if (cached) return cached;
  const { doc, validator } = ctx.api;
  const path: Record<string, fc.Arbitrary<Json>> = {};
  for (const p of op.pathParams) path[p.name] = schemaArbitrary(doc, validator, p.schemaPointer, p.schema, { unit: 'path' });
  const key = op.idempotencyKey
    ? (schemaArbitrary(doc, validator, op.idempotencyKey.schemaPointer, op.idempotencyKey.schema, { unit: 'header' }) as fc.Arbitrary<string>)
    : fc.constant(undefined);
  const body = op.body ? schemaArbitrary(doc, validator, op.body.schemaPointer, op.body.schema, { unit: 'text' }) : fc.constant(undefined);
  const arb = fc.record({ path: fc.record(path), key, body }).map(
    ({ path: values, key: k, body: b }): RequestPlan => ({
      operationId: op.operationId,
      kind: 'valid',
      description: 'valid request',
      pathValues: Object.fromEntries(Object.entries(values).map(([name, v]) => [name, String(v)])),
      idempotencyKey: k,
      freshKey: k !== undefined,
      ...(b === undefined ? {} : { body: { json: b } }),
    }),
  );
  cache.set(op, arb);
  return arb;
}

/** Invalid requests: a valid one with exactly one thing broken; undefined when nothing can be broken. */
export function invalidPlans(ctx: KitContext, op: OperationModel, exclude: MutationKind[] = []): fc.Arbitrary<RequestPlan> | undefined {
  return mutationArbitrary(ctx, op, validPlans(ctx, op), exclude);
}

const keyValidators = new WeakMap<OperationModel, ValidateFunction>();

/** The HTTP request of a plan, with the API key and (for valid keys) a fresh Idempotency-Key. */
export function materialize(ctx: KitContext, op: OperationModel, plan: RequestPlan, auth: 'key' | 'none' | { headers: Record<string, string> } = 'key'): HttpRequest {
  let path = op.path;
  for (const [name, value] of Object.entries(plan.pathValues)) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const headers: Record<string, string> = {};
  if (auth === 'key') headers[ctx.api.apiKeyHeader] = ctx.apiKey;
  else if (auth !== 'none') Object.assign(headers, auth.headers);
  if (op.idempotencyKey && typeof plan.idempotencyKey === 'string') {
    headers[op.idempotencyKey.name] = plan.freshKey ? freshen(ctx, op, plan.idempotencyKey) : plan.idempotencyKey;
  }
  let body: string | undefined;
  if (plan.body) {
    headers['content-type'] = op.body?.mediaType ?? 'application/json';
    body = 'raw' in plan.body ? plan.body.raw : JSON.stringify(plan.body.json);
  }
  return { method: op.method, path, headers, ...(body === undefined ? {} : { body }) };
}

/** A fresh key in the generated key's shape: a random token in front, cut to the schema's length, re-validated. */
export function freshen(ctx: KitContext, op: OperationModel, key: string): string {
  const param = op.idempotencyKey;
  if (!param) return key;
  let validate = keyValidators.get(op);
  if (!validate) keyValidators.set(op, (validate = ctx.api.validator.compile({ $ref: param.schemaPointer })));
  const max = typeof param.schema.maxLength === 'number' ? param.schema.maxLength : 255;
  const candidate = `ck${freshToken(14)}${key}`.slice(0, max);
  return validate(candidate) ? candidate : key;
}

/** A plan for the operation from the spec's own request example (probes that need a success). */
export function examplePlan(ctx: KitContext, op: OperationModel, body: Json | undefined): RequestPlan {
  const sample = fc.sample(validPlans(ctx, op), { numRuns: 1, seed: 1 })[0]!;
  return { ...sample, description: 'example request', ...(body === undefined ? {} : { body: { json: body } }) };
}
