// What happens to a request of the public API, in the order it meets each step:
//   route (from the spec; HEAD as GET) → body (size, bytes) → auth (x-api-key only, hashed) → rate limits
//   → product access → validation (the spec's schemas) → one transaction: a scheduled fault, or the
//   operation under its Idempotency-Key → the answer. Each request of a known organization leaves one
//   traffic journal entry, built by journaled() around the request and committed before its answer leaves
//   (journal.ts); its time is the organization's clock.
// Every refusal is the shared error body with a fresh requestId; no response carries CORS headers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Contract, OperationContract } from '../contract.ts';
import { databaseUnavailable, Failure } from '../failure.ts';
import { pathOf, readRequestBody, RequestAborted, sendEdge, sendJson, type LogLine, type Logger } from '../http.ts';
import { logProblem } from '../problems.ts';
import { hashApiKey, redactApiKeys, wellFormed } from '../keys.ts';
import { handlers } from '../operations/index.ts';
import type { JournalEntry } from '../audit/journal.ts';
import { UnstorableText, type Caller, type Store, type Transaction } from '../store/types.ts';
import type { FaultRecord, Organization } from '../records.ts';
import { actOut } from './faults.ts';
import { onceWithKey, respond } from './idempotency.ts';
import { createJournal, journalEntry, parseLoosely, type Journal, type JournaledAnswer, type JournaledRequest } from './journal.ts';
import { enforceRateLimits } from './rate-limit.ts';
import { requestTime, type ApiRequest } from './request.ts';
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
  /** Traffic journal entries kept per organization (default DEFAULT_JOURNAL_CAP). */
  journalCap?: number;
}

/** What every step of the pipeline reads: the store, the spec's contract, and the sandbox's settings. */
interface Pipeline {
  store: Store;
  contract: Contract;
  journal: Journal;
  bodyLimit: number;
  now: () => Date;
  log: Logger;
  admin: SandboxOptions['admin'];
}

/** What a spec operation without a handler is told: where its handler goes (npm run build checks it too). */
export const missingHandler = (operationId: string) =>
  `the sandbox has no handler for ${operationId}: write it in packages/sandbox/src/operations/<product>.ts and add it to the handlers of packages/sandbox/src/operations/index.ts (README, "Changing the contract")`;

export function createSandbox(options: SandboxOptions): {
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Waits for the journal's batches and trims under way: call it before closing the store. */
  drain: () => Promise<void>;
} {
  for (const op of options.contract.operations) {
    if (!handlers[op.operationId]) throw new Error(missingHandler(op.operationId));
  }
  const pipeline: Pipeline = {
    store: options.store,
    contract: options.contract,
    journal: createJournal(options.store, options.journalCap),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    now: options.now ?? (() => new Date()),
    log: options.logger ?? (() => {}),
    admin: options.admin,
  };
  return { handle: (req, res) => handle(pipeline, req, res), drain: () => pipeline.journal.drain() };
}

async function handle(p: Pipeline, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const path = pathOf(req.url ?? '/');
  const line: LogLine = { requestId: randomUUID(), method: req.method ?? '', path: redactApiKeys(path), status: 0, ms: 0 };
  try {
    if (p.admin && path.startsWith('/admin/')) {
      await p.admin(req, res, line.requestId);
      line.status = res.statusCode;
    } else {
      await api(p, req, res, path, line);
    }
  } catch (err) {
    answerError(p.contract, res, line, err);
  } finally {
    line.ms = Math.round((performance.now() - started) * 100) / 100;
    if (!line.status && res.headersSent) line.status = res.statusCode;
    p.log(line);
  }
}

