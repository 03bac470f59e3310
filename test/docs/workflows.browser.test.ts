// The workflows in the rendered docs, in headless Chromium, served by the sandbox (as npm start does: same origin,
// demo key): a workflow's guide page shows the provider's rule, its inputs and its steps with their criteria; an
// operation page links to the workflows using it; the page's workflow runner runs a workflow against the
// sandbox one step at a time, each step's answer and criteria shown as it comes; a workflow that needs the admin
// API is not run from the page (the admin token never enters it); axe-core finds no critical or serious violation
// with the runner open. Screenshots go to .reports/docs/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSpec } from '@payments/spec';
import { generateApiKey } from '../../packages/sandbox/src/keys.ts';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { launchChromium, type LaunchedChromium } from '../../tools/lib/chromium.ts';
import { demoOrganization } from '../../tools/lib/demo-organization.ts';
import { workflowConsoleData, workflowRoute } from '../../tools/lib/docs-workflows.ts';
import { docsSiteFiles } from '../../tools/lib/docs-site.ts';
import { root } from '../../tools/lib/paths.ts';
import { axeSummary, runAxe } from './axe.ts';

const SHOTS = join(root, '.reports', 'docs');
const WAIT_MS = 5_000;
const workflows = workflowConsoleData(loadSpec());

