// Rendering the docs: the bundled document plus what is derived from it for readers (the error catalog
// table, the list of assumptions, an "Assumed" note on every assumed node), rendered by Redocly into one
// self-contained HTML file (scripts inlined, no CDN).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { assumptions, errorCatalog, isObject, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { TEST_VALUES } from '../../packages/sandbox/src/test-values.ts';
import { SAMPLE_LANGUAGES, withSamples } from './samples.ts';
import { changelogFromRepository } from './docs-changelog.ts';
import { consoleData, consoleScript, ERRORS_TAG, scriptJson, type ConsoleScenario } from './docs-console.ts';
import { consoleCss, themeCss } from './docs-theme.ts';
import { faviconDataUri, faviconIco } from './favicon.ts';
import { bin, bundledJson, bundledYaml, docsConfig, docsDir, docsFavicon, docsHtml, docsSourceJson, docsSpecJson, docsSpecYaml } from './paths.ts';
import { unwrapDescriptions } from './docs-soft-breaks.ts';
import { withWorkflowData, withWorkflowGuides } from './docs-workflows.ts';
import { log, runTool, step } from './steps.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The error catalog as one card per code (a heading and four short lines), not a table: 33 rows of six
 * columns cannot be read in Redoc's text column, and a card reads the same at 390 px and at 1366 px. Redoc
 * gives each code's heading a route and a sidebar entry of its own (errorCodeRoute in docs-console.ts),
 * which the console, the operation pages and search lead to.
 */
export function errorCatalogMarkdown(doc: OpenApiDocument): string {
  const byCode = new Map<string, ReturnType<typeof errorCatalog>>();
  for (const entry of errorCatalog(doc)) byCode.set(entry.code, [...(byCode.get(entry.code) ?? []), entry]);
  const cards = [...byCode.entries()].map(([code, entries]) => {
    const first = entries[0]!;
    const statuses = [...new Set(entries.map((e) => e.status))].join(', ');
    const ops = [...new Set(entries.map((e) => `\`${e.method.toUpperCase()} ${e.path}\``))].join(', ');
    const assumed = first.assumed ? ` *Assumed: ${cell(first.assumedReason ?? '')}*` : '';
    return [
      `#### \`${code}\``,
      '',
      // Not retryable is not "fix it and send under a new key": a pending review forbids a new key (QA).
      `**${statuses}** · ${first.retryable ? 'retry with the same key' : 'no automatic retry: see What to do'} · ${ops}`,
      '',
      `**Meaning.** ${cell(first.meaning)}${assumed}`,
      '',
      `**What to do.** ${cell(first.action)}`,
      '',
    ].join('\n');
  });
  return [
    '### Error catalog',
    '',
    `Every error code the API answers with, by code: its status, whether a retry with the same \`Idempotency-Key\` is right, the operations that answer it, what it means and what to do. ${byCode.size} codes.`,
    '',
    ...cards,
    '`502` and `504` **without** a JSON body come from the edge network on any operation: the request may or may not have been processed; retry with the same `Idempotency-Key`.',
  ].join('\n');
}

export function assumptionsMarkdown(doc: OpenApiDocument): string {
  const rows = assumptions(doc).map((a) => `| \`${cell(decodePointer(a.pointer))}\` | ${cell(a.reason)} |`);
  return [
    'Where the provider\'s document says "not shown", this contract makes a conventional choice and marks it `x-assumed: true` with an `x-assumed-reason`. A contract test against a real server reports a mismatch on one of these as a warning, not a failure. Every node so marked is below. Choices of behaviour the document leaves open (a key\'s scope, whether a refusal is the key\'s result, how nicknames and PIX keys compare, which requests count toward the rate limit) are written where they apply, each saying that it is assumed (the *Idempotency-Key* and *Limits* guides, and the descriptions of the fields and codes they concern).',
    '',
    '| Where (JSON pointer in the bundled document) | Why |',
    '|---|---|',
    ...rows,
  ].join('\n');
}

