// npm run typecheck: TypeScript strict over tools, tests and packages (no emit).
import { bin } from '../lib/paths.ts';
import { log, main, runTool } from '../lib/steps.ts';

await main(async () => {
  await runTool('tsc --noEmit (strict)', bin('tsc'), ['-p', 'tsconfig.json']);
  log('types clean');
});
