// The Idempotency-Key protocol (section 7), for any operation whose handler declares a request identity
// (`fingerprint`): the first request with a key acts and records the key with its answer in the same
// transaction, in one write (a unique row: the database decides between concurrent first requests, and the
// one that loses rolls back everything it did and is run again, then meeting the winner's record); a later
// request with the key gets that answer replayed, or the handler's conflict code when the identity
// differs; an attempt left open (an unresolved transfer) is resumed by the handler's own rules. A refusal
// writes nothing: nothing is remembered, and the key stays free.
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
    const result = await handler.openAttempts.resume(ctx, existing.resolution);
    await finish(tx, request, result);
    return result;
  }
  const result = await handler.run(ctx).catch((err: unknown) => {
    if (err instanceof Failure) refusedUnrecorded.add(err);
    throw err;
  });
  await tx.insertIdempotency({ ...record(request, fingerprint, 'done', null), status: result.status, body: result.body });
  return result;
}

/** `read`, with its failure left to whoever awaits it (a replay never does: no unhandled rejection). */
function settledLater<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/**
 * Runs `attempt` (one transaction serving the request) again when another request with its key committed
 * meanwhile; nothing of the first run was committed, and the second run reads that request's record. Seen
 * as KEY_TAKEN when the record's write met the other's, or as a refusal when the other's writes met this
 * one's first (its recipient's unique PIX key, say): a keyed request's refusal looks the key up once more.
 * Bounded: a key once committed stays, so a third run never meets a new winner.
 */
export async function onceWithKey<T>(store: Store, request: ApiRequest, attempt: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await attempt();
    } catch (err) {
      if (run >= 3 || !(await keyTakenBy(store, request, err))) throw err;
    }
  }
}

/** Refusals of a keyed request whose key had no record when it was read (see onceWithKey). */
const refusedUnrecorded = new WeakSet<Failure>();

async function keyTakenBy(store: Store, request: ApiRequest, err: unknown): Promise<boolean> {
  if (err instanceof ConstraintViolation) return err.constraint === KEY_TAKEN;
  const { org, op, idempotencyKey } = request;
  if (!(err instanceof Failure) || !refusedUnrecorded.has(err) || !idempotencyKey) return false;
  return Boolean(await store.transaction((tx) => tx.readIdempotency(org.id, op.operationId, idempotencyKey), { readOnly: true }));
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