/** The sandbox's deterministic test values, the way card networks publish test card numbers. */
export function testValuesMarkdown(): string {
  return [
    'The sandbox (`npx payments-sandbox`, or `npm start` in the repository) implements the documented behaviour with state. Provider-side outcomes that a real server decides are triggered by these values:',
    '',
    '| Send | Value | Operation | Outcome | What happens |',
    '|---|---|---|---|---|',
    ...TEST_VALUES.map((t) => `| ${cell(t.field)} | \`${cell(t.value)}\` | \`${t.operationId}\` | \`${t.code}\` | ${cell(t.meaning)} |`),
    '',
    `**Try it** (from the docs the sandbox serves at \`/docs/\`: \`npx payments-sandbox\`, or \`npm start\` in the repository): [send a transfer, then send it again with the same key](#try/${SCENARIOS[0]!.name}) · [schedule a 503 and retry with the same key](#try/${SCENARIOS[1]!.name}).`,
    '',
    'Everything else a dashboard does (product flags, API keys, wallet recipients, card terms, checkout PIX, final transfer statuses) and fault injection (temporary 503, pending review, the edge\'s 502/504, a connection dropped after commit, provider rate limiting) are admin operations: see `npx payments-sandbox admin --help` (in the repository: `node tools/launch.mjs packages/sandbox/src/cli.ts --help`, and the admin API in `openapi-admin/`).',
  ].join('\n');
}

/** Relative links: /openapi.* from the sandbox's /docs/, dist/openapi.* from dist/docs/index.html. */
const SPEC_DOWNLOADS = '**Download the spec** (OpenAPI 3.1, bundled): [openapi.yaml](../openapi.yaml) · [openapi.json](../openapi.json)';

/** The admin CLI's arguments that schedule one 503 for the next transfer (after `--url` and `--token`). */
const FAULT_503 = 'fault add --operation createTransfer --kind unavailable --count 1 --resolution completed';

/** Prefilled requests of the docs console that the guides link to (`#try/<name>`). */
export const SCENARIOS: ConsoleScenario[] = [
  {
    name: 'replay',
    operationId: 'createTransfer',
    title: 'Send a transfer, then send it again with the same key',
    steps: [
      'No recipient yet? Open "Create a recipient", Try it, Send: the console fills the new recipient\'s id in here.',
      'Send: 201 and a transfer id.',
      'Send again without changing anything: the same Idempotency-Key gives 201 with the same transfer id. The sandbox replayed the original result; nothing was paid twice.',
      'Change the amount and send with the same key: 409 banking_transfer_idempotency_conflict.',
      'New key, then Send: a new transfer.',
    ],
  },
  {
    name: 'retry-503',
    operationId: 'createTransfer',
    title: 'Schedule a temporary 503 and retry with the same key',
    steps: [
      'In a terminal, schedule one 503 for the next transfer with the admin CLI and the admin token the sandbox printed when it started (npx payments-sandbox, or npm start in the repository; the token never goes into this page: it controls every organization of the sandbox):',
      'Send: 503 temporarily_unavailable. The attempt stays unresolved under this Idempotency-Key.',
      'Send again with the same key (a client waits at least 60 seconds first; the sandbox does not make you wait): 201 with the transfer, the attempt resolved.',
    ],
    command: `npx payments-sandbox admin --url {baseUrl} --token <admin token> ${FAULT_503}\n# in a clone of the repository (npm start): node tools/launch.mjs packages/sandbox/src/cli.ts --url {baseUrl} --token <admin token> ${FAULT_503}`,
  },
];

/** At the top of the retry guide (its first page; Redoc gives each ### heading a page of its own). */
const RETRY_GUIDE_TRY_IT = `**Try it in the sandbox.** From the docs the sandbox serves at \`/docs/\` (\`npx payments-sandbox\`, or \`npm start\` in the repository), the console sends real requests to a stateful sandbox: [send a transfer, then send it again with the same key](#try/${SCENARIOS[0]!.name}), and [schedule a 503, then retry with the same key](#try/${SCENARIOS[1]!.name}).`;

const decodePointer = (pointer: string) => pointer.replace(/~1/g, '/').replace(/~0/g, '~');

