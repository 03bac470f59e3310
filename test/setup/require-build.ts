// Tests read the bundled spec and the rendered docs. `npm test` builds them first; a bare `vitest` run
// without a build gets this message instead of a confusing ENOENT, and one after an edit under openapi/
// without a build is told so (it would test the previous spec).
import { existsSync } from 'node:fs';
import { bundledJson, docsHtml } from '../../tools/lib/paths.ts';
import { prismDocumentPath } from '../../tools/lib/prism-document.ts';
import { staleBuildMessage } from '../../tools/lib/stale-build.ts';

export default function requireBuild(): void {
  for (const file of [bundledJson, docsHtml, prismDocumentPath]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` (npm test does it for you).`);
  }
  const stale = staleBuildMessage();
  if (stale) throw new Error(`${stale} (npm test does it for you).`);
}
