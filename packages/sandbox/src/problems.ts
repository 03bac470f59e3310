// The sandbox's reports about itself while it serves, on stderr beside (or as) the JSON request log. Every
// line has the request log's JSON shape (`time`, `level`, then what happened), so a reader of the log parses
// every line the same way. (A failure to start, before the log runs, is one plain sentence for a person.)

/** A failure no request's answer shows (`error`). */
export function logProblem(message: string, fields: { requestId?: string; error?: unknown } = {}): void {
  const { requestId, error } = fields;
  const detail = error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? String(error)) : String(error) };
  process.stderr.write(jsonLine('error', { message, ...(requestId ? { requestId } : {}), ...detail }));
}

/** What happened to the sandbox itself while it serves: a busy port it fell back from (`warn`), a stop (`info`). */
export function logEvent(level: 'info' | 'warn', message: string): void {
  process.stderr.write(jsonLine(level, { message }));
}

/** One log line: the time, the level, then the fields (the request log's lines too, http.ts). */
export const jsonLine = (level: string, fields: object): string => `${JSON.stringify({ time: new Date().toISOString(), level, ...fields })}\n`;
