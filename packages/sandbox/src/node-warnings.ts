// Node 22 marks node:sqlite experimental and prints an ExperimentalWarning on stderr when it is first loaded
// (Node 24 and 26 do not). payments-sandbox writes its request log there, one JSON line per request, so that
// one warning would be the one line a log reader cannot parse. It alone is left out; every other warning is
// printed as Node prints it.
const SQLITE_EXPERIMENTAL = /^SQLite is an experimental feature/;

/** Call before node:sqlite is first loaded, in each thread that loads it (the process, the checkpointer's worker). */
export function omitSqliteExperimentalWarning(): void {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && SQLITE_EXPERIMENTAL.test(String(warning instanceof Error ? warning.message : warning))) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
}