let sandbox: RunningSandbox | undefined;
let browser: LaunchedChromium | undefined;
let page: Page;
let docsUrl = '';
let demoKey = '';
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const key = generateApiKey();
  demoKey = key.key;
  sandbox = await startSandbox({ staticFiles: docsSiteFiles({ demoApiKey: key.key }) });
  await demoOrganization(sandbox, key);
  docsUrl = `${sandbox.url}/docs/`;
  browser = await launchChromium();
  browser.context.setDefaultTimeout(WAIT_MS * 2);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1400, height: 900 });
  page.on('pageerror', (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

async function openRoute(route: string): Promise<void> {
  await page.goto(`${docsUrl}#${route}`, { timeout: WAIT_MS * 6 });
  await page.locator(`main [data-section-id="${route}"]`).first().waitFor({ state: 'attached', timeout: WAIT_MS * 2 });
}

const section = (route: string) => page.locator(`main [data-section-id="${route}"]`).first();

describe('workflows in the docs', () => {
  it('a workflow page shows the rule, the inputs and each step with its request and criteria', { timeout: 120_000 }, async () => {
    const pix = workflows.find((w) => w.workflowId === 'pix-payout')!;
    await openRoute(workflowRoute('pix-payout'));
    const text = await section(workflowRoute('pix-payout')).innerText();
    expect(text).toContain("The provider's rule:");
    expect(text).toContain('Success is 201 with a transfer object carrying a status');
    expect(text).toContain('Inputs');
    for (const [i, step] of pix.steps.entries()) {
      expect(text).toContain(`${step.stepId}: ${step.method} ${step.path}`);
      expect(text.indexOf(step.stepId)).toBeGreaterThan(i === 0 ? -1 : text.indexOf(pix.steps[i - 1]!.stepId));
      for (const c of step.criteria) expect(text).toContain(c.condition);
    }
    await page.screenshot({ path: join(SHOTS, 'workflow-page.png') });
  });

  it('the Inputs table keeps each input name on one line (apiKey, not "apiK / ey")', { timeout: 60_000 }, async () => {
    await openRoute(workflowRoute('pix-payout'));
    const names = section(workflowRoute('pix-payout')).locator('table td:first-child code');
    await names.first().waitFor({ state: 'visible' });
    const lines = await names.evaluateAll((codes) => codes.map((c) => [c.textContent, Math.round(c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight))] as const));
    expect(lines.map(([name]) => name)).toContain('apiKey');
    expect(lines.filter(([, count]) => count !== 1)).toEqual([]);
  });

  it('an operation page links to the workflows using it', { timeout: 60_000 }, async () => {
    await openRoute('/banking/createtransfer');
    const link = section('/banking/createtransfer').locator(`a[href="#${workflowRoute('transfer-503-retry')}"]`);
    await expect(link.count()).resolves.toBe(1);
  });

  it('the runner runs a workflow step by step against the sandbox, each answer shown as it comes', { timeout: 120_000 }, async () => {
    const flow = workflows.find((w) => w.workflowId === 'transfer-same-key-replay')!;
    expect(flow.runnable).toBe(true);
    await openRoute(workflowRoute(flow.workflowId));
    await section(workflowRoute(flow.workflowId)).locator(`a[href="#workflow/${flow.workflowId}"]`).click();
    const panel = page.locator('#workflow-run');
    await panel.waitFor({ state: 'visible' });
    await expect.poll(() => panel.locator('#wr-api-key').inputValue(), { timeout: WAIT_MS }).toMatch(/^svc_live_/);
    // The fields give their text a whole line: with a bare `monospace` and a 15 px content box, the key's
    // underscores fell below it and "svc_live_" read "svc live".
    for (const field of ['#wr-api-key', '#wr-run-id']) {
      const room = await panel.locator(field).evaluate((el) => {
        const cs = getComputedStyle(el);
        return (el.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom)) / parseFloat(cs.fontSize);
      });
      expect(room, field).toBeGreaterThanOrEqual(1.4);
    }
    const items = panel.locator('ol > li');
    await expect(items.count()).resolves.toBe(flow.steps.length);
    for (let i = 0; i < flow.steps.length; i++) {
      await panel.getByRole('button', { name: 'Run next step' }).click();
      await expect.poll(() => items.nth(i).locator('.wr-status').innerText(), { timeout: WAIT_MS * 2 }).toBe('passed');
      // Only the steps run so far have an answer: the next one is still waiting.
      if (i + 1 < flow.steps.length) await expect(items.nth(i + 1).locator('.wr-status').innerText()).resolves.toBe('not run');
      await expect(items.nth(i).locator('pre').nth(1).innerText()).resolves.toMatch(/^201\n/);
      if (i === 1) await page.screenshot({ path: join(SHOTS, 'workflow-console-step.png') });
    }
    // The replay's answer is the first transfer: the same id in both answers, the criterion met.
    const bodies = await items.locator('pre:nth-of-type(2)').allInnerTexts();
    const id = (text: string) => JSON.parse(text.slice(text.indexOf('\n') + 1)).id as string;
    expect(id(bodies[2]!)).toBe(id(bodies[1]!));
    await expect(items.nth(2).locator('li.wr-failed').count()).resolves.toBe(0);
    await expect(panel.getByRole('button', { name: 'Run next step' }).isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(SHOTS, 'workflow-console-done.png') });
    // The page with the runner open: no critical or serious axe-core violation (the panel's own and the guide's).
    const violations = (await runAxe(page, 'workflow runner')).filter((v) => v.impact === 'critical' || v.impact === 'serious');
    expect(violations, axeSummary(['workflow runner'], violations)).toEqual([]);
  });

  it('by keyboard at 1024 px: the runner sits beside the text, keeps focus across a step, and Escape closes it', { timeout: 120_000 }, async () => {
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      const flow = 'checkout-pricing-conflict';
      await openRoute(workflowRoute(flow));
      const link = section(workflowRoute(flow)).locator(`a[href="#workflow/${flow}"]`);
      await link.focus();
      await page.keyboard.press('Enter');
      const panel = page.locator('#workflow-run');
      await panel.waitFor({ state: 'visible' });
      // Beside the page, not over it: the guide's text ends left of the panel.
      const text = await section(workflowRoute(flow)).locator('p').first().boundingBox();
      const box = await panel.boundingBox();
      expect(text!.x + text!.width).toBeLessThanOrEqual(box!.x + 1);
      // Enter on "Run next step" runs the step; focus stays on the button (it was disabled while sending and
      // fell to <body>), so Escape, pressed next, closes the runner and gives focus back to the link.
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Run next step');
      await page.keyboard.press('Enter');
      await expect.poll(() => panel.locator('ol > li').first().locator('.wr-status').innerText(), { timeout: WAIT_MS * 2 }).toBe('passed');
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Run next step');
      await page.keyboard.press('Escape');
      await expect(panel.isHidden()).resolves.toBe(true);
      await expect(page.evaluate(() => document.activeElement?.getAttribute('href'))).resolves.toBe(`#workflow/${flow}`);
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  });

  it('a step whose criterion fails is shown failed, with the criterion, and the run stops', { timeout: 60_000 }, async () => {
    await openRoute(workflowRoute('pix-payout'));
    await section(workflowRoute('pix-payout')).locator('a[href="#workflow/pix-payout"]').click();
    const panel = page.locator('#workflow-run');
    await panel.locator('#wr-api-key').fill('svc_live_notakeyofanyorganization000000');
    await panel.getByRole('button', { name: 'Run the rest' }).click();
    const first = panel.locator('ol > li').first();
    await expect.poll(() => first.locator('.wr-status').innerText(), { timeout: WAIT_MS * 2 }).toBe('failed');
    await expect(first.locator('li.wr-failed').first().innerText()).resolves.toContain('$statusCode >= 200 && $statusCode < 300');
    await expect(panel.locator('ol > li').nth(1).locator('.wr-status').innerText()).resolves.toBe('not run');
  });

  it('every workflow the page can run passes from its page against the sandbox (Run the rest)', { timeout: 180_000 }, async () => {
    const runnable = workflows.filter((w) => w.runnable);
    expect(runnable.map((w) => w.workflowId)).toEqual(expect.arrayContaining(['pix-payout', 'recipient-rules', 'checkout-session-key-reuse']));
    for (const [i, flow] of runnable.entries()) {
      await openRoute(workflowRoute(flow.workflowId));
      await section(workflowRoute(flow.workflowId)).locator(`a[href="#workflow/${flow.workflowId}"]`).click();
      const panel = page.locator('#workflow-run');
      await panel.waitFor({ state: 'visible' });
      await panel.locator('#wr-api-key').fill(demoKey); // an earlier test typed a wrong one, which the page keeps
      await panel.locator('#wr-run-id').fill(`all${i}x${Date.now().toString(36)}`); // new keys and names for this run
      await panel.getByRole('button', { name: 'Run the rest' }).click();
      const statuses = panel.locator('ol > li .wr-status');
      await expect.poll(() => statuses.allInnerTexts(), { timeout: WAIT_MS * 4, message: flow.workflowId }).toEqual(flow.steps.map(() => 'passed'));
      await page.keyboard.press('Escape');
    }
    expect(pageErrors).toEqual([]);
  });

  it('a workflow that needs the admin API is not run from the page', { timeout: 60_000 }, async () => {
    await openRoute(workflowRoute('transfer-503-retry'));
    const text = await section(workflowRoute('transfer-503-retry')).innerText();
    expect(text).toContain('npm run workflows -- --workflow transfer-503-retry');
    expect(await section(workflowRoute('transfer-503-retry')).locator('a[href="#workflow/transfer-503-retry"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
