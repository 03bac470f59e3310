// The rendered docs (dist/docs/index.html) in a real browser: headless Chromium opens the page from a
// loopback server and reads it the way a reader does, by following every entry of the sidebar. Redoc 3
// renders one part of the document at a time (each sidebar entry is a route such as #/banking/createtransfer,
// and only the sections around it are in the DOM), so the test visits every entry, expanding groups as it
// goes, and collects the text of every rendered section (innerText: what is displayed, not the HTML source).
// Then: every operation, every error code of the catalog and every assumption is on screen; no request
// leaves 127.0.0.1; the console shows no errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { assumptions, errorCatalog, loadSpec, operations } from '@payments/spec';
import { launchChromium, type LaunchedChromium } from '../../tools/lib/chromium.ts';
import { serveStatic, type StaticServer } from '../../tools/lib/static-server.ts';
import { docsDir } from '../../tools/lib/paths.ts';

const MENU = '[data-component-name="Menu/Menu"]';
/** Headings that tools/lib/docs.ts gives the derived guides. */
const CATALOG_TITLE = 'Error catalog';
const ASSUMPTIONS_TITLE = 'Assumptions';
/** Upper bound on sidebar entries visited (the document has a few dozen). */
const MAX_ROUTES = 200;
const WAIT_MS = 5_000;

interface RenderedSection {
  id: string;
  title: string;
  text: string;
}

const doc = loadSpec();
const norm = (text: string) => text.replace(/\s+/g, ' ').trim();
/** What a short Markdown string displays as: inline code, emphasis and link syntax removed. */
const displayed = (markdown: string) =>
  norm(markdown.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '').replace(/\*\*/g, ''));

let server: StaticServer | undefined;
let browser: LaunchedChromium | undefined;
const external = new Set<string>();
const consoleErrors: string[] = [];
let localRequests = 0;
const sections = new Map<string, RenderedSection>();
const menuLabels = new Set<string>();
const visited: string[] = [];