async function api(p: Pipeline, req: IncomingMessage, res: ServerResponse, path: string, line: LogLine): Promise<void> {
  const matched = p.contract.match(req.method === 'HEAD' ? 'GET' : (req.method ?? ''), path);
  if (matched === undefined) {
    line.status = 404;
    sendJson(res, 404, { error: 'No such operation.', code: 'not_found', requestId: line.requestId });
    return;
  }
  if ('allow' in matched) {
    // A path of the spec with another method (OPTIONS preflights included): no CORS, the error body, and
    // the Allow header HTTP requires of a 405 (RFC 9110, 15.5.6).
    line.status = 405;
    sendJson(res, 405, { error: 'Method not allowed.', code: 'method_not_allowed', requestId: line.requestId }, { allow: matched.allow.join(', ') });
    return;
  }
  const { op, params } = matched;
  line.operationId = op.operationId;
  const raw = await readRequestBody(req, res, op, p.bodyLimit);
  const caller = await authenticate(p, req, op);
  line.organizationId = caller.organization.id;
  line.keyId = caller.key.id;
  const request: JournaledRequest = { op, at: requestTime(caller.organization, p.now), idempotencyKey: req.headers['idempotency-key'], body: undefined };
  const outcome = await journaled(p, caller.organization.id, request, raw, res, line, (served) => run(p, req, params, raw, caller, request, line, served));
  if ('result' in outcome) {
    line.status = outcome.result.status;
    const code = refusalCode(outcome.result);
    if (code) line.code = code;
    sendJson(res, outcome.result.status, outcome.result.body);
  } else if (outcome.edge) {
    sendEdge(res, outcome.edge);
  } else {
    res.socket?.destroy(); // the answer never leaves
  }
}

/** How a request of a known organization ended, but for a refusal (thrown): served, or a fault's edge answer (null: none). */
type Outcome = { result: OperationResult } | { edge: 502 | 504 | null };

/** Journals a served request's entry in its transaction, once it has its result. */
type JournalServed = (tx: Transaction, result: OperationResult) => Promise<void>;

/**
 * The journal step around a request of a known organization: the one place an entry is built, from how the
 * request ended, and handed to the journal, committed before the answer leaves. A served request's entry is
 * written in its own transaction (`served`, called by serve()); any other ending (an edge answer, no answer,
 * a refusal, a fault's error answer, a bug) in the turn's batch. A batch that fails is reported on stderr,
 * and the answer still leaves: the journal records the traffic, it does not decide it.
 */
async function journaled(p: Pipeline, organizationId: string, request: JournaledRequest, raw: Buffer, res: ServerResponse, line: LogLine, work: (served: JournalServed) => Promise<Outcome>): Promise<Outcome> {
  const entryOf = (answer: JournaledAnswer) => journalEntry(request, { ...answer, fault: line.fault });
  const committed = (entry: JournalEntry) =>
    p.journal.commit(organizationId, entry).catch((failure: unknown) => {
      logProblem('the journal entry of the request was not recorded', { requestId: line.requestId, error: String(failure) });
    });
  let outcome: Outcome;
  try {
    outcome = await work((tx, result) => p.journal.inTransaction(tx, organizationId, entryOf({ status: res.destroyed ? null : result.status, code: refusalCode(result), body: result.body })));
  } catch (err) {
    request.body ??= parseLoosely(raw);
    await committed(entryOf(errorAnswer(p.contract, err)));
    throw err; // handle() answers it
  }
  if ('edge' in outcome) await committed(entryOf({ status: outcome.edge }));
  return outcome;
}

/** Rate limits, product access and validation, then the request served. */
async function run(p: Pipeline, req: IncomingMessage, params: Record<string, string>, raw: Buffer, caller: Caller, request: JournaledRequest, line: LogLine, served: JournalServed): Promise<Outcome> {
  const { key, organization: org, faultPending } = caller;
  const { op, at } = request;
  await enforceRateLimits(p.store, p.contract, key.id, op, at.getTime());
  if (!org.apiAccess || !productEnabled(org, op)) throw new Failure(op.accessCode);
  const body = (request.body = validateRequest(p.contract, req, op, params, raw));
  const idempotencyKey = op.idempotencyKey ? String(req.headers['idempotency-key']) : undefined;
  return serve(p, { op, handler: handlers[op.operationId]!, params, org, body, idempotencyKey, at, log: line }, faultPending, served);
}

