// node tools/launch.mjs breaking: the bundled spec against the last released spec (openapi/released/openapi.json).
// Prints every change (pointer, kind, breaking or not, why) and exits 1 when a change breaks clients and no
// pending changeset releases both @payments/types and @payments/client as major. Run `npm run build` first.
//
//   --write-baseline          copy the bundle to the baseline (the release step does this)
//   --spec PATH               the spec to check (default packages/spec/dist/openapi.json)
//   --baseline PATH           the released spec (default openapi/released/openapi.json)
//   --changeset-dir DIR       pending changesets (default .changeset)
import { parseArgs } from 'node:util';
import { checkBreaking, writeBaseline, type GateOptions } from '../lib/breaking/gate.ts';
import { staleBuildMessage } from '../lib/stale-build.ts';
import { main, StepError } from '../lib/steps.ts';

await main(async () => {
  const { values } = parseArgs({
    options: {
      'write-baseline': { type: 'boolean' },
      spec: { type: 'string' },
      baseline: { type: 'string' },
      'changeset-dir': { type: 'string' },
    },
  });
  if (values['write-baseline']) {
    const written = writeBaseline(values.spec, values.baseline);
    process.stdout.write(`baseline written: ${written}\n`);
    return;
  }
  const stale = values.spec ? undefined : staleBuildMessage();
  if (stale) throw new StepError('breaking-change gate', stale);
  const options: GateOptions = {};
  if (values.spec) options.spec = values.spec;
  if (values.baseline) options.baseline = values.baseline;
  if (values['changeset-dir']) options.changesetDir = values['changeset-dir'];
  const result = checkBreaking(options);
  process.stdout.write(`${result.report}\n`);
});
