// The sandbox's request pipeline for the public API, in the order a request meets it:
// route (from the spec) → body size → auth (x-api-key only, hashed) → rate limits → product access →
// validation (spec schemas) → injected fault → idempotency → the operation's domain rules.
// Every failure is the shared error body with a fresh requestId; no response carries CORS headers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Contract, OperationContract, RateLimit } from './contract.ts';
import { Failure } from './failure.ts';
import { BodyTooLarge, pathOf, readBody, sendEdge, sendJson, sendJsonText, type LogLine, type Logger } from './http.ts';
import { newId, perMillisecond } from './ids.ts';
import { hashApiKey, wellFormed } from './keys.ts';
import { handlers } from './operations/index.ts';
import { admitTransfer, insertTransfer, transferView } from './operations/banking.ts';
import type { OperationContext, OperationResult } from './operations/context.ts';
import type { FaultRecord, IdempotencyRecord, Organization, Store, Transaction, TransferStatus } from './store/types.ts';

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

interface Request {
  requestId: string;
  op: OperationContract;
  params: Record<string, string>;
  org: Organization;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** The request's clock reading: every record it creates carries it. */
  at: Date;
  /** `at` as an ISO string, made when first needed (toISOString is not free, and a GET needs none). */
  iso?: string;
  log: LogLine;
}

/** How the one transaction of a request ended: refused, a fault to act out, or the operation's result. */
type Outcome = { refused: Failure } | { fault: FaultRecord; request: Request } | { result: OperationResult };

const EMPTY_BODY: Buffer = Buffer.alloc(0);

const FINAL_RESOLUTIONS = new Set(['pending', 'completed', 'failed', 'cancelled']);

const isoTime = perMillisecond((ms) => new Date(ms).toISOString());
const isoOf = (request: Request): string => (request.iso ??= isoTime(request.at.getTime()));

