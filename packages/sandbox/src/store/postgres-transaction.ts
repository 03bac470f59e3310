// One transaction() of the PostgreSQL store on a pooled connection, sending as few statements as its work
// allows. Plain reads go out as they come, outside any transaction block: at READ COMMITTED each statement
// sees what was committed before it, inside a block or not, and a plain SELECT takes no row lock. BEGIN goes
// out before the first statement that writes or locks. The writes `work` sends without waiting (Send) wait
// for its end; then, if no BEGIN was needed, they are one statement (writable CTEs, each table written once),
// committed by PostgreSQL as it ends: atomic, durable when answered. Otherwise they go with COMMIT.
// A POST transfer: its key and recipient reads, then one statement of four writes, where it was BEGIN, the
// reads, four writes and COMMIT (node-postgres alone with those: +21–36% transactions/s, −27% of its CPU
// and −22% of PostgreSQL's per transaction).
import type { Socket } from 'node:net';
import type { PoolClient } from 'pg';
import type { Row, SqlValue } from './rows.ts';
import type { Send, Sql } from './sql-transaction.ts';

/** A statement that neither writes nor locks: one that may run before BEGIN. */
const PLAIN_READ = /^\s*SELECT\b(?![\s\S]*\bFOR\s+(UPDATE|SHARE|NO\s+KEY|KEY)\b)/i;
const WRITTEN_TABLE = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i;

/** Holds a connection's writes until this stretch of code and microtasks ends: a round trip's statements leave in one socket write. */
export function corkUntilNextTick(client: PoolClient): void {
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  if (!stream.writableCorked) (stream.cork(), process.nextTick(() => stream.uncork()));
}

type Run = (client: PoolClient, text: string, values?: readonly SqlValue[]) => Promise<Row[]>;
interface Deferred {
  text: string;
  values: readonly SqlValue[];
  translate: ((err: unknown) => unknown) | undefined;
}

/**
 * The deferred writes as one statement, when each writes a table none of the others writes (a row changed
 * twice in one statement keeps one change, unpredictably), with their parameters renumbered in order. A
 * request's writes are combined in the order it sent them, the same on every instance.
 */
export function combineWrites(writes: readonly Deferred[]): { text: string; values: SqlValue[] } | undefined {
  const tables = writes.map((w) => WRITTEN_TABLE.exec(w.text)?.[1]);
  if (writes.length === 0 || tables.some((t) => t === undefined) || new Set(tables).size !== tables.length) return undefined;
  const values: SqlValue[] = [];
  const texts = writes.map((w) => {
    const offset = values.length;
    values.push(...w.values);
    return w.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
  });
  const last = texts.pop()!;
  return { text: texts.length ? `WITH ${texts.map((t, i) => `w${i} AS (${t})`).join(', ')} ${last}` : last, values };
}

/** A failure of the combined statement as its table's write would have been translated (a unique index's refusal). */
function translatedByTable(err: unknown, writes: readonly Deferred[]): unknown {
  const table = (err as { table?: string } | null)?.table;
  const write = writes.find((w) => WRITTEN_TABLE.exec(w.text)?.[1] === table);
  return write?.translate ? write.translate(err) : err;
}

export type Outcome<T> = { result: T } | { failure: unknown; reusable: boolean };

/** One transaction's statements on its connection: its reads as they come, BEGIN when needed, its writes at the end. */
class ConnectionWork {
  private begun = false;
  private deferred: Deferred[] = [];
  /** BEGIN and the writes: a failure of one fails the transaction. */
  private readonly sent: Promise<unknown>[] = [];
  private readonly reads: Promise<unknown>[] = [];
  private readonly client: PoolClient;
  private readonly run: Run;

  constructor(client: PoolClient, run: Run) {
    this.client = client;
    this.run = run;
  }

  readonly sql: Sql = (text, values) => {
    if (this.deferred.length || !PLAIN_READ.test(text)) this.open();
    return track(this.run(this.client, text, values), this.reads);
  };

  readonly send: Send = (text, values, translate) => void this.deferred.push({ text, values, translate });

  /** BEGIN (once), then the writes deferred so far: what precedes a statement that writes or locks, and COMMIT. */
  open(): void {
    corkUntilNextTick(this.client);
    if (!this.begun) track(this.client.query('BEGIN'), this.sent);
    this.begun = true;
    for (const w of this.deferred) track(this.run(this.client, w.text, w.values).catch((err: unknown) => Promise.reject(w.translate ? w.translate(err) : err)), this.sent);
    this.deferred = [];
  }

  /** `work` threw: its writes are dropped, an open block rolled back; the first failure of BEGIN or a write, else `err`. */
  async abort(err: unknown): Promise<Outcome<never>> {
    const reusable = !this.begun || (await this.client.query('ROLLBACK').then(() => true, () => false));
    return { failure: (await this.firstFailure()) ?? err, reusable };
  }

  /** `work` resolved: its writes as one statement when no block was opened and they can be, else with COMMIT. */
  async commit<T>(result: T): Promise<Outcome<T>> {
    const combined = this.begun ? undefined : combineWrites(this.deferred);
    if (combined || (!this.begun && this.deferred.length === 0)) {
      const failure = combined ? await this.run(this.client, combined.text, combined.values).then(() => undefined, (err: unknown) => translatedByTable(err, this.deferred)) : undefined;
      await this.firstFailure(); // the reads left unread (a read-ahead a replay does not use) have answered
      return failure === undefined ? { result } : { failure, reusable: true };
    }
    this.open(); // corked: the writes leave with COMMIT
    const commit = this.client.query('COMMIT');
    const failure = await this.firstFailure();
    const committed = await commit.then((answer) => ({ command: answer.command }), (err: unknown) => ({ err }));
    if ('err' in committed) return { failure: failure ?? committed.err, reusable: false };
    if (failure !== undefined) return { failure, reusable: true };
    // COMMIT of a transaction that an error aborted (and `work` caught) is a silent ROLLBACK.
    if (committed.command === 'ROLLBACK') return { failure: new Error('the transaction was rolled back: a statement in it failed (its error was caught inside the transaction)'), reusable: true };
    return { result };
  }

  /** The first failure of BEGIN or a write, once every statement sent has answered. */
  private async firstFailure(): Promise<unknown> {
    await Promise.allSettled(this.reads);
    return (await Promise.allSettled(this.sent)).find((s) => s.status === 'rejected')?.reason;
  }
}

/** `answer`, kept in `list` and never an unhandled rejection (whoever needs its failure reads it from the list). */
function track<R>(answer: Promise<R>, list: Promise<unknown>[]): Promise<R> {
  answer.catch(() => undefined);
  list.push(answer);
  return answer;
}

/**
 * Runs `work` on `client` (`run` sends one named statement, corked until the next tick), in a block from the
 * start when `begin` (statements that must share it, whatever they are). Ends with the writes committed, or
 * with the first failure of BEGIN or a write (a write's as its `translate` maps it), else `work`'s own;
 * `reusable`: the connection ended with no block open and nothing in flight.
 */
export async function runOnConnection<T>(client: PoolClient, run: Run, begin: boolean, work: (sql: Sql, send: Send) => Promise<T>): Promise<Outcome<T>> {
  const connection = new ConnectionWork(client, run);
  if (begin) connection.open();
  let result: T;
  try {
    result = await work(connection.sql, connection.send);
  } catch (err) {
    return connection.abort(err);
  }
  return connection.commit(result);
}
