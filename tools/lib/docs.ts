// Rendering the docs: the bundled document plus what is derived from it for readers (the error catalog
// table, the list of assumptions, an "Assumed" note on every assumed node), rendered by Redocly into one
// self-contained HTML file (scripts inlined, no CDN).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { assumptions, errorCatalog, isObject, type Json, type OpenApiDocument } from '@payments/spec';
import { TEST_VALUES } from '../../packages/sandbox/src/test-values.ts';
import { withSamples } from './samples.ts';
import { bin, bundledJson, docsDir, docsHtml, docsSourceJson } from './paths.ts';
import { runTool, step } from './steps.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function errorCatalogMarkdown(doc: OpenApiDocument): string {
  const byCode = new Map<string, ReturnType<typeof errorCatalog>>();
  for (const entry of errorCatalog(doc)) byCode.set(entry.code, [...(byCode.get(entry.code) ?? []), entry]);
  const rows = [...byCode.entries()].map(([code, entries]) => {
    const first = entries[0]!;
    const statuses = [...new Set(entries.map((e) => e.status))].join(', ');
    const ops = [...new Set(entries.map((e) => `\`${e.method.toUpperCase()} ${e.path}\``))].join('<br>');
    const assumed = first.assumed ? ` *Assumed: ${cell(first.assumedReason ?? '')}*` : '';
    return `| \`${code}\` | ${statuses} | ${ops} | ${cell(first.meaning)}${assumed} | ${cell(first.action)} | ${first.retryable ? 'yes, same key' : 'no'} |`;
  });
  return [
    '### Error catalog',
    '',
    '| Code | Status | Operations | Meaning | What to do | Retried |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '`502` and `504` **without** a JSON body come from the edge network on any operation: the request may or may not have been processed; retry with the same `Idempotency-Key`.',
  ].join('\n');
}

export function assumptionsMarkdown(doc: OpenApiDocument): string {
  const rows = assumptions(doc).map((a) => `| \`${cell(decodePointer(a.pointer))}\` | ${cell(a.reason)} |`);
  return [
    'Where the provider\'s document says "not shown", this contract makes a conventional choice and marks it `x-assumed: true` with an `x-assumed-reason`. A contract test against a real server reports a mismatch on one of these as a warning, not a failure. Every such choice:',
    '',
    '| Where (JSON pointer in the bundled document) | Why |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/** The sandbox's deterministic test values, the way card networks publish test card numbers. */
export function testValuesMarkdown(): string {
  return [
    'The sandbox (`npm start`) implements the documented behaviour with state. Provider-side outcomes that a real server decides are triggered by these values:',
    '',
    '| Send | Value | Operation | Outcome | What happens |',
    '|---|---|---|---|---|',
    ...TEST_VALUES.map((t) => `| ${cell(t.field)} | \`${cell(t.value)}\` | \`${t.operationId}\` | \`${t.code}\` | ${cell(t.meaning)} |`),
    '',
    'Everything else a dashboard does (product flags, API keys, wallet recipients, card terms, checkout PIX, final transfer statuses) and fault injection (temporary 503, pending review, the edge\'s 502/504, a connection dropped after commit, provider rate limiting) are admin operations: see `openapi-admin/` and `node packages/sandbox/src/cli.ts --help`.',
  ].join('\n');
}

const decodePointer = (pointer: string) => pointer.replace(/~1/g, '/').replace(/~0/g, '~');

/** A copy of the document with the derived guides, code samples, and an "Assumed" note on each assumed node's description. */
export function docsSource(doc: OpenApiDocument): OpenApiDocument {
  // Code samples (curl and our client) per operation: the same files test/samples runs against the sandbox.
  const out = withSamples(structuredClone(doc)) as OpenApiDocument;
  const annotate = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(annotate);
    if (!isObject(node)) return;
    if (node['x-assumed'] === true && typeof node['x-assumed-reason'] === 'string') {
      const note = `**Assumed:** ${node['x-assumed-reason']}`;
      node.description = typeof node.description === 'string' ? `${node.description}\n\n${note}` : note;
    }
    Object.values(node).forEach(annotate);
  };
  annotate(out);

  const tags = (out.tags as Json[]).filter(isObject);
  const errors = tags.find((t) => t.name === 'Errors');
  if (!errors) throw new Error('the document has no Errors tag for the catalog');
  errors.description = `${String(errors.description ?? '')}\n\n${errorCatalogMarkdown(doc)}`;
  tags.push({ name: 'Assumptions', 'x-traitTag': true, description: assumptionsMarkdown(doc) });
  tags.push({ name: 'Sandbox test values', 'x-traitTag': true, description: testValuesMarkdown() });
  out.tags = tags;
  const groups = (out['x-tagGroups'] as Json[]).filter(isObject);
  const guides = groups.find((g) => g.name === 'Guides');
  if (guides && Array.isArray(guides.tags)) guides.tags.push('Assumptions', 'Sandbox test values');
  return out;
}

export async function buildDocs(): Promise<void> {
  const doc = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument;
  await step('derive docs source (error catalog, assumptions)', () => {
    mkdirSync(docsDir, { recursive: true });
    writeFileSync(docsSourceJson, JSON.stringify(docsSource(doc), null, 2));
  });
  await runTool('redocly build-docs (self-contained HTML)', bin('redocly'), [
    'build-docs',
    docsSourceJson,
    '--inlineBundle',
    '--title',
    'Payments API',
    '-o',
    docsHtml,
  ]);
  await step('keep the docs page offline (no CDN logo)', () => {
    writeFileSync(docsHtml, withoutRemoteAssets(readFileSync(docsHtml, 'utf8')));
  });
}

// Redoc 3's sidebar footer ("API docs by Redocly") always renders an <img> whose src is hard-coded to
// Redocly's CDN, even with --inlineBundle and telemetry off, and no Redoc option hides it. Every reader's
// browser would fetch it (a request to a third party; offline, a failed request and a console error). The
// bundle inlined in the page is rewritten to use a local data: image instead. The browser test
// (test/docs/docs.browser.test.ts) fails on any request leaving the page's host, so a new remote asset in
// a later Redoc shows up there.
const REMOTE_ASSETS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': svgDataUri(
    '<svg xmlns="http://www.w3.org/2000/svg" width="62" height="16" viewBox="0 0 62 16"><text x="0" y="12.5" font-family="sans-serif" font-size="13" font-weight="600" fill="#0044d4">Redocly</text></svg>',
  ),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': svgDataUri(
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><text x="3" y="12.5" font-family="sans-serif" font-size="13" font-weight="700" fill="#0044d4">R</text></svg>',
  ),
};

function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The rendered page with the remote assets Redoc would load replaced by inline ones. */
export function withoutRemoteAssets(html: string): string {
  let out = html;
  for (const [remote, local] of Object.entries(REMOTE_ASSETS)) out = out.split(remote).join(local);
  return out;
}