/** What a handler sees of its request. A class: its `now` getter lives on the prototype (a getter in an object literal makes every context slow to create). */
class RequestContext implements OperationContext {
  readonly org: Organization;
  readonly op: OperationContract;
  readonly params: Record<string, string>;
  readonly body: Record<string, unknown>;
  readonly idempotencyKey: string | undefined;
  readonly newId = newId;
  readonly tx: Transaction;
  readonly #request: Request;
  constructor(tx: Transaction, request: Request) {
    this.tx = tx;
    this.#request = request;
    this.org = request.org;
    this.op = request.op;
    this.params = request.params;
    this.body = request.body;
    this.idempotencyKey = request.idempotencyKey;
  }
  get now(): string {
    return isoOf(this.#request);
  }
}

export function createSandbox(options: SandboxOptions): { handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> } {
  const { store, contract } = options;
  const bodyLimit = options.bodyLimit ?? 64 * 1024;
  const now = options.now ?? (() => new Date());
  const log = options.logger ?? (() => {});
  for (const op of contract.operations) {
    if (!handlers[op.operationId]) throw new Error(`the sandbox has no handler for ${op.operationId}`);
  }

  const fail = (res: ServerResponse, line: LogLine, failure: Failure) => {
    const { status, meaning } = contract.error(failure.code);
    line.status = status;
    line.code = failure.code;
    sendJson(res, status, { error: failure.detail ?? meaning, code: failure.code, requestId: line.requestId }, failure.headers);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    const path = pathOf(req.url ?? '/');
    const line: LogLine = { requestId, method: req.method ?? '', path, status: 0, ms: 0 };
    try {
      if (options.admin && path.startsWith('/admin/')) {
        await options.admin(req, res, requestId);
        line.status = res.statusCode;
        return;
      }
      await api(req, res, path, line);
    } catch (err) {
      if (err instanceof Failure) fail(res, line, err);
      else {
        // A bug, not a contract outcome: the shared body, never a stack trace, and a 500 the spec does not
        // document, so that a contract test flags it. Answering the documented (retryable) 503 would hide
        // the bug from the kit and have clients retry it forever.
        line.status = 500;
        line.code = 'internal_error';
        process.stderr.write(`sandbox: unexpected error for request ${requestId}: ${err instanceof Error ? err.stack : String(err)}\n`);
        sendJson(res, 500, { error: 'Internal error in the sandbox (a bug: please report it with the requestId).', code: 'internal_error', requestId });
      }
    } finally {
      line.ms = Math.round((performance.now() - started) * 100) / 100;
      if (!line.status && line.fault !== 'drop_after_commit') line.status = res.statusCode;
      log(line);
    }
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, line: LogLine): Promise<void> {
    const matched = contract.match(req.method ?? '', path);
    if (matched === undefined || matched === 'method-not-allowed') {
      // Not an operation of the spec (OPTIONS preflights included): no CORS, just the error body.
      const status = matched === undefined ? 404 : 405;
      line.status = status;
      sendJson(res, status, { error: status === 404 ? 'No such operation.' : 'Method not allowed.', code: status === 404 ? 'not_found' : 'method_not_allowed', requestId: line.requestId });
      return;
    }
    const { op, params } = matched;
    line.operationId = op.operationId;

    let raw = EMPTY_BODY;
    if (op.hasBody || op.bodyLimited) {
      try {
        raw = await readBody(req, bodyLimit);
      } catch (err) {
        if (!(err instanceof BodyTooLarge)) throw err;
        res.setHeader('connection', 'close');
        throw new Failure(op.payloadTooLargeCode ?? 'invalid_request', op.payloadTooLargeCode ? undefined : `Request body larger than ${bodyLimit} bytes.`);
      }
    } else {
      req.resume(); // an operation without a body ignores one, unread: never a 413 the spec does not document
    }

    const presented = req.headers[contract.apiKeyHeader];
    const key = Array.isArray(presented) ? undefined : presented;
    if (!wellFormed(key)) throw new Failure('invalid_api_key');
    const hash = hashApiKey(key);
    const at = now();
    const t = at.getTime();

    // One transaction from the key to the answer: one COMMIT to wait for. A refusal is returned rather than
    // thrown, so that the rate-limit hit before it is committed; the operation's own writes are undone
    // with it (tx.nested). Only a scheduled fault takes more transactions (execute). A GET writes nothing
    // but its rate-limit hit (unless it takes a fault): read-only, a hint that spares it SQLite's write
    // lock; the function may then run twice, so it acts only through `tx`.
    const outcome = await store.transaction(async (tx): Promise<Outcome> => {
      const found = await tx.findApiKeyByHash(hash);
      const org = found && !found.revokedAt ? await tx.getOrganization(found.organizationId) : undefined;
      if (!found || !org) return { refused: new Failure('invalid_api_key') };
      line.organizationId = org.id;
      line.keyId = found.id;
      const retryAfter = await countRequest(tx, found.id, op, t);
      if (retryAfter !== undefined) return { refused: new Failure('rate_limit_exceeded', undefined, { 'retry-after': String(retryAfter) }) };
      try {
        if (!org.apiAccess || !productEnabled(org, op)) throw new Failure(op.accessCode);
        const body = parseAndValidate(req, op, params, raw);
        const idempotencyKey = op.idempotencyKey ? String(req.headers['idempotency-key']) : undefined;
        const request: Request = { requestId: line.requestId, op, params, org, body, idempotencyKey, at, log: line };
        const fault = await tx.takeFault(org.id, op.operationId);
        if (fault) return { fault, request };
        return { result: await tx.nested(() => respondIn(tx, request)) };
      } catch (err) {
        if (err instanceof Failure) return { refused: err };
        throw err;
      }
    }, { readOnly: op.method === 'GET' });
    if ('refused' in outcome) throw outcome.refused;
    if ('fault' in outcome) {
      line.fault = outcome.fault.kind;
      await execute(outcome.request, outcome.fault, res);
      return;
    }
    const { status, body, text } = outcome.result;
    line.status = status;
    if (text === undefined) sendJson(res, status, body);
    else sendJsonText(res, status, text);
  }

  /** Counts the request against the key's rate limits; the seconds until the window resets when one is exceeded. */
  async function countRequest(tx: Transaction, keyId: string, op: OperationContract, t: number): Promise<number | undefined> {
    const overall = await hit(tx, `key:${keyId}`, contract.defaultRateLimit, t);
    if (overall !== undefined || !op.rateLimit) return overall;
    return hit(tx, `key:${keyId}:${op.operationId}`, op.rateLimit, t);
  }

  /** One hit on a bucket's fixed window; the seconds until the window resets when the limit is exceeded. */
  async function hit(tx: Transaction, bucket: string, { limit, windowSeconds }: RateLimit, t: number): Promise<number | undefined> {
    const windowMs = windowSeconds * 1000;
    const windowStart = t - (t % windowMs);
    if ((await tx.hitRateLimit(bucket, windowStart)) <= limit) return undefined;
    return Math.max(1, Math.ceil((windowStart + windowMs - t) / 1000));
  }

  function productEnabled(org: Organization, op: OperationContract): boolean {
    return op.product === 'Banking' ? org.banking : op.product === 'Cards' ? org.cards : org.checkout;
  }

  function parseAndValidate(req: IncomingMessage, op: OperationContract, params: Record<string, string>, raw: Buffer): Record<string, unknown> {
    for (const [name, validate] of op.pathValidators) {
      // An id that breaks the id schema names nothing: the operation's documented 404, not an undocumented 400.
      if (!validate(params[name])) throw new Failure(op.notFoundCode ?? 'invalid_request', op.notFoundCode ? undefined : `Path parameter ${name} is invalid.`);
    }
    if (op.idempotencyKey) {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string') throw new Failure('invalid_request', 'Idempotency-Key header is required.');
      if (!op.idempotencyKey(key)) throw new Failure('invalid_request', 'Idempotency-Key header is malformed.');
    }
    if (!op.validateBody) return {};
    if (!String(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
      throw new Failure('invalid_request', 'Request body must be JSON (content-type: application/json).');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new Failure('invalid_request', 'Request body is not valid JSON.');
    }
    if (!op.validateBody(body)) {
      const code = contract.bodyErrorCode(op, body, [...(op.validateBody.errors ?? [])]);
      const first = op.validateBody.errors?.[0];
      throw new Failure(code, code === 'invalid_request' && first ? `Request body ${first.instancePath || '(root)'} ${first.message ?? 'is invalid'}.` : undefined);
    }
    return body as Record<string, unknown>;
  }

  async function execute(request: Request, fault: FaultRecord | undefined, res: ServerResponse): Promise<void> {
    const { op } = request;
    switch (fault?.kind) {
      case 'provider_rate_limited':
        throw new Failure('provider_rate_limited', undefined, { 'retry-after': String(fault.retryAfterSeconds ?? 1) });
      case 'unavailable':
      case 'pending_review':
        if (op.operationId === 'createTransfer' && request.idempotencyKey) {
          await leaveUnresolved(request, fault.resolution);
          throw new Failure(fault.kind === 'pending_review' ? 'banking_transfer_attempt_pending_review' : 'temporarily_unavailable');
        }
        throw new Failure('temporarily_unavailable'); // nothing was processed
      case 'edge_502':
      case 'edge_504': {
        // The request was processed; whatever the API answered (a 201 or a 4xx) is lost at the edge.
        if (fault.commit) await respond(request).catch((err: unknown) => ignoreFailure(err));
        request.log.status = fault.kind === 'edge_502' ? 502 : 504;
        sendEdge(res, request.log.status as 502 | 504);
        return;
      }
      case 'drop_after_commit':
        await respond(request).catch((err: unknown) => ignoreFailure(err)); // the answer never leaves
        request.log.status = 0;
        res.socket?.destroy();
        return;
      default: {
        const result = await respond(request);
        request.log.status = result.status;
        sendJson(res, result.status, result.body);
      }
    }
  }

  /** A documented failure is an answer the edge swallows; anything else is a bug and still surfaces. */
  function ignoreFailure(err: unknown): void {
    if (!(err instanceof Failure)) throw err;
  }

  function respond(request: Request): Promise<OperationResult> {
    return store.transaction((tx) => respondIn(tx, request));
  }

  /** Runs the operation under its idempotency record: a replay returns the original result unchanged. */
  async function respondIn(tx: Transaction, request: Request): Promise<OperationResult> {
    const handler = handlers[request.op.operationId]!;
    const ctx = context(tx, request);
    if (!request.idempotencyKey || !handler.fingerprint) return handler.run(ctx);
    const fingerprint = handler.fingerprint(request.body);
    const existing = await tx.claimIdempotency(record(request, fingerprint, 'done', null));
    if (existing) {
      if (existing.fingerprint !== fingerprint && handler.conflictCode) throw new Failure(handler.conflictCode);
      if (existing.state === 'done') return { status: existing.status!, body: existing.body };
      return resolveAttempt(tx, ctx, existing);
    }
    const result = await handler.run(ctx); // a Failure rolls the claim back: nothing is remembered
    await tx.updateIdempotency(request.org.id, request.op.operationId, request.idempotencyKey, { state: 'done', status: result.status, body: result.body, resolution: null });
    return result;
  }

  /**
   * A temporary 503 or pending review on transfer creation: the attempt is recorded with its outcome open.
   * `resolution` (from the fault) is what the next request with the key yields; by default `pending`, and
   * `pending_review` holds the attempt until an admin resolves it.
   */
  async function leaveUnresolved(request: Request, resolution: string | null): Promise<void> {
    const fingerprint = handlers.createTransfer!.fingerprint!(request.body);
    await store.transaction(async (tx) => {
      const existing = await tx.claimIdempotency(record(request, fingerprint, 'unresolved', resolution ?? 'pending'));
      if (existing?.state === 'unresolved' && resolution) {
        await tx.updateIdempotency(request.org.id, request.op.operationId, request.idempotencyKey!, { state: 'unresolved', status: null, body: null, resolution });
      }
    });
  }

  /** The retry of an unresolved transfer attempt, per the provider's outcome table. */
  async function resolveAttempt(tx: Transaction, ctx: OperationContext, attempt: IdempotencyRecord): Promise<OperationResult> {
    if (attempt.resolution === 'pending_review') throw new Failure('banking_transfer_attempt_pending_review');
    if (!attempt.resolution || !FINAL_RESOLUTIONS.has(attempt.resolution)) throw new Failure('temporarily_unavailable');
    const recipient = await admitTransfer(ctx);
    const transfer = await insertTransfer(ctx, recipient, attempt.resolution as TransferStatus);
    const result = { status: 201, body: transferView(transfer) };
    await tx.updateIdempotency(attempt.organizationId, attempt.operationId, attempt.key, { state: 'done', status: result.status, body: result.body, resolution: null });
    return result;
  }

  function record(request: Request, fingerprint: string, state: IdempotencyRecord['state'], resolution: string | null): IdempotencyRecord {
    return {
      organizationId: request.org.id,
      operationId: request.op.operationId,
      key: request.idempotencyKey!,
      fingerprint,
      state,
      status: null,
      body: null,
      resolution,
      createdAt: isoOf(request),
    };
  }

  function context(tx: Transaction, request: Request): OperationContext {
    return new RequestContext(tx, request);
  }

  return { handle };
}
