// The request as the spec describes it: path parameters, the Idempotency-Key, a JSON body validated by the
// spec's schemas (Ajv), each violation answered with the field's x-error-code or invalid_request.
import type { IncomingMessage } from 'node:http';
import type { Contract, OperationContract } from '../contract.ts';
import { MAX_JSON_DEPTH, nestedTooDeep } from '@payments/spec/json-depth';
import { readJson } from '../body-validation.ts';
import { Failure } from '../failure.ts';
import { utf8Text } from '../http.ts';

/** The validated body ({} for an operation without one); throws the Failure the spec gives the first violation. */
export function validateRequest(contract: Contract, req: IncomingMessage, op: OperationContract, params: Record<string, string>, raw: Buffer): Record<string, unknown> {
  for (const [name, validate] of op.pathValidators) {
    // An id that breaks the id schema names nothing: the operation's documented 404, not an undocumented 400.
    if (!validate(params[name])) throw new Failure(op.notFoundCode ?? 'invalid_request', op.notFoundCode ? undefined : `Path parameter ${name} is invalid.`);
  }
  if (op.idempotencyKey) {
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string') throw new Failure('invalid_request', 'Idempotency-Key header is required.');
    // Node joins a repeated header into one value ("X, X"): kept, that key would not match the retry that sends
    // X once, and the retry would pay again (QA). One request has one key.
    if ((req.headersDistinct['idempotency-key']?.length ?? 0) > 1) throw new Failure('invalid_request', 'Idempotency-Key header must be sent once.');
    if (!op.idempotencyKey(key)) throw new Failure('invalid_request', 'Idempotency-Key header is malformed.');
  }
  if (!op.validateBody) return {};
  // The media type itself, parameters aside (edge QA: `application/jsonx` passed a prefix match).
  if (String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') {
    throw new Failure('invalid_request', 'Request body must be JSON (content-type: application/json).');
  }
  // A compressed body was read as its bytes: "not valid UTF-8" (edge QA). The document names no compression.
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') throw new Failure('invalid_request', `Content-Encoding ${encoding} is not supported: send the body uncompressed.`);
  const body = parseJson(raw);
  if (!op.validateBody(body)) {
    const { code, errors } = contract.bodyRefusal(op, body, [...(op.validateBody.errors ?? [])]);
    const first = errors[0];
    throw new Failure(code, code === 'invalid_request' && first ? `Request body ${first.instancePath || '(root)'} ${first.message ?? 'is invalid'}.` : undefined);
  }
  return body as Record<string, unknown>;
}

function parseJson(raw: Buffer): unknown {
  const text = utf8Text(raw); // bytes that are not UTF-8 are refused, never stored as U+FFFD
  if (text === undefined) throw new Failure('invalid_request', 'Request body is not valid UTF-8.');
  if (nestedTooDeep(text)) throw new Failure('invalid_request', `Request body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return readJson(text);
  } catch {
    throw new Failure('invalid_request', 'Request body is not valid JSON.');
  }
}
