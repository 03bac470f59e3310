#!/usr/bin/env node
// payments-sandbox: stops at once on a Node this package does not support (never a silent exit 0), takes on
// the V8 flags of node-flags.json (as `npm start` runs the sandbox), then runs the command (dist/command.js,
// loaded only after the check).
import { readFileSync } from 'node:fs';
import { requireSupportedNode } from '@payments/spec/cli-support';

requireSupportedNode('payments-sandbox');
withNodeFlags();
const { main } = await import('../dist/command.js');
// Exits when the command is done: once the sandbox has closed, nothing of it is left to wait for.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`payments-sandbox: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1); // a start that failed ends the process, whatever it left open
  },
);

/**
 * The flags are V8 heap settings, read only when the process starts (v8.setFlagsFromString comes too late:
 * measured, it leaves the young generation 4× larger than the flag does). So the process replaces itself
 * (process.execve: same PID, signals and exit code go to the sandbox itself) with one started with them.
 * Where the flags are already given (NODE_OPTIONS, node's own arguments), or execve is missing (Node 22 before
 * 22.15, Windows), it runs as it is: the flags save memory, they are not needed for correctness.
 */
function withNodeFlags() {
  const { flags } = JSON.parse(readFileSync(new URL('../node-flags.json', import.meta.url), 'utf8'));
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const missing = flags.filter((flag) => !given.includes(flag));
  if (missing.length === 0 || typeof process.execve !== 'function' || process.platform === 'win32') return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, process.argv[1], ...process.argv.slice(2)], process.env);
}
