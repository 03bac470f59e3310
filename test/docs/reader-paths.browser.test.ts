// The paths a reader takes through the rendered docs that the QA pass found broken, in headless Chromium served
// by the sandbox (as `npx payments-sandbox` and `npm start` serve them): the Back button after a scenario's or a
// workflow's deep link, the sidebar's links as links (open in a new tab, copy), "New key" keeping an edited
// body, the commands the page shows to users of the installed packages, the file:// page (no request for the
// sandbox's settings, the spec links explained), the keyboard's way to the content and to search, the search
// dialog's accessible names and contrast in the dark scheme, and the tab's title on an error card.
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { launchChromium, type LaunchedChromium } from '../../tools/lib/chromium.ts';
import { demoOrganization } from '../../tools/lib/demo-organization.ts';
import { errorCodeRoute, operationRoute } from '../../tools/lib/docs-console.ts';
import { docsSiteFiles } from '../../tools/lib/docs-site.ts';
import { workflowRoute } from '../../tools/lib/docs-workflows.ts';
import { docsHtml } from '../../tools/lib/paths.ts';
import { axeSummary, runAxe } from './axe.ts';

const MENU = '[data-component-name="Menu/Menu"]';
const WAIT_MS = 5_000;
const TRANSFER = operationRoute('Banking', 'createTransfer');
const RECIPIENT = operationRoute('Banking', 'createRecipient');

let sandbox: RunningSandbox | undefined;
let browser: LaunchedChromium | undefined;
let docsUrl = '';
const pageErrors: string[] = [];

beforeAll(async () => {
  const key = generateApiKey();
  sandbox = await startSandbox({ staticFiles: docsSiteFiles({ demoApiKey: key.key }) });
  await demoOrganization(sandbox, key);
  docsUrl = `${sandbox.url}/docs/`;
  browser = await launchChromium();
  browser.context.setDefaultTimeout(WAIT_MS * 2);
  browser.context.setDefaultNavigationTimeout(WAIT_MS * 6);
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

/** A new tab (1366 × 900 unless told), its uncaught errors collected. */
async function newTab(size = { width: 1366, height: 900 }): Promise<Page> {
  const tab = await browser!.context.newPage();
  await tab.setViewportSize(size);
  tab.on('pageerror', (error) => pageErrors.push(`${tab.url()}: ${error.message}`));
  return tab;
}

/** Loads a route and waits until the page's own script has run (it runs once Redoc has hydrated). */
async function load(tab: Page, hash: string): Promise<void> {
  await tab.goto(`${docsUrl}${hash}`, { waitUntil: 'load' });
  await tab.locator('#try-it').waitFor({ state: 'attached', timeout: WAIT_MS * 4 });
  await tab.locator(`${MENU} a[href]`).first().waitFor({ state: 'visible', timeout: WAIT_MS * 4 });
}

const hashOf = (tab: Page) => new URL(tab.url()).hash;

const SEARCH_ITEMS = '[data-testid="search-dialog"] [data-component-name="Search/SearchItem"]';

/** Opens the search dialog from the sidebar's box and types `query`; resolves once a result is shown. */
async function searchFor(tab: Page, query: string): Promise<void> {
  await tab.locator('[data-testid="search-trigger"]').click();
  await tab.keyboard.type(query);
  await tab.locator(SEARCH_ITEMS).first().waitFor({ state: 'visible', timeout: WAIT_MS });
}

describe('deep links leave the history usable', () => {
  it.each(['retry-503', 'replay'])('#try/%s opened from another page: the console opens on its operation, and Back returns to that page', async (name) => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await load(tab, `#try/${name}`);
      await tab.waitForURL((url) => url.hash === `#${TRANSFER}`, { timeout: WAIT_MS });
      await expect.poll(() => tab.locator('#try-it').isVisible(), { timeout: WAIT_MS }).toBe(true);
      await tab.goBack();
      await expect.poll(() => hashOf(tab), { timeout: WAIT_MS }).toBe('#/limits');
      await tab.waitForTimeout(500); // a redirect would come back within a frame or two
      expect(hashOf(tab), 'Back stays on the page before the deep link').toBe('#/limits');
    } finally {
      await tab.close();
    }
  });

  it('a guide\'s #try/ link (a click) still adds the operation to the history: Back returns to the guide', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/idempotency-and-retries');
      await tab.locator('main a[href="#try/replay"]').first().click();
      await tab.waitForURL((url) => url.hash === `#${TRANSFER}`, { timeout: WAIT_MS });
      await tab.goBack();
      await expect.poll(() => hashOf(tab), { timeout: WAIT_MS }).toBe('#/idempotency-and-retries');
    } finally {
      await tab.close();
    }
  });

  it('#workflow/pix-payout opens the runner on the workflow\'s own page (not over the home page), and Back leaves it', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await load(tab, '#workflow/pix-payout');
      await tab.waitForURL((url) => url.hash === `#${workflowRoute('pix-payout')}`, { timeout: WAIT_MS });
      await tab.locator(`main [data-section-id="${workflowRoute('pix-payout')}"]`).first().waitFor({ state: 'attached', timeout: WAIT_MS });
      expect(await tab.locator('#workflow-run').isVisible()).toBe(true);
      expect(await tab.locator('#workflow-run-title').innerText()).toContain('Register a PIX recipient');
      await tab.goBack();
      await expect.poll(() => hashOf(tab), { timeout: WAIT_MS }).toBe('#/limits');
    } finally {
      await tab.close();
    }
  });
});

