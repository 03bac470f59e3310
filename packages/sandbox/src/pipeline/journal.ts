// The traffic journal step (issue 13, deliver 1; issue 25, deliver 2): every API request of an
// organization leaves one JournalEntry (audit/journal.ts) in the store, committed before its answer leaves,
// so that a harness that reads the journal once its client is done sees every answered request. The
// pipeline builds the entry in one place (pipeline.ts, journaled()) from how the request ended, and hands it
// to this writer:
// - a served request's entry is one more row in its own transaction: on PostgreSQL it is sent with the
//   COMMIT (pipelined, no round trip of its own), a GET's with the turn's other GETs' in one INSERT; on
//   SQLite it shares the turn's group commit. A row there costs no transaction of its own;
// - the others (a refusal, a fault's answer, an edge answer, a dropped connection) have no transaction:
//   those of one event-loop turn are written together in one, and each answer waits for that COMMIT only.
// Requests refused before the organization is known (no route, a body over the limit, no valid API key)
// belong to no organization's journal.
//
// Bounded: each organization keeps its newest `cap` entries. Every `cap / 10` entries this process writes
// for an organization, the older rows are deleted and counted (organizations.journal_dropped) in one
// transaction that no answer waits for; reads never show more than `cap`, and count what they leave out as
// dropped, so the bound a reader sees is exact whenever the trim runs.
import type { OperationContract } from '../contract.ts';
import { nestedTooDeep } from '@payments/spec/json-depth';
import { paymentIdentity, type JournalEntry } from '../audit/journal.ts';
import { utf8Text } from '../http.ts';
import { logProblem } from '../problems.ts';
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
  if (text === undefined || nestedTooDeep(text)) return undefined; // too deep for the entry's canonical form
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface Journal {
  readonly cap: number;
  /** Appends a served request's entry in the request's own transaction (it commits, or rolls back, with it). */
  inTransaction(tx: Transaction, organizationId: string, entry: JournalEntry): Promise<void>;
  /** Appends the entry with the others of this event-loop turn, in one transaction; resolves once it is committed. */
  commit(organizationId: string, entry: JournalEntry): Promise<void>;
  /** Resolves once every batch and trim started so far has ended (before the store closes). */
  drain(): Promise<void>;
}

/** An entry waiting for its turn's batch. */
interface Queued {
  organizationId: string;
  entry: JournalEntry;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * The journal's one writer. Entries of a turn that have no transaction of their own (refusals, faults, edge
 * answers, dropped connections) go to the store together once the turn's I/O callbacks have run
 * (setImmediate), in one transaction: each waits only for that COMMIT. A trim is due every `cap / 10`
 * entries of an organization; it runs in a transaction of its own that no request waits for.
 */
export function createJournal(store: Store, cap = DEFAULT_JOURNAL_CAP): Journal {
  if (!Number.isSafeInteger(cap) || cap < 1) throw new RangeError(`the journal cap must be a positive integer, got ${cap}`);
  const trimEvery = Math.max(1, Math.ceil(cap / 10));
  const sinceTrim = new Map<string, number>();
  const trimDue = new Set<string>();
  const running = new Set<Promise<unknown>>();
  let queue: Queued[] = [];
  let scheduled = false;

  const track = (work: Promise<unknown>) => {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    running.add(settled);
    void settled.then(() => running.delete(settled));
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  const counted = (organizationId: string) => {
    const count = (sinceTrim.get(organizationId) ?? 0) + 1;
    sinceTrim.set(organizationId, count % trimEvery);
    if (count < trimEvery) return;
    trimDue.add(organizationId);
    schedule();
  };
  function flush(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length) track(writeBatch(batch));
    if (trimDue.size) track(trim([...trimDue]));
    trimDue.clear();
  }
  async function writeBatch(batch: Queued[]): Promise<void> {
    try {
      // Single-row writes only (readOnly): PostgreSQL sends the turn's rows as one INSERT, without BEGIN and
      // COMMIT (the rows are one statement, all or none), so they are all asked for before any is awaited;
      // SQLite adds them, in order, to the turn's group commit.
      await store.transaction((tx) => Promise.all(batch.map((queued) => tx.appendJournal(queued.organizationId, queued.entry))), { readOnly: true });
    } catch (err) {
      for (const queued of batch) queued.reject(err);
      return;
    }
    for (const queued of batch) {
      counted(queued.organizationId);
      queued.resolve();
    }
  }
  async function trim(organizations: string[]): Promise<void> {
    await store
      .transaction(async (tx) => {
        for (const organizationId of organizations) await tx.trimJournal(organizationId, cap);
      })
      .catch((err: unknown) => logProblem(`the journal trim of ${organizations.join(', ')} failed (the next one retries it)`, { error: String(err) }));
  }

  return {
    cap,
    async inTransaction(tx, organizationId, entry) {
      await tx.appendJournal(organizationId, entry);
      counted(organizationId);
    },
    commit(organizationId, entry) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ organizationId, entry, resolve, reject });
        schedule();
      });
    },
    async drain() {
      for (let round = 0; round < 100 && (scheduled || running.size); round++) {
        if (scheduled) await new Promise((resolve) => setImmediate(resolve));
        await Promise.all(running);
      }
    },
  };
}