/** A copy of the document with the derived guides, code samples, and an "Assumed" note on each assumed node's description. */
export function docsSource(doc: OpenApiDocument, derived: { changelog?: string } = {}): OpenApiDocument {
  // Code samples (curl and our client) per operation: the same files test/samples runs against the sandbox.
  const out = withSamples(structuredClone(doc)) as OpenApiDocument;
  const annotate = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(annotate);
    if (!isObject(node)) return;
    // `additionalProperties: true` is JSON Schema's default; Redoc draws it as a "property name*" row on
    // every body. The schemas' descriptions say that unknown properties are accepted or tolerated.
    if (node.additionalProperties === true) delete node.additionalProperties;
    if (node['x-assumed'] === true && typeof node['x-assumed-reason'] === 'string') {
      const note = `**Assumed:** ${node['x-assumed-reason']}`;
      node.description = typeof node.description === 'string' ? `${node.description}\n\n${note}` : note;
    }
    Object.values(node).forEach(annotate);
  };
  annotate(out);

  // Redoc's server menu shows descriptions as plain text (backticks and all), and only the spec's servers: the
  // docs copy drops the Markdown and adds the sandbox that serves the page (`/`: the page's own origin).
  for (const server of (Array.isArray(out.servers) ? out.servers : []).filter(isObject)) {
    if (typeof server.description === 'string') server.description = server.description.replace(/`/g, '');
    withAbsoluteUrl(server);
  }
  out.servers = [...(Array.isArray(out.servers) ? out.servers : []), { url: '/', description: 'The sandbox serving these docs (npx payments-sandbox, or npm start in the repository): this page\'s own origin' }];

  const info = out.info as Json;
  if (isObject(info)) info.description = `${SPEC_DOWNLOADS}\n\n${String(info.description ?? '')}`;

  const tags = (out.tags as Json[]).filter(isObject);
  const errors = tags.find((t) => t.name === ERRORS_TAG);
  if (!errors) throw new Error('the document has no Errors tag for the catalog');
  errors.description = `${String(errors.description ?? '')}\n\n${errorCatalogMarkdown(doc)}`;
  const retries = tags.find((t) => t.name === 'Idempotency and retries');
  if (!retries) throw new Error('the document has no "Idempotency and retries" tag for the console\'s links');
  retries.description = `${RETRY_GUIDE_TRY_IT}\n\n${String(retries.description ?? '')}`;
  tags.push({ name: 'Assumptions', 'x-traitTag': true, description: assumptionsMarkdown(doc) });
  tags.push({ name: 'Sandbox test values', 'x-traitTag': true, description: testValuesMarkdown() });
  if (derived.changelog) tags.push({ name: 'Changelog', 'x-traitTag': true, description: derived.changelog });
  out.tags = tags;
  const groups = (out['x-tagGroups'] as Json[]).filter(isObject);
  const guides = groups.find((g) => g.name === 'Guides');
  if (guides && Array.isArray(guides.tags)) guides.tags.push('Assumptions', 'Sandbox test values', ...(derived.changelog ? ['Changelog'] : []));
  const withGuides = withWorkflowGuides(out, doc);
  unwrapDescriptions(withGuides); // search excerpts keep a paragraph's words apart (docs-soft-breaks.ts)
  return withGuides;
}

/**
 * Redoc resolves a server URL that is not absolute against the page's own URL, so the spec's `{base_url}`
 * (a URL that is only a variable) was shown, and copied, as `http://127.0.0.1:8080/docs/{base_url}` once the
 * reader had moved in the page (the server-rendered first view showed `{base_url}`). The docs copy shows the
 * URL with its variables' defaults filled in, and says in the description which part is a variable and that
 * the default is a placeholder (the variable's own description). `/` (the sandbox serving the page) stays.
 */
export function withAbsoluteUrl(server: JsonObject): void {
  if (typeof server.url !== 'string' || server.url === '/' || /^[a-z][a-z0-9+.-]*:\/\//i.test(server.url)) return;
  const variables = isObject(server.variables) ? server.variables : {};
  const named = [...server.url.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const defaults = Object.fromEntries(named.map((name) => [name, isObject(variables[name]) ? variables[name].default : undefined]));
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => (typeof defaults[name] === 'string' ? defaults[name] : `{${name}}`));
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) throw new Error(`docs: server URL ${String(server.url)} is not absolute even with its variables' defaults (${url})`);
  const said = named.map((name) => {
    const variable = isObject(variables[name]) ? variables[name] : {};
    // Its description as the spec has it (annotate() has added the "Assumed" note to the docs copy's).
    const meaning = typeof variable.description === 'string' ? variable.description.split('\n\n**Assumed:**')[0]!.replace(/`/g, '').replace(/\.$/, '') : 'a variable';
    return `Shown here with {${name}} at its default, ${String(defaults[name])}: ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}`;
  });
  server.url = url;
  delete server.variables;
  server.description = `${typeof server.description === 'string' ? server.description : ''} ${said.join('. ')}.`.trim();
}

/**
 * Redoc's settings for the page (a Redocly config file of its own, JSON being YAML: the repository's
 * redocly.yaml is the linter's). Redoc's language menu lists only the languages named here; without them
 * it offers its defaults (curl, JavaScript, …, Payload) and hides the TypeScript samples.
 */
export function redocConfig(): JsonObject {
  return { openapi: { codeSamples: { languages: SAMPLE_LANGUAGES.map((l) => ({ lang: l.lang, label: l.label })) } } };
}

export async function buildDocs(): Promise<void> {
  const doc = JSON.parse(readFileSync(bundledJson, 'utf8')) as OpenApiDocument;
  await step('derive docs source (error catalog, assumptions, changelog from the breaking-change gate)', () => {
    mkdirSync(docsDir, { recursive: true });
    writeFileSync(docsSourceJson, JSON.stringify(docsSource(doc, { changelog: changelogFromRepository(doc) }), null, 2));
    writeFileSync(docsConfig, JSON.stringify(redocConfig(), null, 2));
  });
  await runTool('redocly build-docs (self-contained HTML)', bin('redocly'), [
    'build-docs',
    docsSourceJson,
    '--config',
    docsConfig,
    '--inlineBundle',
    '--title',
    'Payments API',
    '-o',
    docsHtml,
  ]);
  const script = await step('bundle the docs console (esbuild)', () => consoleScript());
  await step('add the console, the theme fixes and the favicon; keep the page offline (no CDN logo)', () => {
    const html = withPageHeading(withHeadAdditions(withoutRemoteAssets(readFileSync(docsHtml, 'utf8'))), `${String((doc.info as JsonObject).title)} documentation`);
    writeFileSync(docsHtml, withWorkflowData(withBodyAdditions(html, scriptJson(consoleData(doc, SCENARIOS)), script), doc));
    writeFileSync(docsFavicon, faviconIco());
    // The page links the spec as ../openapi.{yaml,json}: served by the sandbox at /openapi.*, and next to
    // dist/docs/ for a reader who opens the built file directly.
    copyFileSync(bundledYaml, docsSpecYaml);
    copyFileSync(bundledJson, docsSpecJson);
  });
  const weight = await step('precompress the docs page (brotli, gzip) and report its weight', () => precompress(docsHtml));
  log(`  docs page weight: ${formatWeight(weight)}`);
}

export interface PageWeight {
  raw: number;
  gzip: number;
  brotli: number;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
export const formatWeight = (w: PageWeight) => `${kB(w.raw)} raw, ${kB(w.gzip)} gzip, ${kB(w.brotli)} brotli`;

/**
 * Writes `<file>.gz` (level 9) and `<file>.br` next to the file, once per build: the sandbox serves them as
 * they are (packages/sandbox/src/static-files.ts) instead of compressing per request. Brotli quality 9, not
 * 11: on the 2.7 MB page (measured on a loaded 2-core machine) q9 gives 626 kB in 1.2 s, q10 578 kB in
 * 6.6 s, q11 568 kB in 11.5 s, and every build, start and test run pays it; gzip -9 is 730 kB in 0.1 s.
 */
export async function precompress(file: string): Promise<PageWeight> {
  const raw = readFileSync(file);
  const [gz, br] = await Promise.all([
    promisify(gzip)(raw, { level: 9 }),
    promisify(brotliCompress)(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
  ]);
  writeFileSync(`${file}.gz`, gz);
  writeFileSync(`${file}.br`, br);
  return { raw: raw.length, gzip: gz.length, brotli: br.length };
}

/** What the page's <head> gets besides Redoc's output: the favicon (inline, no request), contrast fixes, the console's styles. */
export function withHeadAdditions(html: string): string {
  const head = `<link rel="icon" type="image/svg+xml" href="${faviconDataUri}">\n<style>${themeCss}${consoleCss}</style>\n`;
  if (!html.includes('</head>')) throw new Error('the rendered docs have no </head> to add the favicon to');
  return html.replace('</head>', () => `${head}</head>`);
}

/**
 * A level-one heading on every view, for screen readers: Redoc renders one part of the document at a time,
 * and on most views (an operation, a guide) none of its headings is an <h1>. Outside Redoc's root, so its
 * hydration never sees it; visually hidden (the visible title is Redoc's).
 */
export function withPageHeading(html: string, title: string): string {
  const root = '<div id="redoc">';
  if (!html.includes(root)) throw new Error('the rendered docs have no <div id="redoc"> to put the page heading before');
  const heading = `<header class="page-heading"><h1>${title.replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</h1></header>`;
  return html.replace(root, () => heading + root);
}

/** The console's data (JSON from the spec) and the page's own script, at the end of the body. */
export function withBodyAdditions(html: string, dataJson: string, script: string): string {
  const at = html.lastIndexOf('</body>');
  if (at === -1) throw new Error('the rendered docs have no </body> to add the console to');
  const tail = `<script type="application/json" id="try-it-data">${dataJson}</script>\n<script>${script.replace(/<\/script/gi, '<\\/script')}</script>\n`;
  return html.slice(0, at) + tail + html.slice(at);
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
