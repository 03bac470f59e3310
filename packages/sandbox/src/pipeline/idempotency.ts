// The Idempotency-Key protocol (section 7), for any operation whose handler declares a request identity
// (`fingerprint`): the first request with a key acts and records the key with its answer in the same
// transaction, in one write (a unique row: the database decides between concurrent first requests, and the
// one that loses rolls back everything it did and is run again, then meeting the winner's record); a later
// request with the key gets that answer replayed, or the handler's conflict code when the identity
// differs; an attempt left open (an unresolved transfer) is resumed by the handler's own rules.
// A refusal the operation itself decides (a 403/404/409/422 of its handler: recipient_not_found,
// pix_quote_rejected …) is the key's result too (section 7, rule 3: "returns the original result and does not
// repeat the action"): it is recorded, once its transaction has rolled back, and replayed; an open attempt it
// answers is closed. Not recorded: what the pipeline refuses before the operation runs (auth, rate limits,
// product access, the spec's schemas), a 400 (a malformed request, sent again corrected), a 5xx (a client
// keeps its key through those, rule 8), and the attempt pending review (answered while it holds).
import { Failure } from '../failure.ts';
import type { OperationResult } from '../operations/context.ts';
import { ConstraintViolation, KEY_TAKEN, type Store, type Transaction } from '../store/types.ts';
import type { IdempotencyRecord } from '../records.ts';
import { operationContext, type ApiRequest } from './request.ts';

/** Runs the request's operation under its key: a replay returns the original result unchanged. */
export async function respond(tx: Transaction, request: ApiRequest): Promise<OperationResult> {
  const { handler } = request;
  const ctx = operationContext(tx, request);
  if (!request.idempotencyKey || !handler.fingerprint) return handler.run(ctx);
  const fingerprint = handler.fingerprint(request.body);
  const keyRead = tx.readIdempotency(request.org.id, request.op.operationId, request.idempotencyKey);
  if (handler.readAhead && tx.pipelined) ctx.readAhead = settledLater(handler.readAhead(ctx));
  const existing = await keyRead;
  if (existing) {
    if (existing.fingerprint !== fingerprint && handler.conflictCode) throw new Failure(handler.conflictCode);
    if (existing.state === 'done') return { status: existing.status!, body: existing.body };
    if (!handler.openAttempts) throw new Error(`${request.op.operationId} has an unresolved attempt but no rules to resume it`);
    const result = await handler.openAttempts.resume(ctx, existing.resolution).catch(noted('open'));
    await finish(tx, request, result);
    return result;
  }
  const result = await handler.run(ctx).catch(noted('first'));
  await tx.insertIdempotency({ ...record(request, fingerprint, 'done', null), status: result.status, body: result.body });
  return result;
}

/** Refusals of a keyed request's operation: on its first run (no record), or resuming its open attempt. */
const refusals = new WeakMap<Failure, 'first' | 'open'>();
const noted = (when: 'first' | 'open') => (err: unknown) => {
  if (err instanceof Failure) refusals.set(err, when);
  throw err;
};

/** `read`, with its failure left to whoever awaits it (a replay never does: no unhandled rejection). */
function settledLater<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** How the pipeline answers a refusal: the status and the body it sends (the one a replay sends again). */
export type AnswerOf = (failure: Failure) => OperationResult;

/**
 * Runs `attempt` (one transaction serving the request) again when another request with its key committed
 * meanwhile; nothing of the first run was committed, and the second run reads that request's record. Seen
 * as KEY_TAKEN when the record's write met the other's, or as a refusal when the other's writes met this
 * one's first (its recipient's unique PIX key, say). A refusal to keep is recorded here, after the rollback
 * (a record the other request wrote first wins, and the next run replays it). Bounded: a key once
 * committed stays, so a third run never meets a new winner.
 */
export async function onceWithKey<T>(store: Store, request: ApiRequest, answerOf: AnswerOf, attempt: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (err) {
      if (run >= 3 || !(await keyTakenBy(store, request, answerOf, err))) throw err;
    }
  }
}

/** Whether another request's record of the key is why `err` happened; records `err` when it is the key's result. */
async function keyTakenBy(store: Store, request: ApiRequest, answerOf: AnswerOf, err: unknown): Promise<boolean> {
  if (err instanceof ConstraintViolation) return err.constraint === KEY_TAKEN;
  const when = err instanceof Failure ? refusals.get(err) : undefined;
  if (!when || !request.idempotencyKey) return false;
  const answer = answerOf(err as Failure);
  const { org, op, idempotencyKey } = request;
  if (!keptAsResult(request, err as Failure, answer)) {
    return when === 'first' && Boolean(await store.transaction((tx) => tx.readIdempotency(org.id, op.operationId, idempotencyKey), { readOnly: true }));
  }
  return !(await recordRefusal(store, request, when, answer));
}

/** Whether the operation's refusal is the key's result (see the top of this file). */
function keptAsResult(request: ApiRequest, failure: Failure, answer: OperationResult): boolean {
  return answer.status > 400 && answer.status < 500 && failure.code !== request.handler.openAttempts?.pendingReviewCode;
}

/** Records the refusal as the key's result (an open attempt: closed by it); false when another request's record came first. */
async function recordRefusal(store: Store, request: ApiRequest, when: 'first' | 'open', answer: OperationResult): Promise<boolean> {
  const { org, op, idempotencyKey } = request;
  try {
    return await store.transaction(async (tx) => {
      if (when === 'first') {
        await tx.insertIdempotency({ ...record(request, request.handler.fingerprint!(request.body), 'done', null), status: answer.status, body: answer.body });
        return true;
      }
      const current = await tx.findIdempotency(org.id, op.operationId, idempotencyKey!);
      if (current?.state !== 'unresolved') return false; // another retry resolved it meanwhile
      await finish(tx, request, answer);
      return true;
    });
  } catch (err) {
    if (err instanceof ConstraintViolation && err.constraint === KEY_TAKEN) return false;
    throw err;
  }
}

/**
 * Leaves the request's attempt open under its key: the next request with the key meets `resolution`
 * (default `pending`; an attempt already open keeps its own unless one is given).
 */
export async function leaveOpen(store: Store, request: ApiRequest, resolution: string | null): Promise<void> {
  const fingerprint = request.handler.fingerprint!(request.body);
  await store.transaction(async (tx) => {
    const existing = await tx.claimIdempotency(record(request, fingerprint, 'unresolved', resolution ?? 'pending'));
    if (existing?.state === 'unresolved' && resolution) {
      await tx.updateIdempotency(existing.organizationId, existing.operationId, existing.key, { state: 'unresolved', status: null, body: null, resolution });
    }
  });
}

function finish(tx: Transaction, request: ApiRequest, result: OperationResult): Promise<void> {
  return tx.updateIdempotency(request.org.id, request.op.operationId, request.idempotencyKey!, { state: 'done', status: result.status, body: result.body, resolution: null });
}

function record(request: ApiRequest, fingerprint: string, state: IdempotencyRecord['state'], resolution: string | null): IdempotencyRecord {
  return {
    organizationId: request.org.id,
    operationId: request.op.operationId,
    key: request.idempotencyKey!,
    fingerprint,
    state,
    status: null,
    body: null,
    resolution,
    createdAt: request.at.toISOString(),
  };
}
