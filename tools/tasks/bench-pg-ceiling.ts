// node tools/launch.mjs bench-pg-ceiling [-- --seconds 10 --clients 32]: PostgreSQL alone with the statements
// the sandbox sends for a new POST transfer, its replay and a GET balance (bench/sandbox/pg-ceiling.ts), the
// ceiling of the shared mode on this machine. Needs the bundled spec and the admin spec (built here when
// missing) and pgbench (PostgreSQL's client package). Not part of `npm test`.
import { runBenchScript } from '../lib/bench-script.ts';
import { main } from '../lib/steps.ts';

await main(() => runBenchScript('bench-pg-ceiling', 'bench/sandbox/pg-ceiling.ts'));
