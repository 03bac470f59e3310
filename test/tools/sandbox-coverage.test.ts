// `npm run build` fails on an operation the sandbox has no handler for, saying where the handler goes
// (a new contributor met it only at `npm start`, after a green build).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '@payments/spec';
import { bundledJson } from '../../tools/lib/paths.ts';
import { checkSandboxHandlers } from '../../tools/lib/sandbox-coverage.ts';

const doc = () => JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };

describe('the build\'s sandbox handler check', () => {
  it('passes on the spec as it is', async () => {
    await expect(checkSandboxHandlers(doc())).resolves.toBeUndefined();
  });

  it('fails on a new operation, naming the files to write', async () => {
    const changed = doc();
    changed.paths['/v1/banking/recipients']!.get = { operationId: 'listRecipients', tags: ['Banking'], responses: { '200': { description: 'Recipients.' } } };
    await expect(checkSandboxHandlers(changed)).rejects.toThrow(/no handler for listRecipients: write it in packages\/sandbox\/src\/operations\/<product>\.ts and add it to the handlers of packages\/sandbox\/src\/operations\/index\.ts/);
  });
});
