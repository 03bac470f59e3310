// What an operation handler gets: the transaction, the caller's organization, the validated request.
import type { OperationContract } from '../contract.ts';
import type { Organization, Transaction } from '../store/types.ts';

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
}

export interface OperationResult {
  status: number;
  body: unknown;
  /** `body` already serialized, when the handler keeps it (a memoized body is not serialized again). */
  text?: string;
}

export interface OperationHandler {
  run(ctx: OperationContext): Promise<OperationResult>;
  /** The request identity under one Idempotency-Key (POSTs). */
  fingerprint?(body: Record<string, unknown>): string;
  /** A key reused with another identity: a conflict code (transfers), or undefined to replay the original. */
  conflictCode?: string;
}

/** Drops null/undefined fields: the spec's types are not nullable. */
export function compact<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}
