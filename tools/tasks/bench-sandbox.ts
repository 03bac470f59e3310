// node tools/launch.mjs bench-sandbox [-- options]: the sandbox's throughput, latency and memory next to
// Prism's mock and a bare node:http server (bench/sandbox/run.ts; its header lists the options, e.g.
// --quick). Needs the bundled spec and the admin spec: built here when missing (a full `npm run build` is
// not needed). Not part of `npm test`: it measures and prints verdicts; it exits non-zero on a FAIL only
// with --strict.
import { runBenchScript } from '../lib/bench-script.ts';
import { main } from '../lib/steps.ts';

await main(() => runBenchScript('bench-sandbox', 'bench/sandbox/run.ts'));
