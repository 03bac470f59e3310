// The sandbox's reports about itself while it serves, on stderr beside (or as) the JSON request log.

/**
 * A line about the sandbox itself (a failure no request's answer shows) on stderr, in the request log's JSON
 * shape (`time`, `level`, then what happened), so a reader of the log parses every line the same way.
 */
export function logProblem(message: string, fields: { requestId?: string; error?: unknown } = {}): void {
  const { requestId, error } = fields;
  const detail = error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? String(error)) : String(error) };
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', message, ...(requestId ? { requestId } : {}), ...detail })}\n`);
}
