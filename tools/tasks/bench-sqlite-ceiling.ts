// node tools/launch.mjs bench-sqlite-ceiling [-- --seconds 2 --batch 32]: node:sqlite alone with the statements
// the embedded sandbox runs for a GET balance and a POST transfer (new key, new UUID key, replay) (bench/sandbox/sqlite-ceiling.ts), the
// ceiling of the embedded store on this machine. Needs the bundled spec and the admin spec (built here when
// missing). Not part of `npm test`.
import { runBenchScript } from '../lib/bench-script.ts';
import { main } from '../lib/steps.ts';

await main(() => runBenchScript('bench-sqlite-ceiling', 'bench/sandbox/sqlite-ceiling.ts'));
