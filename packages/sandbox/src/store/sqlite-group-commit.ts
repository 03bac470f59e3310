// How the embedded store's logical transactions share its one SQLite connection: they take turns (one
// queue), and those of one event-loop turn share one SQLite transaction (group commit). The first of a batch
// takes the write lock (BEGIN IMMEDIATE, waited for asynchronously); each runs in its own SAVEPOINT, rolled
// back alone when it throws; the batch COMMITs once the turn's transactions are done, and only then does any
// of them return: what a request acknowledges is in the WAL (it survives a crash of the process; with
// synchronous=NORMAL a power loss may undo the last commits, never corrupt them).
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallerCache } from './caller-cache.ts';
import type { Row } from './rows.ts';
import { runTransaction, type Dialect, type Engine } from './sql-transaction.ts';
import type { Transaction } from './types.ts';

/** Logical transactions per COMMIT at most, so a steady stream of requests still commits regularly. */
const MAX_BATCH = 256;
/** How long the store waits for a lock another process holds before failing. */
const BUSY_TIMEOUT_MS = 10_000;

/** One SQLite transaction shared by the logical transactions of a turn; none returns before `committed`. */
interface Batch {
  members: number;
  commitQueued: boolean;
  /** Set when SQLite itself rolled the whole transaction back under a member: every member fails. */
  lost?: unknown;
  committed: Promise<void>;
  settle(err?: unknown): void;
}

/**
 * Runs `step` until no other connection's lock is in the way, pausing asynchronously, up to BUSY_TIMEOUT_MS.
 * Where waiting could deadlock (switching to WAL a file another process writes), SQLite answers "database
 * is locked" at once, without its busy handler: a retry after a pause is what works.
 */
export async function whenUnlocked<T>(step: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    try {
      return step();
    } catch (err) {
      const code = (err as { errcode?: number } | null)?.errcode ?? 0;
      if ((code & 0xff) !== 5 || Date.now() >= deadline) throw err; // not SQLITE_BUSY (or one of its extended codes)
      await sleep(pause);
    }
  }
}

export interface GroupCommitOptions {
  db: DatabaseSync;
  prepare(sql: string): StatementSync;
  dialect: Dialect;
  /** Told of each BEGIN IMMEDIATE (no other connection commits while it holds) and each rollback (it may hold rows taken back). */
  callers: Pick<CallerCache, 'noticeOtherWriters' | 'clear'>;
}

export class GroupCommit {
  /** Logical transactions (and commits) run one at a time: each waits for the previous one's turn to end. */
  private tail: Promise<unknown> = Promise.resolve();
  private batch: Batch | undefined;
  private readonly options: GroupCommitOptions;
  private readonly engine: Engine;

  constructor(options: GroupCommitOptions) {
    this.options = options;
    this.engine = { ...options.dialect, sql: async (text, values = []) => options.prepare(text).all(...(values as SQLInputValue[])) as Row[] };
  }

  /** Runs `fn` in the current batch, in a savepoint unless `readOnly` (Store.transaction); settles after the COMMIT. */
  async run<T>(fn: (tx: Transaction) => Promise<T>, readOnly: boolean): Promise<T> {
    const { b, ok, value } = await this.exclusive(() => this.runInBatch(fn, readOnly));
    await b.committed;
    if (!ok) throw value;
    return value as T;
  }

  /** BEGIN IMMEDIATE, retried asynchronously while another connection holds the write lock. */
  async begin(): Promise<void> {
    await whenUnlocked(() => this.exec('BEGIN IMMEDIATE'));
    this.options.callers.noticeOtherWriters();
  }

  /** Waits for every queued turn, then commits the batch still open. */
  async drain(): Promise<void> {
    await this.tail;
    if (this.batch) this.commit(this.batch);
  }

  /** Runs `step` in the queue's next turn, alone (no batch is open while it runs). */
  exclusive<T>(step: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(step);
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  private async join(): Promise<Batch> {
    if (this.batch && this.batch.members < MAX_BATCH) return this.batch;
    if (this.batch) this.commit(this.batch); // a full batch commits now (we hold the queue's turn), and a new one starts
    await this.begin();
    let settle!: Batch['settle'];
    const committed = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
    committed.catch(() => undefined); // members observe it; an unobserved rejection must not end the process
    return (this.batch = { members: 0, commitQueued: false, committed, settle });
  }

  /** Ends the batch: COMMIT, or ROLLBACK when it was lost or the COMMIT fails; then its members return. */
  private commit(b: Batch): void {
    if (this.batch !== b) return;
    this.batch = undefined;
    let failure = b.lost;
    if (failure === undefined) {
      try {
        this.exec('COMMIT');
      } catch (err) {
        failure = err;
      }
    }
    if (failure !== undefined && this.options.db.isTransaction) this.options.db.exec('ROLLBACK');
    if (failure !== undefined) this.options.callers.clear();
    b.settle(failure);
  }

  /** The batch commits after this turn's I/O callbacks: the transactions they start join it first. */
  private queueCommit(b: Batch): void {
    if (b.commitQueued) return;
    b.commitQueued = true;
    setImmediate(() => void this.exclusive(async () => this.commit(b)));
  }

  private exec(sql: string): void {
    this.options.prepare(sql).run();
  }

  private async runInBatch(fn: (tx: Transaction) => Promise<unknown>, readOnly: boolean): Promise<{ b: Batch; ok: boolean; value: unknown }> {
    const b = await this.join();
    b.members++;
    if (!readOnly) this.exec('SAVEPOINT logical');
    try {
      const value = await runTransaction(fn, this.engine);
      if (!readOnly) this.exec('RELEASE logical');
      return { b, ok: true, value };
    } catch (err) {
      this.options.callers.clear();
      if (!this.options.db.isTransaction) {
        b.lost = err; // SQLite rolled the batch back (e.g. disk full): the others' work is gone too
      } else if (!readOnly) {
        this.exec('ROLLBACK TO logical');
        this.exec('RELEASE logical');
      }
      return { b, ok: false, value: err };
    } finally {
      this.queueCommit(b);
    }
  }
}
