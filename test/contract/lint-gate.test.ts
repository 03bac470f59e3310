// The linters are a gate: a spec that breaks one of our rules fails the build with the linter's message.
// Each case copies openapi/ to a temp folder, breaks one thing in the source, and runs the build's own
// lint steps on it (Redocly and our layout rules on the source, bundle, Spectral on the bundle).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { bundle, layoutLint, redoclyLint, spectralLint } from '../../tools/lib/contract.ts';
import { root } from '../../tools/lib/paths.ts';
import { StepError } from '../../tools/lib/steps.ts';

const work = mkdtempSync(join(tmpdir(), 'lint-gate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Yaml = Record<string, any>;
interface Mutation {
  name: string;
  file: string;
  change: (y: Yaml) => void;
  expect: RegExp;
}

const mutations: Mutation[] = [
  {
    name: 'a POST without a required Idempotency-Key',
    file: 'paths/v1_cards.yaml',
    change: (y) => delete y.post.parameters,
    expect: /post-requires-idempotency-key/,
  },
  {
    name: 'an error example not named by its code',
    file: 'paths/v1_cards.yaml',
    change: (y) => {
      const ex = y.post.responses['409'].content['application/json'].examples;
      ex.terms = ex.authorized_user_terms_required;
      delete ex.authorized_user_terms_required;
    },
    // Named where it is: the operation, the status and the example (it was line 1:1 with no path).
    expect: /error-response-examples-per-code {2}POST \/v1\/cards 409: example "terms" has code "authorized_user_terms_required"; name it by its code {2}paths\.\/v1\/cards\.post\.responses\[409\]\.content\.application\/json\.examples\n {4}source: \S+\/paths\/v1_cards\.yaml:\d+:\d+/,
  },
  {
    name: 'an error response without the shared error schema',
    file: 'paths/v1_cards.yaml',
    change: (y) => (y.post.responses['409'].content['application/json'].schema = { type: 'object', additionalProperties: true }),
    expect: /error-responses-use-shared-schema  an error response is the shared error body [^\n]*paths\.\/v1\/cards\.post\.responses\[409\]/,
  },
  {
    name: 'an operationId that is not camelCase',
    file: 'paths/v1_cards.yaml',
    change: (y) => (y.post.operationId = 'issue_card'),
    expect: /operation-id-camel-case/,
  },
  {
    name: 'an operation tagged with another product',
    file: 'paths/v1_cards.yaml',
    change: (y) => (y.post.tags = ['Banking']),
    expect: /operation-tagged-with-its-product/,
  },
  {
    name: 'a schema keyword outside the agreed subset',
    file: 'components/schemas/Transfer.yaml',
    change: (y) => (y.discriminator = { propertyName: 'status' }),
    expect: /schema-subset-no-unsupported-keywords/,
  },
  {
    name: 'a oneOf whose branches cannot be told apart',
    file: 'components/schemas/UsdWireRecipientCreate.yaml',
    change: (y) => (y.properties.rail.const = 'usd_ach'),
    // Redocly (no-illogical-composition-keywords) catches this before Spectral does; either is the gate.
    expect: /schema-oneof-distinguishable|no-illogical-composition-keywords/,
  },
  {
    name: 'an assumption without a reason',
    file: 'components/schemas/Rail.yaml',
    change: (y) => delete y['x-assumed-reason'],
    // Under the bundle's line, the source file's (a component is the file named by it).
    expect: /assumed-has-reason[^\n]*\n {4}source: \S+\/components\/schemas\/Rail\.yaml:\d+:\d+/,
  },
  {
    name: 'an example that does not match its schema',
    file: 'components/examples/responses/transfer_pending.yaml',
    change: (y) => (y.value.status = 'settled'),
    expect: /no-invalid-media-type-examples|oas3-valid-media-example/,
  },
  // Our layout (.spectral-layout.yaml, on the unbundled source) and what third-party tools need to read it.
  {
    name: 'a path item written inline in the root document',
    file: 'openapi.yaml',
    change: (y) => (y.paths['/v1/cards'] = { get: { operationId: 'listCards', tags: ['Cards'], responses: { '200': { description: 'Cards.' } } } }),
    expect: /^(?=[\s\S]*path-items-from-path-files {2}\/v1\/cards must be only a \$ref)(?=[\s\S]*openapi\/paths\/v1_cards\.yaml is not referenced)/,
  },
  {
    name: 'an error example written inline instead of a $ref into the catalog',
    file: 'paths/v1_cards.yaml',
    change: (y) => (y.post.responses['409'].content['application/json'].examples.authorized_user_terms_required = { summary: 'Terms.', value: { error: 'Accept the terms.', code: 'authorized_user_terms_required', requestId: 'b60a3d83-1403-474a-83ab-f12737ffc87f' } }),
    expect: /error-examples-from-catalog/,
  },
  {
    name: 'an error example taken from outside the catalog folder',
    file: 'components/responses/Unauthorized.yaml',
    change: (y) => (y.content['application/json'].examples.invalid_api_key = { $ref: '../examples/responses/transfer_pending.yaml' }),
    expect: /error-examples-from-catalog/,
  },
  {
    name: 'an object schema that leaves its openness implicit',
    file: 'components/schemas/Transfer.yaml',
    change: (y) => delete y.additionalProperties,
    expect: /object-openness-explicit/,
  },
  {
    name: 'a path parameter with only a schema-level example',
    file: 'components/parameters/TransferId.yaml',
    change: (y) => delete y.example,
    expect: /path-parameters-have-example/,
  },
];

async function lintCopy(m: Mutation): Promise<string> {
  const dir = join(work, m.name.replace(/\W+/g, '-'));
  cpSync(join(root, 'openapi'), dir, { recursive: true });
  const file = join(dir, m.file);
  const y = parse(readFileSync(file, 'utf8')) as Yaml;
  m.change(y);
  writeFileSync(file, stringify(y));
  try {
    await layoutLint(dir);
    await redoclyLint(join(dir, 'openapi.yaml'));
    await bundle(join(dir, 'openapi.yaml'), join(dir, 'bundle.yaml'), join(dir, 'bundle.json'));
    await spectralLint(join(dir, 'bundle.yaml'), join(root, '.spectral.yaml'), join(dir, 'openapi.yaml'));
  } catch (err) {
    if (err instanceof StepError) return err.output;
    throw err;
  }
  return '';
}

describe('a broken spec fails the lint gate with the linter message', () => {
  it.each(mutations.map((m) => [m.name, m] as const))('%s', async (_name, m) => {
    const output = await lintCopy(m);
    expect(output, 'the broken spec passed every linter').not.toBe('');
    expect(output).toMatch(m.expect);
  });

  it('the unbroken spec passes the same steps', async () => {
    const output = await lintCopy({ name: 'unbroken', file: 'openapi.yaml', change: () => {}, expect: /^$/ });
    expect(output).toBe('');
  });
});