describe('the sidebar\'s entries are links a reader can open in a new tab or copy', () => {
  it('on first load every sidebar link (guides, groups, workflows) points inside /docs/, as a #/ route', async () => {
    const tab = await newTab();
    try {
      await load(tab, '');
      await expect
        .poll(() => tab.$$eval(`${MENU} a[href]`, (as) => as.map((a) => a.getAttribute('href')!).filter((href) => !href.startsWith('#'))), { timeout: WAIT_MS })
        .toEqual([]);
      const resolved = await tab.$$eval(`${MENU} a[href]`, (as) => as.map((a) => (a as HTMLAnchorElement).href));
      expect(resolved.filter((href) => !href.startsWith(`${docsUrl}#/`))).toEqual([]);
      // Links in the text rendered with the page (the overview's) too.
      expect(await tab.$$eval('main a[href^="/"]', (as) => as.map((a) => a.getAttribute('href')))).toEqual([]);
      // A plain click still moves Redoc there.
      await tab.locator(`${MENU} a[href="#/limits"]`).click();
      await tab.waitForURL((url) => url.hash === '#/limits', { timeout: WAIT_MS });
      await tab.locator('main [data-section-id="/limits"]').first().waitFor({ state: 'attached', timeout: WAIT_MS });
    } finally {
      await tab.close();
    }
  });
});

