#!/usr/bin/env node
// payments-mock: stops at once on a Node this package does not support (never a silent exit 0), then runs
// the command (dist/cli.js, loaded only after the check). Its Node is Prism's (24.18 or later), narrower than
// the other packages': the message names that range.
import { readFileSync } from 'node:fs';
import { requireSupportedNode } from '@payments/spec/cli-support';
import { PRISM_NODE, prismSupports } from '../dist/index.js'; // node: imports only, safe on any Node

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
requireSupportedNode('payments-mock', { lines: `Node ${PRISM_NODE.text}, Prism 5.16's requirement`, engines: engines.node, supports: prismSupports });
const { main } = await import('../dist/cli.js');
main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err) => {
    process.stderr.write(`payments-mock: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
