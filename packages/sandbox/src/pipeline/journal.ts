// The traffic journal step (issue 13, deliver 1): every API request of an organization leaves one
// JournalEntry (audit/journal.ts) in the store, written before its answer leaves, so that a harness that
// reads the journal once its client is done sees every request. A request that succeeds writes it inside
// its own data transaction (one more INSERT); a refused one, a fault, or a request whose transaction
// failed writes it in a small transaction of its own. Requests refused before the organization is known
// (no route, a body over the limit, no valid API key) belong to no organization's journal.
//
// Bounded: each organization keeps its newest `cap` entries. Every `cap / 10` entries this process writes
// for an organization, the older rows are deleted and counted (organizations.journal_dropped); reads never
// show more than `cap`, and count what they leave out as dropped, so the bound a reader sees is exact
// whenever the trim runs.
import type { OperationContract } from '../contract.ts';
import { paymentIdentity, type JournalEntry } from '../audit/journal.ts';
import { utf8Text } from '../http.ts';
import type { Store, Transaction } from '../store/types.ts';

/** Entries kept per organization unless configured (SANDBOX_JOURNAL_CAP, startSandbox({ journalCap })). */
export const DEFAULT_JOURNAL_CAP = 10_000;

/** What the journal keeps of a request (never a header but the Idempotency-Key). */
export interface JournaledRequest {
  op: OperationContract;
  at: Date;
  /** The Idempotency-Key header as received (a repeated header as Node joins it), or undefined. */
  idempotencyKey: string | string[] | undefined;
  /** The parsed body when there is one (undefined: none, or not JSON). */
  body: unknown;
}

/** What the request was answered. `status` null: no answer was sent (a dropped connection). */
export interface JournaledAnswer {
  status: number | null;
  code?: string | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  fault?: string | undefined;
}

export function journalEntry(request: JournaledRequest, answer: JournaledAnswer): JournalEntry {
  const { op, body } = request;
  const key = Array.isArray(request.idempotencyKey) ? request.idempotencyKey.join(', ') : request.idempotencyKey;
  const retryAfter = answer.headers?.['retry-after'];
  const resource = answer.status !== null && answer.status < 300 && answer.body && typeof answer.body === 'object' ? (answer.body as Record<string, unknown>) : undefined;
  const entry: JournalEntry = {
    at: request.at.getTime(),
    operationId: op.operationId,
    idempotencyKey: key ?? null,
    identity: paymentIdentity(op.operationId, body),
    status: answer.status,
    code: answer.code ?? null,
    resourceStatus: typeof resource?.status === 'string' ? resource.status : null,
    retryAfterSeconds: retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null,
    fault: answer.fault ?? null,
    answered: answer.status !== null,
  };
  // The body is kept where the audit's schema check can find something: a request the sandbox refused. One
  // it served passed the same spec schemas already, and its identity says what it paid (fewer bytes a row).
  if (op.hasBody && body !== undefined && (answer.status === null || answer.status >= 400)) entry.body = body;
  return entry;
}

/** The parsed JSON of a body that was not validated (a refused request), or undefined. */
export function parseLoosely(raw: Buffer): unknown {
  const text = raw.length ? utf8Text(raw) : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface Journal {
  readonly cap: number;
  /** Records the entry in the request's own transaction. */
  write(tx: Transaction, organizationId: string, entry: JournalEntry): Promise<void>;
  /** Records the entry in a transaction of its own (refusals, faults). */
  record(organizationId: string, entry: JournalEntry): Promise<void>;
}

export function createJournal(store: Store, cap = DEFAULT_JOURNAL_CAP): Journal {
  if (!Number.isSafeInteger(cap) || cap < 1) throw new RangeError(`the journal cap must be a positive integer, got ${cap}`);
  const trimEvery = Math.max(1, Math.ceil(cap / 10));
  const sinceTrim = new Map<string, number>();
  const write = async (tx: Transaction, organizationId: string, entry: JournalEntry) => {
    await tx.appendJournal(organizationId, entry);
    const count = (sinceTrim.get(organizationId) ?? 0) + 1;
    sinceTrim.set(organizationId, count % trimEvery);
    if (count >= trimEvery) await tx.trimJournal(organizationId, cap);
  };
  return {
    cap,
    write,
    record: (organizationId, entry) => store.transaction((tx) => write(tx, organizationId, entry)),
  };
}
