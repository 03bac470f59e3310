// What an operation handler gets: the transaction, the caller's organization, the validated request.
import type { OperationContract } from '../contract.ts';
import type { Transaction } from '../store/types.ts';
import type { Organization } from '../records.ts';

export interface OperationContext {
  tx: Transaction;
  org: Organization;
  op: OperationContract;
  params: Record<string, string>;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** When the request arrived, as an ISO string (the same for every record the request creates). */
  readonly now: string;
  newId: (prefix: string) => string;
  /** The handler's readAhead(), when it was started beside the Idempotency-Key's read (see readAhead). */
  readAhead?: Promise<unknown> | undefined;
}

export interface OperationResult {
  status: number;
  body: unknown;
}

export interface OperationHandler {
  run(ctx: OperationContext): Promise<OperationResult>;
  /**
   * The first read `run` makes, whatever the key holds: on an engine that pipelines (PostgreSQL) it is sent
   * with the key's read, one round trip for both, and `run` finds it in ctx.readAhead. A replay never uses it.
   */
  readAhead?(ctx: OperationContext): Promise<unknown>;
  /** The request identity under one Idempotency-Key (POSTs). */
  fingerprint?(body: Record<string, unknown>): string;
  /** A key reused with another identity: a conflict code (transfers), or undefined to replay the original. */
  conflictCode?: string;
  /**
   * Operations whose attempt can stay open after a temporary 503 or while it is pending review (transfers,
   * section 3): the code answered while it is held, and how the next request with the key resolves it.
   */
  openAttempts?: {
    pendingReviewCode: string;
    resume(ctx: OperationContext, resolution: string | null): Promise<OperationResult>;
  };
}

/** Drops null/undefined fields: the spec's types are not nullable. */
export function compact<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}