describe('the console', () => {
  it('"New key" on Create a recipient changes only the key: an edited body stays as the reader wrote it', async () => {
    const tab = await newTab();
    try {
      await load(tab, `#${RECIPIENT}`);
      await tab.locator('.try-it-launcher').click();
      const key = tab.locator('[data-name="Idempotency-Key"]');
      const before = await key.inputValue();
      const edited = JSON.stringify({ ...JSON.parse(await tab.locator('#ti-body').inputValue()), nickname: 'My own nickname' }, null, 2);
      await tab.locator('#ti-body').fill(edited);
      await tab.getByRole('button', { name: 'New key' }).click();
      expect(await key.inputValue()).not.toBe(before);
      expect(await tab.locator('#ti-body').inputValue()).toBe(edited);
    } finally {
      await tab.close();
    }
  });

  // QA: after Enter on the console's link to a code's card, focus fell to <body> (Tab went on from the top).
  it.each([
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ])("Enter on an error code's catalog link leaves focus on the code's card (%s)", async (_size, viewport) => {
    const tab = await newTab(viewport);
    try {
      // Not load(): on a phone the sidebar's links are hidden behind its menu button.
      await tab.goto(`${docsUrl}#${TRANSFER}`, { waitUntil: 'load' });
      await tab.locator('.try-it-launcher').waitFor({ state: 'visible', timeout: WAIT_MS * 4 });
      await tab.locator('.try-it-launcher').click();
      await tab.locator('#ti-body').fill(JSON.stringify({ recipientId: 'rcp_does_not_exist', amount: '1.00' }));
      await tab.locator('#try-it .ti-send').click();
      const link = tab.locator('#try-it .ti-response a', { hasText: 'its card in the error catalog' });
      await link.waitFor({ timeout: WAIT_MS * 2 });
      await link.focus();
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.evaluate(() => document.activeElement?.id), { timeout: WAIT_MS }).toBe('/errors/recipient_not_found');
      // The page's own code links do the same.
      await tab.goto(`${docsUrl}#${TRANSFER}`, { waitUntil: 'load' });
      const code = tab.locator('main code[data-error-code="recipient_not_found"]').first();
      await code.waitFor({ state: 'attached', timeout: WAIT_MS * 4 });
      await code.focus();
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.evaluate(() => document.activeElement?.id), { timeout: WAIT_MS }).toBe('/errors/recipient_not_found');
    } finally {
      await tab.close();
    }
  });

  // QA: scrolling the page to another operation (the console follows it) and back reset an edited body.
  it('keeps an edited body when the page moves to another operation and back', async () => {
    const tab = await newTab();
    try {
      await load(tab, `#${RECIPIENT}`);
      await tab.locator('.try-it-launcher').click();
      const edited = JSON.stringify({ ...JSON.parse(await tab.locator('#ti-body').inputValue()), note: 'edited by me' }, null, 2);
      await tab.locator('#ti-body').fill(edited);
      await tab.locator(`${MENU} a[href="#${TRANSFER}"]`).first().click();
      await expect.poll(() => tab.locator('#try-it .ti-endpoint').innerText(), { timeout: WAIT_MS }).toContain('/v1/banking/transfers');
      await tab.goBack();
      await expect.poll(() => tab.locator('#try-it .ti-endpoint').innerText(), { timeout: WAIT_MS }).toContain('/v1/banking/recipients');
      expect(await tab.locator('#ti-body').inputValue()).toBe(edited);
    } finally {
      await tab.close();
    }
  });

  // QA: an edge 502 showed its bare HTML with no word of what to do, and Retry-After hid in the headers.
  it("says what to do after an edge 502 (the spec's advice) and after a 503 with Retry-After", async () => {
    const tab = await newTab();
    const fault = (body: object) =>
      fetch(`${sandbox!.url}/admin/faults`, { method: 'POST', headers: { authorization: `Bearer ${sandbox!.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    try {
      await load(tab, `#${operationRoute('Cards', 'issueCard')}`);
      await tab.locator('.try-it-launcher').click();
      const sendOnce = async () => {
        const before = await tab.locator('#try-it .ti-history li').count();
        await tab.locator('#try-it .ti-send').click();
        await tab.locator('#try-it .ti-history li').nth(before).waitFor({ timeout: WAIT_MS * 2 });
        return tab.locator('#try-it .ti-response').innerText();
      };
      expect((await fault({ operationId: 'issueCard', kind: 'edge_502', count: 1 })).status).toBe(201);
      const edge = await sendOnce();
      expect(edge).toMatch(/^502 /m);
      expect(edge).toContain('No error body: an answer of the edge network. From the edge network, without the JSON error body.');
      expect(edge).toContain('treat it as a timeout and retry (a POST with the same Idempotency-Key)');
      expect((await fault({ operationId: 'issueCard', kind: 'provider_rate_limited', count: 1, retryAfterSeconds: 7 })).status).toBe(201);
      const limited = await sendOnce();
      expect(limited).toMatch(/^503 /m);
      expect(limited).toContain('Retry-After: 7 s. Wait at least that long before sending the request again.');
      expect(limited).not.toContain('edge network');
    } finally {
      await tab.close();
    }
  });

  it('the 503 scenario shows the command of the installed package (npx payments-sandbox admin), base URL filled in', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/idempotency-and-retries');
      await tab.locator('main a[href="#try/retry-503"]').first().click();
      const command = tab.locator('#try-it .ti-command');
      await expect.poll(() => command.innerText(), { timeout: WAIT_MS }).toContain('npx payments-sandbox admin');
      const first = (await command.innerText()).split('\n')[0]!;
      expect(first).toMatch(new RegExp(`^npx payments-sandbox admin --url ${sandbox!.url} --token <admin token> fault add --operation createTransfer `));
      expect(await tab.locator('#try-it .ti-scenario').innerText()).toContain('npx payments-sandbox');
    } finally {
      await tab.close();
    }
  });

  it('the Servers panel shows the production URL as an absolute URL, before and after clicking "Payments API" in the sidebar', async () => {
    const tab = await newTab();
    try {
      await load(tab, '');
      // Redoc resolves a relative server URL against the page: `{base_url}` became http://…/docs/{base_url}.
      const serverLines = async () => {
        await tab.locator('[data-testid="server-panel-item-name"]').first().waitFor({ state: 'attached', timeout: WAIT_MS });
        return (await tab.locator('main').innerText()).split('\n').map((l) => l.trim()).filter((l) => /^\S*\{base_url\}\S*$/.test(l) || /^https:\/\/\S+$/.test(l));
      };
      expect(await serverLines()).toEqual(['https://api.payments.invalid']);
      await tab.locator(`${MENU} a`).filter({ hasText: 'Payments API' }).first().click();
      await tab.waitForTimeout(500);
      expect(await serverLines()).toEqual(['https://api.payments.invalid']);
    } finally {
      await tab.close();
    }
  });
});

