// A public API request once it has passed the HTTP edge, auth and validation: what every later step reads.
import type { OperationContract } from '../contract.ts';
import type { LogLine } from '../http.ts';
import { newId, perMillisecond } from '../ids.ts';
import type { OperationContext, OperationHandler } from '../operations/context.ts';
import type { Transaction } from '../store/types.ts';
import type { Organization } from '../records.ts';

export interface ApiRequest {
  op: OperationContract;
  handler: OperationHandler;
  params: Record<string, string>;
  org: Organization;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** The request's clock reading: every record it creates carries it. */
  at: Date;
  log: LogLine;
}

const isoTime = perMillisecond((ms) => new Date(ms).toISOString());

/** What a handler sees of its request, in one transaction. */
export function operationContext(tx: Transaction, request: ApiRequest): OperationContext {
  return {
    tx,
    org: request.org,
    op: request.op,
    params: request.params,
    body: request.body,
    idempotencyKey: request.idempotencyKey,
    now: isoTime(request.at.getTime()),
    newId,
  };
}

/** The request's time: the organization's test clock when one is frozen (issue 13, deliver 2), else `now()`. */
export function requestTime(org: { clockMs?: number | null | undefined }, now: () => Date): Date {
  return org.clockMs === null || org.clockMs === undefined ? now() : new Date(org.clockMs);
}
