// One error catalog: the named examples of the error responses. These checks fail when the catalog
// disagrees with itself, when prose in the spec names a code the catalog does not have, or when the
// docs' catalog table leaves a code out.
import { describe, expect, it } from 'vitest';
import { assumptions, errorCatalog, isObject, loadSpec, type Json } from '@payments/spec';
import { docsSource, errorCatalogMarkdown } from '../../tools/lib/docs.ts';
import { TEST_VALUES } from '../../packages/sandbox/src/test-values.ts';

const doc = loadSpec();
const catalog = errorCatalog(doc);
const codes = new Set(catalog.map((e) => e.code));

function descriptions(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => descriptions(n, out));
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'description' || key === 'summary') && typeof value === 'string') out.push(value);
      else descriptions(value, out);
    }
  }
  return out;
}

describe('the error catalog', () => {
  it('gives each code one status, meaning, action and retry flag wherever it appears', () => {
    for (const code of codes) {
      const entries = catalog.filter((e) => e.code === code);
      const shapes = new Set(entries.map((e) => JSON.stringify([e.status, e.meaning, e.action, e.retryable, e.assumed])));
      expect(shapes.size, `${code} differs between ${entries.map((e) => e.operationId).join(', ')}`).toBe(1);
    }
  });

  it('has a meaning and a client action for every code', () => {
    for (const entry of catalog) {
      expect(entry.meaning.length, entry.code).toBeGreaterThan(10);
      expect(entry.action.length, entry.code).toBeGreaterThan(10);
      expect(entry.example.code).toBe(entry.code);
    }
  });

  it('is the only source of codes: every code named in the spec prose is in the catalog', () => {
    const codeLike = /`(?:\d{3} )?([a-z]+(?:_[a-z0-9]+){2,})`/g;
    const named = new Set(descriptions(doc).flatMap((text) => [...text.matchAll(codeLike)].map((m) => m[1]!)));
    // Field-like tokens in backticks that are not error codes (none today; add here with a reason).
    const notCodes = new Set<string>();
    const unknown = [...named].filter((c) => !codes.has(c) && !notCodes.has(c));
    expect(unknown, 'codes named in descriptions but absent from the catalog').toEqual([]);
    expect(named.size, "the scan found the codes the guides name").toBeGreaterThan(15);
  });

  it('is rendered whole into the docs: the Errors guide lists every code, the Assumptions guide every assumption', () => {
    const table = errorCatalogMarkdown(doc);
    for (const code of codes) expect(table, code).toContain(`\`${code}\``);
    // A code that is not retried is not always "fix it, new key": pending review forbids a new key (QA).
    const pendingReview = table.split('#### ').find((card) => card.startsWith('`banking_transfer_attempt_pending_review`'))!;
    expect(pendingReview).toContain('no automatic retry: see What to do');
    expect(pendingReview).toMatch(/\*\*What to do\.\*\* .*new key/i);
    const source = docsSource(doc);
    const tags = (source.tags as Json[]).filter(isObject);
    const errorsGuide = String(tags.find((t) => t.name === 'Errors')?.description);
    expect(errorsGuide).toContain(table);
    const assumptionsGuide = String(tags.find((t) => t.name === 'Assumptions')?.description);
    for (const a of assumptions(doc)) expect(assumptionsGuide).toContain(a.reason.replace(/\|/g, '\\|'));
    const testValuesGuide = String(tags.find((t) => t.name === 'Sandbox test values')?.description);
    for (const t of TEST_VALUES) {
      expect(testValuesGuide).toContain(`\`${t.value}\``);
      expect(codes.has(t.code), `${t.code} is a catalog code`).toBe(true);
    }
  });
});
