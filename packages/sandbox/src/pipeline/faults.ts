// Acting out a fault scheduled through the admin API, in place of the request's normal answer. Each kind is
// an answer the operation documents (the admin API refuses the others): a temporary 503 (on an operation
// whose attempts can stay open, the attempt is left unresolved for the retry to resolve), pending review,
// the card provider's rate limit with Retry-After, the edge's 502/504 without a body (after processing
// the request or not), or a connection cut after the commit. What is answered is thrown (a Failure) or
// returned (the edge's status; null: no answer at all), so the pipeline journals it before it leaves.
import { Failure } from '../failure.ts';
import type { Store } from '../store/types.ts';
import type { FaultRecord } from '../records.ts';
import { leaveOpen, respond } from './idempotency.ts';
import type { ApiRequest } from './request.ts';

export async function actOut(store: Store, request: ApiRequest, fault: FaultRecord): Promise<502 | 504 | null> {
  request.log.fault = fault.kind;
  switch (fault.kind) {
    case 'provider_rate_limited':
      throw new Failure('provider_rate_limited', undefined, { 'retry-after': String(fault.retryAfterSeconds ?? 1) });
    case 'unavailable':
    case 'pending_review': {
      const attempts = request.handler.openAttempts;
      if (!attempts || !request.idempotencyKey) throw new Failure('temporarily_unavailable'); // nothing was processed
      await leaveOpen(store, request, fault.resolution);
      throw new Failure(fault.kind === 'pending_review' ? attempts.pendingReviewCode : 'temporarily_unavailable');
    }
    case 'edge_502':
    case 'edge_504': {
      // The request was processed or not; whatever the API answered (a 201 or a 4xx) is lost at the edge.
      if (fault.commit) await processIgnoringRefusals(store, request);
      const status = fault.kind === 'edge_502' ? 502 : 504;
      request.log.status = status;
      return status;
    }
    case 'drop_after_commit':
      await processIgnoringRefusals(store, request); // the answer never leaves
      request.log.status = 0;
      return null;
  }
}

/** Processes the request whose answer will be lost: a documented refusal is such an answer; anything else is a bug and still surfaces. */
async function processIgnoringRefusals(store: Store, request: ApiRequest): Promise<void> {
  try {
    await store.transaction((tx) => respond(tx, request));
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
  }
}
