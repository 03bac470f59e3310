#!/usr/bin/env node
// payments-sandbox: stops at once on a Node this package does not support (never a silent exit 0), then runs
// the command (dist/command.js, loaded only after the check).
import { requireSupportedNode } from '@payments/spec/cli-support';

requireSupportedNode('payments-sandbox');
const { main } = await import('../dist/command.js');
// Exits when the command is done: once the sandbox has closed, nothing of it is left to wait for.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`payments-sandbox: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
