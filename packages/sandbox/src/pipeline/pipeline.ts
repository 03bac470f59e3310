// What happens to a request of the public API, in the order it meets each step:
//   route (from the spec; HEAD as GET) → body (size, bytes) → auth (x-api-key only, hashed) → rate limits
//   → product access → validation (the spec's schemas) → one transaction: a scheduled fault, or the
//   operation under its Idempotency-Key → the answer.
// Every refusal is the shared error body with a fresh requestId; no response carries CORS headers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Contract, OperationContract } from '../contract.ts';
import { Failure } from '../failure.ts';
import { pathOf, readRequestBody, sendJson, type LogLine, type Logger } from '../http.ts';
import { hashApiKey, wellFormed } from '../keys.ts';
import { handlers } from '../operations/index.ts';
import type { Caller, FaultRecord, Organization, Store } from '../store/types.ts';
import { actOut } from './faults.ts';
import { respond } from './idempotency.ts';
import { enforceRateLimits } from './rate-limit.ts';
import type { ApiRequest } from './request.ts';
import { validateRequest } from './validation.ts';
import type { OperationResult } from '../operations/context.ts';

export interface SandboxOptions {
  store: Store;
  contract: Contract;
  logger?: Logger;
  /** Largest accepted request body in bytes (default 64 KiB). */
  bodyLimit?: number;
  /** Handles /admin/* requests (the admin surface), when given. */
  admin?: (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;
  now?: () => Date;
}

export function createSandbox(options: SandboxOptions): { handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> } {
  const { store, contract } = options;
  const bodyLimit = options.bodyLimit ?? 64 * 1024;
  const now = options.now ?? (() => new Date());
  const log = options.logger ?? (() => {});
  for (const op of contract.operations) {
    if (!handlers[op.operationId]) throw new Error(`the sandbox has no handler for ${op.operationId}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const path = pathOf(req.url ?? '/');
    const line: LogLine = { requestId: randomUUID(), method: req.method ?? '', path, status: 0, ms: 0 };
    try {
      if (options.admin && path.startsWith('/admin/')) {
        await options.admin(req, res, line.requestId);
        line.status = res.statusCode;
      } else {
        await api(req, res, path, line);
      }
    } catch (err) {
      answerError(res, line, err);
    } finally {
      line.ms = Math.round((performance.now() - started) * 100) / 100;
      if (!line.status && line.fault !== 'drop_after_commit') line.status = res.statusCode;
      log(line);
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, line: LogLine): Promise<void> {
    const matched = contract.match(req.method === 'HEAD' ? 'GET' : (req.method ?? ''), path);
    if (matched === undefined || matched === 'method-not-allowed') {
      // Not an operation of the spec (OPTIONS preflights included): no CORS, just the error body.
      const status = matched === undefined ? 404 : 405;
      line.status = status;
      sendJson(res, status, { error: status === 404 ? 'No such operation.' : 'Method not allowed.', code: status === 404 ? 'not_found' : 'method_not_allowed', requestId: line.requestId });
      return;
    }
    const { op, params } = matched;
    line.operationId = op.operationId;
    const raw = await readRequestBody(req, res, op, bodyLimit);
    const { key, organization: org, faultPending } = await authenticate(req, op);
    line.organizationId = org.id;
    line.keyId = key.id;
    const at = now();
    await enforceRateLimits(store, contract, key.id, op, at.getTime());
    if (!org.apiAccess || !productEnabled(org, op)) throw new Failure(op.accessCode);
    const body = validateRequest(contract, req, op, params, raw);
    const idempotencyKey = op.idempotencyKey ? String(req.headers['idempotency-key']) : undefined;
    const request: ApiRequest = { op, handler: handlers[op.operationId]!, params, org, body, idempotencyKey, at, log: line };

    const outcome = await store.transaction(
      async (tx): Promise<{ fault: FaultRecord } | { result: OperationResult }> => {
        const fault = faultPending ? await tx.takeFault(org.id, op.operationId) : undefined;
        return fault ? { fault } : { result: await respond(tx, request) };
      },
      { readOnly: op.method === 'GET' },
    );
    if ('fault' in outcome) return actOut(store, request, outcome.fault, res);
    line.status = outcome.result.status;
    sendJson(res, outcome.result.status, outcome.result.body);
  }

  /** The caller of a well-formed, known, unrevoked key in `x-api-key` (the only header read). */
  async function authenticate(req: IncomingMessage, op: OperationContract): Promise<Caller> {
    const presented = req.headers[contract.apiKeyHeader];
    const key = Array.isArray(presented) ? undefined : presented;
    if (!wellFormed(key)) throw new Failure('invalid_api_key');
    const caller = await store.findCaller(hashApiKey(key), op.operationId);
    if (!caller || caller.key.revokedAt) throw new Failure('invalid_api_key');
    return caller;
  }

  function answerError(res: ServerResponse, line: LogLine, err: unknown): void {
    if (err instanceof Failure) {
      const { status, meaning } = contract.error(err.code);
      line.status = status;
      line.code = err.code;
      sendJson(res, status, { error: err.detail ?? meaning, code: err.code, requestId: line.requestId }, err.headers);
      return;
    }
    // A bug, not a contract outcome: the shared body, never a stack trace, and a 500 the spec does not
    // document, so that a contract test flags it. Answering the documented (retryable) 503 would hide the
    // bug from the kit and have clients retry it forever.
    line.status = 500;
    line.code = 'internal_error';
    process.stderr.write(`sandbox: unexpected error for request ${line.requestId}: ${err instanceof Error ? err.stack : String(err)}\n`);
    sendJson(res, 500, { error: 'Internal error in the sandbox (a bug: please report it with the requestId).', code: 'internal_error', requestId: line.requestId });
  }

  return { handle };
}

function productEnabled(org: Organization, op: OperationContract): boolean {
  return op.product === 'Banking' ? org.banking : op.product === 'Cards' ? org.cards : org.checkout;
}
