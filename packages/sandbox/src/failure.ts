// A request's documented failure: a catalog code (status and default message from the spec), and for some
// codes a message of our own (the PIX rejections "give the reason") or headers (Retry-After).
export class Failure extends Error {
  readonly code: string;
  readonly headers: Record<string, string>;
  readonly detail: string | undefined;
  constructor(code: string, detail?: string, headers: Record<string, string> = {}) {
    super(detail ?? code);
    this.code = code;
    this.detail = detail;
    this.headers = headers;
  }
}

/**
 * The documented temporary 503 for an error that says the database could not be reached (a PostgreSQL
 * restart or failover, a dropped connection, a pool that found no connection in time), else undefined.
 * Not the "bug" 500: the provider's document answers a temporary server failure 503, and a client retries
 * it with the same Idempotency-Key. The outcome is unresolved, not "nothing done": a connection can drop
 * after COMMIT was sent, and the retry then replays what committed.
 */
export function databaseUnavailable(err: unknown): Failure | undefined {
  const e = err as { code?: unknown; message?: unknown; syscall?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const unreachable =
    /^(57P0[123]|08...)$/.test(code) || // PostgreSQL: shutting down, crashed, starting up; connection exceptions
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) || // ENOTFOUND, EAI_AGAIN: its host name not resolved
    (code === 'ENOENT' && e?.syscall === 'connect') || // its Unix socket is gone (the server stopped or restarts)
    /Connection terminated|not queryable|timeout exceeded when trying to connect/.test(String(e?.message ?? ''));
  return unreachable ? new Failure('temporarily_unavailable', 'The sandbox cannot reach its database right now. Retry later (a POST with the same Idempotency-Key: its outcome is unresolved until then).') : undefined;
}
