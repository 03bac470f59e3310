// The Idempotency-Key protocol (section 7), for any operation whose handler declares a request identity
// (`fingerprint`): the first request with a key claims it (a unique row: the database decides between
// concurrent claims), acts, and records its answer in the same transaction; a later request with the key
// gets that answer replayed, or the handler's conflict code when the identity differs; an attempt left
// open (an unresolved transfer) is resumed by the handler's own rules. A refusal rolls the claim back with
// everything else: nothing is remembered, and the key stays free.
import { Failure } from '../failure.ts';
import type { OperationResult } from '../operations/context.ts';
import type { IdempotencyRecord, Store, Transaction } from '../store/types.ts';
import { operationContext, type ApiRequest } from './request.ts';

/** Runs the request's operation under its key: a replay returns the original result unchanged. */
export async function respond(tx: Transaction, request: ApiRequest): Promise<OperationResult> {
  const { handler } = request;
  const ctx = operationContext(tx, request);
  if (!request.idempotencyKey || !handler.fingerprint) return handler.run(ctx);
  const fingerprint = handler.fingerprint(request.body);
  const existing = await tx.claimIdempotency(record(request, fingerprint, 'done', null));
  if (existing) {
    if (existing.fingerprint !== fingerprint && handler.conflictCode) throw new Failure(handler.conflictCode);
    if (existing.state === 'done') return { status: existing.status!, body: existing.body };
    if (!handler.openAttempts) throw new Error(`${request.op.operationId} has an unresolved attempt but no rules to resume it`);
    const result = await handler.openAttempts.resume(ctx, existing.resolution);
    await finish(tx, request, result);
    return result;
  }
  const result = await handler.run(ctx);
  await finish(tx, request, result);
  return result;
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