describe('opened from file://', () => {
  it('asks nothing of a sandbox (no request for /docs/console.json) and says where the spec downloads live', async () => {
    const tab = await newTab();
    const requests: string[] = [];
    tab.on('request', (r) => requests.push(r.url()));
    try {
      await tab.goto(`${pathToFileURL(docsHtml).href}#${TRANSFER}`, { waitUntil: 'load' });
      await tab.locator('#try-it').waitFor({ state: 'attached', timeout: WAIT_MS * 4 });
      await tab.waitForTimeout(1_000);
      expect(requests.filter((u) => u.includes('console.json'))).toEqual([]);
      await tab.locator('.try-it-launcher').click();
      expect(await tab.locator('#try-it .ti-notice').innerText()).toContain('npx payments-sandbox');
      await tab.goto(`${pathToFileURL(docsHtml).href}#/`, { waitUntil: 'load' });
      await expect.poll(() => tab.locator('main .spec-downloads-note').first().innerText().catch(() => ''), { timeout: WAIT_MS * 2 }).toContain('/openapi.yaml');
    } finally {
      await tab.close();
    }
  });
});

describe('keyboard and screen readers', () => {
  it('a skip link to the content comes before the sidebar; Enter moves focus to the main content', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await tab.keyboard.press('Tab');
      expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.evaluate(() => !!document.activeElement?.closest('main')), { timeout: WAIT_MS }).toBe(true);
      expect(hashOf(tab), 'the skip link is no route').toBe('#/limits');
    } finally {
      await tab.close();
    }
  });

  it('the skip link to the content is there as soon as the document is parsed, before Redoc hydrates (docs QA: ~4 s late under load)', async () => {
    const tab = await newTab();
    try {
      await tab.goto(`${docsUrl}#/limits`, { waitUntil: 'domcontentloaded' });
      // The page's own script runs at the end of the body: by DOMContentLoaded, before the load event that
      // hydration waits for, the link is in the page's header.
      expect(await tab.locator('body > header .skip-to-content').count()).toBe(1);
    } finally {
      await tab.close();
    }
  });

  it('on an operation page the Try-it skip link comes first, then the skip link to the content; neither moves the page', async () => {
    const tab = await newTab();
    try {
      await load(tab, `#${TRANSFER}`);
      await tab.locator('.try-it-launcher').waitFor({ state: 'visible' });
      // The page shows the operation (scrolled down to it). QA: the first Tab scrolled it back to the overview.
      const operationInView = () => tab.evaluate((route) => {
        const section = [...document.querySelectorAll<HTMLElement>('main [data-section-id]')].find((el) => el.dataset.sectionId === route);
        const box = section?.getBoundingClientRect();
        return scrollY > 0 && box !== undefined && box.bottom > 0 && box.top < innerHeight;
      }, TRANSFER);
      await expect.poll(operationInView, { timeout: WAIT_MS }).toBe(true);
      await tab.keyboard.press('Tab');
      expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the Try-it console');
      expect(await operationInView(), 'the skip link is shown where the reader is').toBe(true);
      await tab.keyboard.press('Tab');
      expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      expect(await operationInView()).toBe(true);
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.evaluate((route) => (document.activeElement as HTMLElement | null)?.dataset.sectionId === route, TRANSFER), { timeout: WAIT_MS }).toBe(true);
      expect(await operationInView(), 'focus lands on the operation, in view').toBe(true);
    } finally {
      await tab.close();
    }
  });

  it('the sidebar\'s search box is reachable by Tab and opens with Enter', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      const trigger = tab.locator('[data-testid="search-trigger"]');
      await expect.poll(() => trigger.getAttribute('tabindex'), { timeout: WAIT_MS }).toBe('0');
      expect(await trigger.getAttribute('role')).toBe('button');
      // Its name reads "Loading..." until the search index has loaded (seen once under CI's load): polled, not read once.
      await expect.poll(async () => (await trigger.getAttribute('aria-label')) ?? (await trigger.innerText()), { timeout: WAIT_MS, message: 'its accessible name' }).toMatch(/search/i);
      let reached = false;
      for (let i = 0; i < 10 && !reached; i++) {
        await tab.keyboard.press('Tab');
        reached = await trigger.evaluate((el) => el === document.activeElement);
      }
      expect(reached, 'Tab reaches the search box within 10 presses').toBe(true);
      await tab.keyboard.press('Enter');
      await tab.locator('[data-testid="search-dialog"] input').first().waitFor({ state: 'visible', timeout: WAIT_MS });
    } finally {
      await tab.close();
    }
  });

  it.each(['light', 'dark'] as const)('the search dialog with results (%s): a named clear button, no critical or serious axe violation', async (scheme) => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await tab.evaluate((s) => localStorage.setItem('redoc.colorMode', s), scheme);
      await tab.reload({ waitUntil: 'load' });
      await tab.locator('#try-it').waitFor({ state: 'attached', timeout: WAIT_MS * 4 });
      await searchFor(tab, 'transfer');
      const dialog = '[data-testid="search-dialog"]';
      await expect.poll(() => tab.locator(`${dialog} button.button-variant-ghost`).first().getAttribute('aria-label'), { timeout: WAIT_MS }).toBeTruthy();
      const violations = (await runAxe(tab, `search dialog ${scheme}`, [dialog])).filter((v) => v.impact === 'critical' || v.impact === 'serious');
      expect(violations, axeSummary([`search dialog ${scheme}`], violations)).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('a search result chosen with the keyboard leaves focus on its section, so Tab goes on from there (docs QA: <body>)', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await searchFor(tab, 'issue a card');
      await tab.keyboard.press('ArrowDown');
      await tab.keyboard.press('Enter');
      await tab.waitForURL((url) => url.hash !== '#/limits', { timeout: WAIT_MS });
      const focusedSection = () =>
        tab.evaluate(() => {
          const section = document.activeElement?.closest<HTMLElement>('main [data-section-id]');
          return { section: section?.dataset.sectionId, route: decodeURIComponent(location.hash.slice(1)) };
        });
      await expect.poll(async () => { const f = await focusedSection(); return f.section !== undefined && f.section === f.route; }, { timeout: WAIT_MS, message: 'focus on the chosen section' }).toBe(true);
      await tab.keyboard.press('Tab');
      const inMain = await tab.evaluate(() => document.activeElement?.closest('main') !== null && document.activeElement !== document.body);
      expect(inMain, 'the next Tab stays in the content').toBe(true);
    } finally {
      await tab.close();
    }
  });

  it('search excerpts keep the words of a wrapped line apart (docs QA: "the dashboardenables Checkout")', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await searchFor(tab, 'dashboard enables');
      const items = tab.locator(SEARCH_ITEMS);
      // The workflow page's description wraps between "dashboard" and "enables" (openapi/workflows/access.arazzo.yaml).
      await expect.poll(async () => (await items.allInnerTexts()).join('\n'), { timeout: WAIT_MS }).toContain('Once the dashboard enables Checkout');
      expect((await items.allInnerTexts()).join('\n')).not.toMatch(/dashboardenables/);
    } finally {
      await tab.close();
    }
  });
});

