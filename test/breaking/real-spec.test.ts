// The comparer on the real bundled spec (packages/spec/dist/openapi.json, built by `npm run build`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog, type OpenApiDocument } from '@payments/spec';
import { compareDocuments } from '../../tools/lib/breaking/compare.ts';
import { baselinePath } from '../../tools/lib/breaking/gate.ts';
import type { JsonObject } from '../../tools/lib/breaking/json.ts';
import { bundledJson } from '../../tools/lib/paths.ts';
import { rows, type Editable } from './fixtures.ts';

const text = readFileSync(bundledJson, 'utf8');
const spec = (): Editable => JSON.parse(text);

/** Deletes the named example carrying `code` from an operation's response (following a shared response's $ref). */
function deleteErrorExample(doc: Editable, path: string, method: string, status: number, code: string): void {
  let response = doc.paths[path][method].responses[String(status)];
  if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
  const examples = response.content['application/json'].examples;
  const name = Object.keys(examples).find((key) => {
    const example = examples[key].$ref ? doc.components.examples[examples[key].$ref.split('/').pop()] : examples[key];
    return example.value.code === code;
  });
  if (!name) throw new Error(`no example of ${code} in ${method} ${path} ${status}`);
  delete examples[name];
}

describe('the comparer on the real spec', () => {
  it('finds no change between the bundle and itself', () => {
    expect(compareDocuments(spec(), spec())).toEqual([]);
  });

  it('reads the committed baseline (the last released spec)', () => {
    const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as JsonObject;
    expect(baseline.openapi).toMatch(/^3\.1\./);
    expect(() => compareDocuments(baseline, spec())).not.toThrow();
  });

  it('reports a removed error code of one operation at its example', () => {
    const changed = spec();
    deleteErrorExample(changed, '/v1/banking/transfers', 'post', 409, 'wallet_recipient_required');
    const changes = compareDocuments(spec(), changed);
    expect(rows(changes)).toEqual([
      ['error-code-removed', '/paths/~1v1~1banking~1transfers/post/responses/409/content/application~1json/examples/wallet_recipient_required', 'old', true],
    ]);
    expect(changes[0]?.where).toEqual(['POST /v1/banking/transfers response 409']);
  });

  it('reports a code removed from a shared response once, with every operation that returns it', () => {
    const changed = spec();
    delete changed.components.responses.Unauthorized.content['application/json'].examples.invalid_api_key;
    const changes = compareDocuments(spec(), changed);
    expect(rows(changes)).toEqual([
      ['error-code-removed', '/components/responses/Unauthorized/content/application~1json/examples/invalid_api_key', 'old', true],
    ]);
    const returning = errorCatalog(spec() as OpenApiDocument).filter((e) => e.code === 'invalid_api_key');
    expect(changes[0]?.where).toEqual(returning.map((e) => `${e.method.toUpperCase()} ${e.path} response ${e.status}`));
  });

  it('reports a new required request field', () => {
    const changed = spec();
    changed.components.schemas.TransferCreate.properties.memo = { type: 'string', maxLength: 140 };
    changed.components.schemas.TransferCreate.required.push('memo');
    expect(rows(compareDocuments(spec(), changed))).toEqual([
      ['request-field-added-required', '/components/schemas/TransferCreate/properties/memo', 'new', true],
    ]);
  });

  it('reports the removal of every code of the error catalog as breaking, for its operation and status', () => {
    const catalog = errorCatalog(spec() as OpenApiDocument);
    expect(catalog.length).toBeGreaterThan(20);
    for (const entry of catalog) {
      const changed = spec();
      deleteErrorExample(changed, entry.path, entry.method, entry.status, entry.code);
      const changes = compareDocuments(spec(), changed);
      const where = `${entry.method.toUpperCase()} ${entry.path} response ${entry.status}`;
      const removed = changes.find((c) => c.kind === 'error-code-removed' && c.message.includes(`"${entry.code}"`));
      expect(removed?.breaking, `${entry.code} at ${where}`).toBe(true);
      expect(removed?.where, entry.code).toContain(where);
      expect(changes.every((c) => c.kind === 'error-code-removed'), entry.code).toBe(true);
    }
  });
});
