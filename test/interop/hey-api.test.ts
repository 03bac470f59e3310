// A third-party generator reads the spec as we mean it (issue 14): @hey-api/openapi-ts 0.99.0
// (tools/interop/hey-api) generates a client from the bundle; the client and a small consumer file
// type-check under `strict`, every SDK function exists by operationId, and every object the spec leaves open
// (`additionalProperties: true`) is open in the generated types: a PIX recipient with an unknown `bankCode`
// compiles. The same check run on a copy of the bundle where openness is implicit fails, as it did before.
// (`strict` and `noUncheckedIndexedAccess`; not `exactOptionalPropertyTypes`, which hey-api's own runtime
// files do not satisfy: 12 errors in client/ and core/, none in the types generated from our spec.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject, operations, type Json, type OpenApiDocument } from '@payments/spec';
import { ensureInteropTool } from '../../tools/lib/interop.ts';
import { bundledJson } from '../../tools/lib/paths.ts';

const bundle = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument;
const work = mkdtempSync(join(tmpdir(), 'hey-api-'));
let bin: string;

beforeAll(() => {
  bin = ensureInteropTool('hey-api');
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Schemas that are open by the spec: objects saying `additionalProperties: true` (components only: hey-api names those). */
function openSchemas(doc: OpenApiDocument): string[] {
  const schemas = isObject(doc.components.schemas) ? doc.components.schemas : {};
  return Object.entries(schemas)
    .filter(([, s]) => isObject(s) && s.additionalProperties === true)
    .map(([name]) => name);
}

const run = (cmd: string, args: string[], cwd: string) => spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 300_000 });

/** Generates a client from `doc` into `dir/client`, writes the consumer check, runs tsc --strict; returns tsc's result. */
function generateAndCheck(doc: OpenApiDocument, dir: string, open: string[]) {
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  const gen = run(join(bin, 'openapi-ts'), ['-i', 'openapi.json', '-o', 'client'], dir);
  expect(gen.status, `${gen.stdout}${gen.stderr}`).toBe(0);
  const sdkNames = operations(doc).map((op) => op.operationId);
  writeFileSync(
    join(dir, 'consumer.ts'),
    [
      "import type * as T from './client/types.gen.ts';",
      "import * as sdk from './client/sdk.gen.ts';",
      '// An object type is open when any string is one of its keys (an index signature).',
      'type Open<X> = string extends keyof X ? true : false;',
      ...open.map((name) => `export const open_${name}: Open<T.${name}> = true;`),
      '// The issue: a bankCode sent with a PIX recipient must not be refused by the types.',
      "export const pix: T.PixRecipientCreate = { rail: 'brl_pix', nickname: 'Maria', pixKey: 'maria@example.com', bankCode: '001' };",
      `export const calls = [${sdkNames.map((name) => `sdk.${name}`).join(', ')}];`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        allowImportingTsExtensions: true, skipLibCheck: false, noUncheckedIndexedAccess: true, types: [],
      },
      include: ['client/**/*.ts', 'consumer.ts'],
    }),
  );
  return run(join(bin, 'tsc'), ['-p', 'tsconfig.json'], dir);
}

describe('@hey-api/openapi-ts 0.99.0 over the bundle', () => {
  it('generates a client that type-checks strict, with every operation and every open object open', () => {
    const open = openSchemas(bundle);
    expect(open.length).toBeGreaterThanOrEqual(10);
    const dir = mkdtempSync(join(work, 'spec-'));
    const tsc = generateAndCheck(bundle, dir, open);
    expect(tsc.status, `tsc:\n${tsc.stdout}${tsc.stderr}`).toBe(0);
  }, 300_000);

  it('the same check fails when openness is left implicit (the bug it guards)', () => {
    const implicit = JSON.parse(JSON.stringify(bundle), (key, value: Json) => (key === 'additionalProperties' && value === true ? undefined : value)) as OpenApiDocument;
    const dir = mkdtempSync(join(work, 'implicit-'));
    const tsc = generateAndCheck(implicit, dir, openSchemas(bundle));
    const output = `${tsc.stdout}${tsc.stderr}`;
    expect(tsc.status, output).not.toBe(0);
    expect(output.match(/consumer\.ts\(\d+,\d+\): error TS2322: Type 'true' is not assignable to type 'false'/g)?.length ?? 0, output).toBeGreaterThanOrEqual(10);
    expect(output).toMatch(/'bankCode' does not exist in type/);
  }, 300_000);
});
