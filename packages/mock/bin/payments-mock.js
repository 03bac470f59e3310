#!/usr/bin/env node
// payments-mock: stops at once on a Node this package does not support (never a silent exit 0), then runs
// the command (dist/cli.js, loaded only after the check; it checks Prism's own Node requirement too).
import { requireSupportedNode } from '@payments/spec/cli-support';

requireSupportedNode('payments-mock');
const { main } = await import('../dist/cli.js');
main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err) => {
    process.stderr.write(`payments-mock: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
