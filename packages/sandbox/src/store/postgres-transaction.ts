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
 * twice in one statement keeps one change, unpredictably), with their parameters renumbered in order.
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

/**
 * Runs `work` on `client` (`run` sends one named statement, corked until the next tick), in a block from the
 * start when `begin` (statements that must share it, whatever they are). Ends with the writes committed, or
 * with the first failure of BEGIN or a write (a write's as its `translate` maps it), else `work`'s own;
 * `reusable`: the connection ended with no block open and nothing in flight.
 */
export async function runOnConnection<T>(client: PoolClient, run: Run, begin: boolean, work: (sql: Sql, send: Send) => Promise<T>): Promise<Outcome<T>> {
  let begun = false;
  let deferred: Deferred[] = [];
  const sent: Promise<unknown>[] = []; // BEGIN and the writes: a failure of one fails the transaction
  const reads: Promise<unknown>[] = [];
  const track = <R>(answer: Promise<R>, list: Promise<unknown>[]) => (answer.catch(() => undefined), list.push(answer), answer);
  /** BEGIN (once), then the writes deferred so far: what precedes a statement that writes or locks, and COMMIT. */
  const open = () => {
    corkUntilNextTick(client);
    if (!begun) track(client.query('BEGIN'), sent);
    begun = true;
    for (const w of deferred) track(run(client, w.text, w.values).catch((err: unknown) => Promise.reject(w.translate ? w.translate(err) : err)), sent);
    deferred = [];
  };
  /** The first failure of BEGIN or a write, once every statement sent has answered. */
  const firstFailure = async () => {
    await Promise.allSettled(reads);
    return (await Promise.allSettled(sent)).find((s) => s.status === 'rejected')?.reason as unknown;
  };
  const sql: Sql = (text, values) => {
    if (deferred.length || !PLAIN_READ.test(text)) open();
    return track(run(client, text, values), reads);
  };
  const send: Send = (text, values, translate) => void deferred.push({ text, values, translate });
  if (begin) open();

  let result: T;
  try {
    result = await work(sql, send);
  } catch (err) {
    const reusable = !begun || (await client.query('ROLLBACK').then(() => true, () => false));
    return { failure: (await firstFailure()) ?? err, reusable };
  }
  const combined = begun ? undefined : combineWrites(deferred);
  if (combined || (!begun && deferred.length === 0)) {
    const failure = combined ? await run(client, combined.text, combined.values).then(() => undefined, (err: unknown) => translatedByTable(err, deferred)) : undefined;
    await firstFailure(); // the reads left unread (a read-ahead a replay does not use) have answered
    return failure === undefined ? { result } : { failure, reusable: true };
  }
  open(); // corked: the writes leave with COMMIT
  const commit = client.query('COMMIT');
  const failure = await firstFailure();
  const committed = await commit.then((answer) => ({ command: answer.command }), (err: unknown) => ({ err }));
  if ('err' in committed) return { failure: failure ?? committed.err, reusable: false };
  if (failure !== undefined) return { failure, reusable: true };
  // COMMIT of a transaction that an error aborted (and `work` caught) is a silent ROLLBACK.
  if (committed.command === 'ROLLBACK') return { failure: new Error('the transaction was rolled back: a statement in it failed (its error was caught inside the transaction)'), reusable: true };
  return { result };
}
