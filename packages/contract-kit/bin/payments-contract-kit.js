#!/usr/bin/env node
// payments-contract-kit: stops at once on a Node this package does not support (never a silent exit 0), then
// runs the command (dist/cli.js, loaded only after the check).
import { requireSupportedNode } from '@payments/spec/cli-support';

requireSupportedNode('payments-contract-kit');
await import('../dist/cli.js');
