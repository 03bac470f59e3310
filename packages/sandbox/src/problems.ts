// The sandbox's reports about itself while it serves, on stderr beside (or as) the JSON request log. Every
// line has the request log's JSON shape (`time`, `level`, then what happened), so a reader of the log parses
// every line the same way. (A failure to start, before the log runs, is one plain sentence for a person.)

/** A failure no request's answer shows (`error`). */
export function logProblem(message: string, fields: { requestId?: string; error?: unknown } = {}): void {
  const { requestId, error } = fields;
  const detail = error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? String(error)) : String(error) };
  writeLine({ level: 'error', message, ...(requestId ? { requestId } : {}), ...detail });
}

/** What happened to the sandbox itself while it serves: a busy port it fell back from (`warn`), a stop (`info`). */
export function logEvent(level: 'info' | 'warn', message: string): void {
  writeLine({ level, message });
}

function writeLine(fields: { level: string; message: string }): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}