async function menuLinks(page: Page): Promise<{ route: string; label: string }[]> {
  const links = await page.$$eval(`${MENU} a[href]`, (anchors) =>
    anchors.map((a) => ({ href: a.getAttribute('href') ?? '', label: (a as HTMLElement).innerText })),
  );
  return links
    .map((l) => ({ route: l.href.replace(/^#/, ''), label: l.label.replace(/\s+/g, ' ').trim() }))
    .filter((l) => l.route.startsWith('/'));
}

/** Waits (bounded) until the main panel's text stops changing. */
async function settle(page: Page): Promise<void> {
  let last = '';
  let stable = 0;
  for (let i = 0; i < WAIT_MS / 100 && stable < 4; i++) {
    await page.waitForTimeout(100);
    const text = await page.locator('main').innerText({ timeout: WAIT_MS }).catch(() => '');
    stable = text.length > 0 && text === last ? stable + 1 : 0;
    last = text;
  }
}

async function open(page: Page, base: string, route: string): Promise<void> {
  const link = page.locator(`${MENU} a[href="${route}"], ${MENU} a[href="#${route}"]`).first();
  // A reader clicks the sidebar entry; an entry inside a group that has since collapsed is opened by its URL.
  if (await link.isVisible()) await link.click({ timeout: WAIT_MS });
  else await page.goto(`${base}#${route}`, { timeout: WAIT_MS * 4 });
  await page.waitForURL((url) => url.hash === `#${route}`, { timeout: WAIT_MS }).catch(() => undefined);
  await page
    .locator(`main [data-section-id="${route}"]`)
    .first()
    .waitFor({ state: 'attached', timeout: WAIT_MS })
    .catch(() => undefined);
  await settle(page);
}

async function collectSections(page: Page): Promise<void> {
  const rendered = await page.$$eval('main [data-section-id]', (els) =>
    els.map((el) => ({
      id: el.getAttribute('data-section-id') ?? '',
      title: (el.querySelector('h1, h2, h3') as HTMLElement | null)?.innerText ?? '',
      text: (el as HTMLElement).innerText,
    })),
  );
  for (const section of rendered) {
    const known = sections.get(section.id);
    if (!known || section.text.length > known.text.length) sections.set(section.id, { ...section, title: norm(section.title) });
  }
}

function sectionTitled(title: string): RenderedSection | undefined {
  return [...sections.values()].find((s) => s.title === title);
}

const seenTitles = () => [...new Set([...sections.values()].map((s) => s.title).filter(Boolean))].join(' | ');

beforeAll(async () => {
  server = await serveStatic(docsDir);
  browser = await launchChromium();
  const { context } = browser;
  context.setDefaultTimeout(WAIT_MS * 2);
  context.setDefaultNavigationTimeout(WAIT_MS * 6);

  const isLocal = (raw: string) => {
    const url = new URL(raw);
    return ['data:', 'blob:', 'about:'].includes(url.protocol) || url.hostname === '127.0.0.1';
  };
  await context.route('**/*', (route) => {
    const request = route.request();
    if (isLocal(request.url())) {
      localRequests++;
      return route.continue();
    }
    external.add(`${request.method()} ${request.url()} (${request.resourceType()})`);
    return route.abort('blockedbyclient');
  });
  // Also catch what routing does not see (service workers, WebSockets).
  context.on('request', (request) => {
    if (!isLocal(request.url())) external.add(`${request.method()} ${request.url()} (${request.resourceType()})`);
  });

  const page = context.pages()[0] ?? (await context.newPage());
  page.on('websocket', (ws) => {
    if (!isLocal(ws.url())) external.add(`WebSocket ${ws.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const { url, lineNumber } = message.location();
    consoleErrors.push(`console.error at ${page.url()}: ${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught at ${page.url()}: ${error.stack ?? error.message}`));

  await page.goto(server.url, { waitUntil: 'load' });
  await page.locator(`${MENU} a[href]`).first().waitFor({ state: 'visible', timeout: WAIT_MS * 4 });
  await settle(page);
  await collectSections(page);

  // Depth-first over the sidebar: entries that appear when a group opens are visited next, while visible.
  const first = await menuLinks(page);
  const seen = new Set(first.map((l) => l.route));
  first.forEach((l) => menuLabels.add(l.label));
  const queue = first.map((l) => l.route);
  while (queue.length > 0) {
    if (visited.length >= MAX_ROUTES) throw new Error(`the sidebar has more than ${MAX_ROUTES} entries: ${visited.join(', ')}`);
    const route = queue.shift()!;
    await open(page, server.url, route);
    visited.push(route);
    await collectSections(page);
    const fresh = (await menuLinks(page)).filter((l) => {
      menuLabels.add(l.label);
      return !seen.has(l.route);
    });
    fresh.forEach((l) => seen.add(l.route));
    queue.unshift(...fresh.map((l) => l.route));
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the rendered docs (headless Chromium)', () => {
  it('renders the sidebar and its sections', () => {
    expect(visited.length, 'no sidebar entries were found').toBeGreaterThan(0);
    expect(sections.size, `no sections were rendered (visited: ${visited.join(', ')})`).toBeGreaterThan(0);
  });

  it('shows every operation: a sidebar entry and a section with its summary, method and path', () => {
    const problems: string[] = [];
    for (const { method, path, operationId, operation } of operations(doc)) {
      const endpoint = `${method.toUpperCase()} ${path}`;
      const summary = norm(String(operation.summary ?? ''));
      if (!summary) {
        problems.push(`${endpoint} (${operationId}) has no summary in the spec`);
        continue;
      }
      if (![...menuLabels].some((label) => label.includes(summary))) problems.push(`${endpoint}: no sidebar entry "${summary}"`);
      const section = sectionTitled(summary);
      if (!section) problems.push(`${endpoint}: no rendered section titled "${summary}"`);
      else if (!norm(section.text).includes(endpoint)) problems.push(`${endpoint}: section "${summary}" does not show "${endpoint}"`);
    }
    expect(problems, `operations missing from the rendered docs:\n  ${problems.join('\n  ')}\nsections rendered: ${seenTitles()}`).toEqual([]);
  });

  it('shows every error code of the catalog in the Errors guide\'s catalog table', () => {
    const catalog = sectionTitled(CATALOG_TITLE);
    expect(catalog, `no rendered section titled "${CATALOG_TITLE}"; sections rendered: ${seenTitles()}`).toBeDefined();
    const text = norm(catalog?.text ?? '');
    const codes = [...new Set(errorCatalog(doc).map((e) => e.code))];
    expect(codes.length, 'the spec has no error codes').toBeGreaterThan(0);
    const missing = codes.filter((code) => !text.includes(code));
    expect(missing, `error codes not shown in the rendered "${CATALOG_TITLE}" (${missing.length} of ${codes.length}):\n  ${missing.join('\n  ')}`).toEqual([]);
  });

  it('shows the reason of every assumption in the Assumptions guide', () => {
    const guide = sectionTitled(ASSUMPTIONS_TITLE);
    expect(guide, `no rendered section titled "${ASSUMPTIONS_TITLE}"; sections rendered: ${seenTitles()}`).toBeDefined();
    const text = norm(guide?.text ?? '');
    const all = assumptions(doc);
    expect(all.length, 'the spec has no assumptions').toBeGreaterThan(0);
    const missing = all.filter((a) => !text.includes(displayed(a.reason))).map((a) => `${a.pointer}: ${a.reason}`);
    expect(missing, `assumptions not shown in the rendered "${ASSUMPTIONS_TITLE}" guide (${missing.length} of ${all.length}):\n  ${missing.join('\n  ')}`).toEqual([]);
  });

  it('makes no request that leaves 127.0.0.1', () => {
    expect(localRequests, 'request routing saw no requests at all').toBeGreaterThan(0);
    const list = [...external];
    expect(list, `requests to other hosts (aborted by the test):\n  ${list.join('\n  ')}`).toEqual([]);
  });

  it('logs no console errors and throws no uncaught errors', () => {
    expect(consoleErrors, `errors in the browser console:\n  ${consoleErrors.join('\n  ')}`).toEqual([]);
  });
});
