// What every request of the PostgreSQL store does outside a transaction, sent once per event-loop turn for
// all the turn's requests: its caller lookup, its rate-limit hits, and a GET's balance read and journal
// entry. A round trip costs both processes more CPU than such a statement, and under load a turn holds a few
// requests (bench: 2.4 on average at 32 connections; GET balance: 190 → 100 µs of sandbox CPU per request).
// Each request still gets its own answer, and none is answered before its statement is done.
import type { JournalEntry } from '../audit/journal.ts';
import { JOURNAL, type Row, type SqlValue } from './rows.ts';
import { debitedTotalsFrom, debitedTotalsOf, findCallerSql, toCaller } from './sql-transaction.ts';

// The statements of several requests at once: their inputs as arrays, one per column. They run on generic
// plans (postgres.ts), which reckon 100 rows from an unnest: written as joins, the callers met every API key
// and the rate-limit prune every counter by a sequential scan (2,000 keys: 0.27 and 0.29 ms a run, against
// 0.03 and 0.08 now). A LATERAL subquery with LIMIT or OFFSET is not flattened into a join: one index probe a row.

/** Each caller asked for: its key by the unique hash index, with its organization. */
const FIND_CALLERS = `SELECT c.* FROM unnest($1::text[], $2::text[]) AS q(hash, operation_id) CROSS JOIN LATERAL (${findCallerSql('q.hash', 'q.operation_id')} LIMIT 1) AS c`;
const DEBITED_TOTALS = debitedTotalsOf('organization_id = ANY($1::text[])');
/** The journal's column types, in its INSERT's order (organization_id, then JOURNAL's columns). */
const JOURNAL_COLUMN_TYPES = ['text', 'bigint', 'text', 'text', 'text', 'integer', 'text', 'text', 'integer', 'text', 'boolean', 'text'];
const APPEND_JOURNAL = `INSERT INTO journal (organization_id, ${JOURNAL.columns}) SELECT * FROM unnest(${JOURNAL_COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

/** The calls of an event-loop turn, flushed together after its I/O callbacks: each gets its answer, all the batch's failure. */
function perTurn<In, Out>(flush: (inputs: In[]) => Promise<Out[]>): (input: In) => Promise<Out> {
  let queue: { input: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  const send = () => {
    const batch = queue;
    queue = [];
    flush(batch.map((call) => call.input)).then(
      (outs) => batch.forEach((call, i) => call.resolve(outs[i]!)),
      (err: unknown) => batch.forEach((call) => call.reject(err)),
    );
  };
  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (queue.push({ input, resolve, reject }) === 1) setImmediate(send);
    });
}

/** `run`: one statement outside any transaction (a pooled connection, autocommit). */
export function perTurnStatements(run: (text: string, values: readonly SqlValue[]) => Promise<Row[]>) {
  const findCaller = perTurn(async (asked: { hash: string; operationId: string }[]) => {
    const rows = await run(FIND_CALLERS, [asked.map((r) => r.hash), asked.map((r) => r.operationId)]);
    const found = new Map(rows.map((row) => [`${String(row.asked_hash)} ${String(row.asked_operation)}`, toCaller(row)]));
    return asked.map((r) => found.get(`${r.hash} ${r.operationId}`));
  });

  /**
   * One statement for a turn's hits: each (bucket, window) counted once with all its hits, in one order on
   * every instance (so two instances lock rows alike); a bucket's windows a day older than its oldest one here
   * go. Each hit gets the count it made: the window's count before the turn, plus its place among the hits.
   */
  const hitRateLimits = perTurn(async (hits: { bucket: string; windowStart: number }[]) => {
    const rows = await run(
      `WITH hits AS (SELECT bucket, window_start, COUNT(*) AS hits FROM unnest($1::text[], $2::bigint[]) AS h(bucket, window_start) GROUP BY bucket, window_start),
         oldest AS (SELECT bucket, MIN(window_start) AS window_start FROM hits GROUP BY bucket),
         stale AS (SELECT expired.ctid FROM oldest CROSS JOIN LATERAL (SELECT ctid FROM rate_counters r WHERE r.bucket = oldest.bucket AND r.window_start < oldest.window_start - 86400000 OFFSET 0) AS expired),
         pruned AS (DELETE FROM rate_counters WHERE ctid = ANY (ARRAY(SELECT ctid FROM stale))),
         counted AS (INSERT INTO rate_counters (bucket, window_start, count) SELECT bucket, window_start, hits FROM hits ORDER BY bucket, window_start
           ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_counters.count + excluded.count RETURNING bucket, window_start, count)
       SELECT bucket, window_start, count - hits AS before FROM counted JOIN hits USING (bucket, window_start)`,
      [hits.map((h) => h.bucket), hits.map((h) => h.windowStart)],
    );
    const counts = new Map(rows.map((row) => [`${Number(row.window_start)} ${String(row.bucket)}`, Number(row.before)]));
    return hits.map(({ bucket, windowStart }) => {
      const name = `${windowStart} ${bucket}`;
      counts.set(name, counts.get(name)! + 1);
      return counts.get(name)!;
    });
  });

  // A GET's two statements, shared by the turn's GETs: the balance read, and the journal entry (in order).
  const debitedTotals = perTurn(async (organizations: string[]) => {
    const rows = await run(DEBITED_TOTALS, [organizations]);
    return organizations.map((organizationId) => debitedTotalsFrom(rows, organizationId));
  });
  const appendRows = perTurn(async (rows: SqlValue[][]) => {
    await run(APPEND_JOURNAL, JOURNAL_COLUMN_TYPES.map((_, i) => rows.map((values) => values[i])) as SqlValue[]);
    return rows.map(() => undefined);
  });

  return { findCaller, hitRateLimits, debitedTotals, appendJournal: (organizationId: string, entry: JournalEntry) => appendRows(JOURNAL.values(entry, [organizationId])) };
}