/** One transaction: a scheduled fault, or the operation under its key with its journal entry. */
async function serve(p: Pipeline, request: ApiRequest, faultPending: boolean, served: JournalServed): Promise<Outcome> {
  const { org, op } = request;
  const answerOf = (failure: Failure): OperationResult => ({ status: p.contract.error(failure.code).status, body: errorBody(p.contract, failure, request.log.requestId) });
  const outcome = await onceWithKey(p.store, request, answerOf, () =>
    p.store.transaction(
      async (tx): Promise<{ fault: FaultRecord } | { result: OperationResult }> => {
        const fault = faultPending ? await tx.takeFault(org.id, op.operationId) : undefined;
        if (fault) return { fault };
        const result = await respond(tx, request);
        await served(tx, result);
        return { result };
      },
      { readOnly: op.method === 'GET' },
    ),
  );
  if ('fault' in outcome) return { edge: await actOut(p.store, request, outcome.fault) }; // an error answer is thrown
  return outcome;
}

/** The caller of a well-formed, known, unrevoked key in `x-api-key` (the only header read). */
async function authenticate(p: Pipeline, req: IncomingMessage, op: OperationContract): Promise<Caller> {
  const presented = req.headers[p.contract.apiKeyHeader];
  const key = Array.isArray(presented) ? undefined : presented;
  if (!wellFormed(key)) throw new Failure('invalid_api_key');
  const caller = await p.store.findCaller(hashApiKey(key), op.operationId);
  if (!caller || caller.key.revokedAt) throw new Failure('invalid_api_key');
  return caller;
}

/** The documented failure an error is answered as: a Failure, text no store keeps (400), or a database that cannot be reached (503). */
const asFailure = (err: unknown): Failure | undefined =>
  err instanceof Failure ? err : err instanceof UnstorableText ? new Failure('invalid_request', err.message) : databaseUnavailable(err);

/** What an error is answered: a Failure its catalog status and code; anything else (a bug) a 500. */
function errorAnswer(contract: Contract, err: unknown): { status: number; code: string; headers?: Record<string, string> | undefined } {
  const failure = asFailure(err);
  if (failure) return { status: contract.error(failure.code).status, code: failure.code, headers: failure.headers };
  return { status: 500, code: 'internal_error' };
}

function answerError(contract: Contract, res: ServerResponse, line: LogLine, err: unknown): void {
  if (err instanceof RequestAborted) {
    line.code = 'request_aborted'; // logged without a status: nothing was answered
    return;
  }
  const failure = asFailure(err);
  const { status, code, headers } = errorAnswer(contract, failure ?? err);
  line.status = status;
  line.code = code;
  if (failure) {
    if (failure !== err && !(err instanceof UnstorableText)) logProblem(`answered ${status}: the database cannot be reached`, { requestId: line.requestId, error: String(err) });
    sendJson(res, status, errorBody(contract, failure, line.requestId), headers);
    return;
  }
  // A bug, not a contract outcome: the shared body, never a stack trace, and a 500 the spec does not
  // document, so that a contract test flags it. Answering the documented (retryable) 503 would hide the
  // bug from the kit and have clients retry it forever.
  logProblem('unexpected error (a bug in the sandbox)', { requestId: line.requestId, error: err });
  sendJson(res, status, { error: 'Internal error in the sandbox (a bug: please report it with the requestId).', code, requestId: line.requestId });
}

/** The shared error body of a documented failure (also what an Idempotency-Key keeps of a refusal, idempotency.ts). */
function errorBody(contract: Contract, failure: Failure, requestId: string): { error: string; code: string; requestId: string } {
  return { error: failure.detail ?? contract.error(failure.code).meaning, code: failure.code, requestId };
}

/** The code of a served result that is a refusal (one an Idempotency-Key replays), else undefined. */
function refusalCode(result: OperationResult): string | undefined {
  const code = result.status >= 400 ? (result.body as { code?: unknown } | null)?.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function productEnabled(org: Organization, op: OperationContract): boolean {
  return op.product === 'Banking' ? org.banking : op.product === 'Cards' ? org.cards : org.checkout;
}
