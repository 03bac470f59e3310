// Issue 25's size budget, held on every build: what an application bundles when it imports the client
// (openapi-fetch external), measured by the bench's own code (bench/client/sizes.ts, esbuild pinned at the
// root) on the compiled dist/ that `npm test` builds. Sizes are bytes, not time: deterministic for one
// esbuild version, so a budget test cannot flake under load.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadEsbuild, measureSizes, SIZE_BUDGETS } from '../../../bench/client/sizes.ts';

const clientDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the client bundle (min+gzip, openapi-fetch external)', () => {
  it('createPaymentsClient tree-shaken and the whole entry point stay within their budgets', async () => {
    const esbuild = await loadEsbuild();
    expect(esbuild, 'esbuild (a root devDependency) is installed').toBeDefined();
    const sizes = await measureSizes(esbuild!, clientDir);
    const budgeted = sizes.filter((s) => s.budget !== undefined);
    expect(budgeted.map((s) => s.budget)).toEqual([SIZE_BUDGETS.treeShaken, SIZE_BUDGETS.entry]);
    const [treeShaken, entry] = budgeted;
    // Tree-shaking happened: importing one function bundles less than every export.
    expect(treeShaken!.minified).toBeLessThan(entry!.minified);
    for (const s of budgeted) expect(s.gzipped, `${s.name}: ${s.gzipped} B min+gzip, budget ${s.budget} B`).toBeLessThanOrEqual(s.budget!);
  });
});
