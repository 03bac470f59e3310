// The docs' Must-show screenshots (docs/screenshots/), taken the way a reader gets there: the sidebar (Redoc's
// menu button on a phone), the console's "Create one" step, Send twice. Desktop 1366, 1024 and mobile 390,
// light and dark. Then, at 1366 light, the changelog, a workflow's page and its runner after two steps.
// Run after `npm run docs`: node test/docs/screenshots.ts [output folder]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { launchChromium } from '../../tools/lib/chromium.ts';
import { demoOrganization } from '../../tools/lib/demo-organization.ts';
import { docsSiteFiles } from '../../tools/lib/docs-site.ts';
import { workflowRoute } from '../../tools/lib/docs-workflows.ts';
import { root } from '../../tools/lib/paths.ts';

const out = process.argv[2] ?? join(root, 'docs', 'screenshots');
const MENU = '[data-component-name="Menu/Menu"]';
const VIEWPORTS = [
  ['desktop', 1366, 900],
  ['1024', 1024, 768],
  ['mobile', 390, 844],
] as const;
const WAIT = 10_000;

/** Clicks a sidebar entry (opening Redoc's menu on a phone, and the entry's group when it is closed). */
async function sidebar(page: Page, group: string, entry: string): Promise<void> {
  const menuButton = page.locator('[data-testid="floating-button"]');
  if (await menuButton.isVisible()) await menuButton.click();
  const link = page.locator(MENU).getByText(entry, { exact: true });
  if (!(await link.isVisible())) await page.locator(MENU).getByText(group, { exact: true }).click();
  await link.click({ timeout: WAIT });
  await page.waitForTimeout(600);
}

async function send(page: Page): Promise<void> {
  const before = await page.locator('#try-it .ti-history li').count();
  await page.locator('#try-it .ti-send').click();
  await page.locator('#try-it .ti-history li').nth(before).waitFor({ timeout: WAIT });
}

async function shoot(page: Page, name: string, scheme: string, width: number): Promise<void> {
  const label = `${name === 'desktop' || name === 'mobile' ? `${name}-${width}` : String(width)}-${scheme}`;
  // 1. An operation page reached through the sidebar, its console after a replay.
  await page.goto(page.url().split('#')[0]!, { waitUntil: 'load' });
  await sidebar(page, 'Banking', 'Create a transfer to a recipient');
  await page.locator('.try-it-launcher').click({ timeout: WAIT });
  await page.locator('#try-it .ti-prereq button').click({ timeout: WAIT });
  await page.locator('#try-it .ti-prereq [role="status"]').waitFor({ timeout: WAIT });
  await send(page);
  await send(page);
  await page.locator('#try-it .ti-replay').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, `console-replay-${label}.png`) });
  await page.keyboard.press('Escape');
  // 2. The code-sample menu of the same operation.
  const trigger = page.locator('main [data-section-id="/banking/createtransfer"] .panel-request-samples button[aria-haspopup="menu"]').filter({ hasText: /^\s*(curl|TypeScript)\s*$/ });
  await trigger.first().scrollIntoViewIfNeeded();
  await trigger.first().click({ timeout: WAIT });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(out, `code-samples-${label}.png`) });
  await page.keyboard.press('Escape');
  // 3. The error catalog, through the sidebar.
  await sidebar(page, 'Errors', 'Error catalog');
  await page.screenshot({ path: join(out, `catalog-${label}.png`) });
}

/** A sidebar entry by its route (entries whose label is long or repeated). */
async function sidebarRoute(page: Page, route: string): Promise<void> {
  await page.locator(`${MENU} a[href="#${route}"], ${MENU} a[href="${route}"]`).first().click({ timeout: WAIT });
  await page.locator(`main [data-section-id="${route}"]`).first().waitFor({ state: 'visible', timeout: WAIT });
  await page.waitForTimeout(600);
}

/** The changelog (its Unreleased changes in words), a workflow's page and its runner after two steps. */
async function guides(page: Page): Promise<void> {
  await sidebar(page, 'Guides', 'Changelog');
  await page.getByText('Unreleased', { exact: true }).first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(out, 'changelog.png') });
  await sidebarRoute(page, workflowRoute('pix-payout'));
  await page.screenshot({ path: join(out, 'workflow-page.png') });
  const flow = 'transfer-same-key-replay';
  await sidebarRoute(page, workflowRoute(flow));
  await page.locator(`main [data-section-id="${workflowRoute(flow)}"] a[href="#workflow/${flow}"]`).click({ timeout: WAIT });
  const runner = page.locator('#workflow-run');
  for (let step = 0; step < 2; step++) {
    await runner.getByRole('button', { name: 'Run next step' }).click({ timeout: WAIT });
    await runner.locator('ol > li').nth(step).locator('.wr-status').filter({ hasText: /^(passed|failed)$/ }).waitFor({ timeout: WAIT });
  }
  await page.screenshot({ path: join(out, 'workflow-console-step.png') });
}

mkdirSync(out, { recursive: true });
const key = generateApiKey();
const sandbox = await startSandbox({ staticFiles: docsSiteFiles({ demoApiKey: key.key }) });
const browser = await launchChromium().catch(async (err: unknown) => {
  await sandbox.close();
  throw err;
});
try {
  await demoOrganization(sandbox, key);
  for (const [name, width, height] of VIEWPORTS) {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${sandbox.url}/docs/`, { waitUntil: 'load' });
      await page.evaluate((s) => localStorage.setItem('redoc.colorMode', s), scheme);
      await page.reload({ waitUntil: 'load' });
      await page.locator(`${MENU} a[href]`).first().waitFor({ state: 'attached', timeout: WAIT * 3 });
      await shoot(page, name, scheme, width);
      await page.close();
      process.stdout.write(`  ${name} ${scheme}\n`);
    }
  }
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`${sandbox.url}/docs/`, { waitUntil: 'load' });
  await page.evaluate(() => localStorage.setItem('redoc.colorMode', 'light'));
  await page.reload({ waitUntil: 'load' });
  await page.locator(`${MENU} a[href]`).first().waitFor({ state: 'attached', timeout: WAIT * 3 });
  await guides(page);
  process.stdout.write('  changelog, workflow page and runner\n');
  process.stdout.write(`screenshots: ${out}\n`);
} finally {
  await browser.close();
  await sandbox.close();
}