describe('the tab\'s title names the page', () => {
  const code = 'banking_transfer_idempotency_conflict';

  it('on an error card reached from an error code linked in the text', async () => {
    const tab = await newTab();
    try {
      await load(tab, `#${TRANSFER}`);
      const link = tab.locator(`main [data-section-id="${TRANSFER}"] code[data-error-code="${code}"]`).first();
      await link.focus({ timeout: WAIT_MS * 2 });
      await tab.keyboard.press('Enter');
      await tab.waitForURL((url) => url.hash === `#${errorCodeRoute(code)}`, { timeout: WAIT_MS });
      await expect.poll(() => tab.title(), { timeout: WAIT_MS }).toMatch(new RegExp(`^${code} · `));
    } finally {
      await tab.close();
    }
  });

  it('on an error card reached from search', async () => {
    const tab = await newTab();
    try {
      await load(tab, '#/limits');
      await tab.locator('[data-testid="search-trigger"]').click();
      await tab.keyboard.type(code);
      await tab.locator(`[data-testid="search-dialog"] a[href="#${errorCodeRoute(code)}"]`).first().click({ timeout: WAIT_MS });
      await tab.waitForURL((url) => url.hash === `#${errorCodeRoute(code)}`, { timeout: WAIT_MS });
      await expect.poll(() => tab.title(), { timeout: WAIT_MS }).toMatch(new RegExp(`^${code} · `));
    } finally {
      await tab.close();
    }
  });

  it('throws no uncaught error on the way', () => {
    expect(pageErrors).toEqual([]);
  });
});
