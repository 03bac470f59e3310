// A reader's first payment from the docs, on the days after the first one: the sandbox as `npm start` runs
// it (serveSandbox on a database file: the demo organization, its recipients and transfers are kept between
// starts), headless Chromium at 1366 px, createTransfer reached through the sidebar, its console's "Create
// one … with fresh values", then Send twice with one Idempotency-Key by keyboard: 201, then the replay of the
// same transfer. Done in a fresh profile; again after a second start on the SAME database file, in the
// returning tab (reloaded: its storage kept) and in a fresh profile; and again after the demo organization's
// clock moved a day forward through the admin API. No field is edited by hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSpec, operations } from '@payments/spec';
import { DEMO_NAME } from '../../packages/sandbox/src/demo-organization.ts';
import { serveSandbox, type ServedSandbox } from '../../packages/sandbox/src/serve.ts';
import { launchChromium, type LaunchedChromium } from '../../tools/lib/chromium.ts';
import { bundledJson, bundledYaml, docsDir } from '../../tools/lib/paths.ts';

const MENU = '[data-component-name="Menu/Menu"]';
const WAIT_MS = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const doc = loadSpec();
const summaryOf = (operationId: string) => String(operations(doc).find((o) => o.operationId === operationId)!.operation.summary);

const dataDir = mkdtempSync(join(tmpdir(), 'docs-first-payment-'));
const databaseFile = join(dataDir, 'sandbox.db');
let served: ServedSandbox | undefined;
const browsers: LaunchedChromium[] = [];
const pageErrors: string[] = [];
let returning: Page | undefined;

/** `npm start`: the sandbox on the database file with the docs, a demo organization and a new demo key. */
async function start(port: number): Promise<ServedSandbox> {
  return serveSandbox({ port, file: databaseFile, site: { docsDir, specJson: bundledJson, specYaml: bundledYaml } });
}

/** A tab in a fresh browser profile (nothing in its storage). */
async function freshTab(): Promise<Page> {
  const browser = await launchChromium();
  browsers.push(browser);
  browser.context.setDefaultTimeout(WAIT_MS * 2);
  const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
  await tab.setViewportSize({ width: 1366, height: 900 });
  tab.on('pageerror', (error) => pageErrors.push(error.message));
  return tab;
}

async function send(tab: Page): Promise<{ status: number; body: Record<string, unknown> }> {
  const before = await tab.locator('#try-it .ti-history li').count();
  await tab.keyboard.press('Enter');
  await tab.locator('#try-it .ti-history li').nth(before).waitFor({ timeout: WAIT_MS * 2 });
  return { status: Number((await tab.locator('#try-it .ti-status').innerText()).split(' ')[0]), body: JSON.parse(await tab.locator('#try-it .ti-body').innerText()) as Record<string, unknown> };
}

/**
 * The docs' home → sidebar Banking → Create a transfer → Try it → Send, Send. A fresh tab's body carries the
 * spec's sample recipientId, so it first takes "Create one … with fresh values"; a returning tab's body
 * carries the recipient it created before (kept in the tab's sessionStorage), so it sends right away.
 */
async function firstPayment(tab: Page, sandbox: ServedSandbox): Promise<{ transferId: string; recipientId: string; createdRecipient: boolean }> {
  await tab.goto(`${sandbox.sandbox.url}/docs/`, { waitUntil: 'load', timeout: WAIT_MS * 6 });
  await tab.locator(MENU).getByText('Banking', { exact: true }).click();
  await tab.locator(MENU).getByText(summaryOf('createTransfer'), { exact: true }).click();
  // A returning tab may have kept its console open; a fresh one shows the launcher.
  await expect.poll(async () => (await tab.locator('#try-it').isVisible()) || (await tab.locator('.try-it-launcher').isVisible()), { timeout: WAIT_MS * 2 }).toBe(true);
  if (!(await tab.locator('#try-it').isVisible())) await tab.locator('.try-it-launcher').click();
  await expect.poll(() => tab.locator('#try-it .ti-endpoint').innerText(), { timeout: WAIT_MS }).toContain('/v1/banking/transfers');
  await expect.poll(() => tab.locator('#ti-api-key').inputValue(), { timeout: WAIT_MS }).toMatch(/\S/);
  const createdRecipient = await tab.locator('#try-it .ti-prereq button').isVisible();
  if (createdRecipient) {
    await tab.locator('#try-it .ti-prereq button').click();
    await expect.poll(() => tab.locator('#try-it .ti-prereq').innerText(), { timeout: WAIT_MS * 2 }).toContain('it is in the body now');
    expect(await tab.evaluate(() => document.activeElement?.textContent), 'focus on Send after the recipient is created').toBe('Send');
  } else {
    await tab.locator('#try-it .ti-send').click();
    await tab.locator('#try-it .ti-history li').first().waitFor({ timeout: WAIT_MS * 2 });
  }
  const recipientId = String((JSON.parse(await tab.locator('#ti-body').inputValue()) as { recipientId: unknown }).recipientId);
  const first = createdRecipient ? await send(tab) : { status: Number((await tab.locator('#try-it .ti-status').innerText()).split(' ')[0]), body: JSON.parse(await tab.locator('#try-it .ti-body').innerText()) as Record<string, unknown> };
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  const second = await send(tab);
  expect(second.status, JSON.stringify(second.body)).toBe(201);
  expect(second.body.id, 'the replay answers with the same transfer').toBe(first.body.id);
  expect(await tab.locator('#try-it .ti-replay').innerText()).toContain('replayed the original result');
  return { transferId: String(first.body.id), recipientId, createdRecipient };
}

beforeAll(async () => {
  served = await start(0);
});

afterAll(async () => {
  for (const browser of browsers) await browser.close();
  await served?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a first payment from the docs succeeds every time (fresh tab, returning tab, second npm start, second day)', () => {
  const paid: string[] = [];
  let firstRecipient = '';

  it('first start, fresh profile: creates a recipient, pays, and the second Send is the replay', { timeout: 120_000 }, async () => {
    returning = await freshTab();
    const first = await firstPayment(returning, served!);
    expect(first.createdRecipient, 'a fresh tab is offered "Create one"').toBe(true);
    firstRecipient = first.recipientId;
    paid.push(first.transferId);
  });

  it('second start on the same database file: the returning tab and a fresh profile each pay again', { timeout: 180_000 }, async () => {
    const port = served!.sandbox.port;
    await served!.close();
    served = undefined;
    // The same port when it is still free (the returning tab's origin, so its storage applies), else any.
    served = await start(port);
    const organizations = await served.sandbox.store.transaction((tx) => tx.listOrganizations());
    expect(organizations.filter((o) => o.name === DEMO_NAME), 'one demo organization, reused').toHaveLength(1);
    const again = await firstPayment(returning!, served);
    expect(again.createdRecipient, 'the returning tab pays its own recipient').toBe(false);
    expect(again.recipientId).toBe(firstRecipient);
    const fresh = await firstPayment(await freshTab(), served);
    expect(fresh.createdRecipient, 'a fresh profile creates another recipient (fresh nickname and PIX key: no 409)').toBe(true);
    expect(fresh.recipientId).not.toBe(firstRecipient);
    paid.push(again.transferId, fresh.transferId);
  });

  it('a day later on the demo organization\'s clock (admin API): the returning tab and a fresh profile pay again', { timeout: 180_000 }, async () => {
    const sandbox = served!.sandbox;
    const organizations = await sandbox.store.transaction((tx) => tx.listOrganizations());
    const demo = organizations.find((o) => o.name === DEMO_NAME)!;
    const advanced = await fetch(`${sandbox.url}/admin/organizations/${demo.id}/clock/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ milliseconds: DAY_MS }),
    });
    expect(advanced.status, await advanced.clone().text()).toBe(200);
    paid.push((await firstPayment(returning!, served!)).transferId);
    paid.push((await firstPayment(await freshTab(), served!)).transferId);
    expect(new Set(paid).size, 'each payment is a new transfer').toBe(paid.length);
    expect(pageErrors).toEqual([]);
  });
});

/** The docs' home → sidebar Banking → the operation → its console, with the demo key filled in. */
async function openConsole(tab: Page, operationId: string): Promise<void> {
  await tab.goto(`${served!.sandbox.url}/docs/`, { waitUntil: 'load', timeout: WAIT_MS * 6 });
  await tab.locator(MENU).getByText('Banking', { exact: true }).click();
  await tab.locator(MENU).getByText(summaryOf(operationId), { exact: true }).click();
  await tab.locator('.try-it-launcher').click();
  await expect.poll(() => tab.locator('#ti-api-key').inputValue(), { timeout: WAIT_MS }).toMatch(/\S/);
}

const keyInput = (tab: Page) => tab.locator('#try-it input[data-name="Idempotency-Key"]');

// QA: the console put a new request in the body under the key of the old one. After a 404 for the spec's
// sample recipient, "Create one" then Send answered 409 banking_transfer_idempotency_conflict; another example
// under a used key answered with the first request's result, called "nothing was created twice".
describe('the console gives a new request a new key', () => {
  it('after a 404 for the sample recipient, "Create one" renews the key: the next Send pays', { timeout: 120_000 }, async () => {
    const tab = await freshTab();
    await openConsole(tab, 'createTransfer');
    const before = await keyInput(tab).inputValue();
    await tab.locator('#try-it .ti-send').focus();
    const refused = await send(tab);
    expect(refused.status, JSON.stringify(refused.body)).toBe(404);
    await tab.locator('#try-it .ti-prereq button').click();
    await expect.poll(() => tab.locator('#try-it .ti-prereq').innerText(), { timeout: WAIT_MS * 2 }).toContain('it is in the body now');
    expect(await keyInput(tab).inputValue()).not.toBe(before);
    const paid = await send(tab);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  });

  // QA (2026-11-29-d): the transfer with its amount as a number, sent under the key of the same transfer with
  // its amount as a string, was called "another request … press New key", and picking that example made a new
  // key, so that sending it paid a second time.
  it('the same transfer written another way (its amount as a number) keeps its key, and sending it is told a replay', { timeout: 120_000 }, async () => {
    const tab = await freshTab();
    await openConsole(tab, 'createTransfer');
    await tab.locator('#try-it .ti-prereq button').click();
    await expect.poll(() => tab.locator('#try-it .ti-prereq').innerText(), { timeout: WAIT_MS * 2 }).toContain('it is in the body now');
    const first = await send(tab);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const used = await keyInput(tab).inputValue();
    await tab.locator('#ti-example').selectOption({ label: 'The same transfer with the amount as a number' });
    expect(JSON.parse(await tab.locator('#ti-body').inputValue())).toMatchObject({ amount: 150 });
    expect(await keyInput(tab).inputValue(), 'the same request keeps its key').toBe(used);
    await tab.locator('#try-it .ti-send').focus();
    const again = await send(tab);
    expect(again.body.id, 'replayed, not paid twice').toBe(first.body.id);
    expect(await tab.locator('#try-it .ti-replay').innerText()).toContain('the sandbox replayed the original result');
    expect(await tab.locator('#try-it .ti-other-request').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('another example renews the key; an edited body sent under a used key is not called a replay', { timeout: 120_000 }, async () => {
    const tab = await freshTab();
    await openConsole(tab, 'createRecipient');
    await tab.locator('#try-it .ti-send').focus();
    const first = await send(tab);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const body = JSON.parse(await tab.locator('#ti-body').inputValue()) as Record<string, unknown>;
    await tab.locator('#ti-body').fill(JSON.stringify({ ...body, nickname: `${String(body.nickname)} (edited)` }, null, 2));
    await tab.locator('#try-it .ti-send').focus();
    const edited = await send(tab);
    expect(edited.body.id, 'the key keeps its first request').toBe(first.body.id);
    expect(await tab.locator('#try-it .ti-response').innerText()).not.toContain('nothing was created twice');
    expect(await tab.locator('#try-it .ti-other-request').innerText()).toContain('A new request takes a new key');
    const used = await keyInput(tab).inputValue();
    await tab.locator('#ti-example').selectOption({ index: 1 });
    expect(await keyInput(tab).inputValue(), 'another example, another key').not.toBe(used);
    await tab.locator('#try-it .ti-send').focus();
    const other = await send(tab);
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(other.body.id, 'the other example made its own recipient').not.toBe(first.body.id);
    expect(pageErrors).toEqual([]);
  });
});

// QA (2026-11-29-d): after the sandbox restarted on a new database, a returning tab kept the demo key it had
// been given, which the new database does not know: every Send answered 401 with no hint.
describe('the demo key the console filled in follows the sandbox it is served by', () => {
  it('a restart on a new database: the reloaded tab takes the new demo key; a 401 with a typed key offers it', { timeout: 120_000 }, async () => {
    const other = mkdtempSync(join(dataDir, 'other-'));
    let first: ServedSandbox | undefined = await serveSandbox({ port: 0, file: join(other, 'a.db'), site: { docsDir, specJson: bundledJson, specYaml: bundledYaml } });
    let second: ServedSandbox | undefined;
    try {
      const port = first.sandbox.port;
      const tab = await freshTab();
      const openBalance = async (reload = false) => {
        // The same URL again is a fragment navigation (nothing reloads): the returning tab reloads instead.
        if (reload) await tab.reload({ waitUntil: 'load', timeout: WAIT_MS * 6 });
        else await tab.goto(`http://127.0.0.1:${port}/docs/#/banking/getbankingbalance`, { waitUntil: 'load', timeout: WAIT_MS * 6 });
        // A returning tab may have kept its console open; a fresh one shows the launcher.
        await expect.poll(async () => (await tab.locator('#try-it').isVisible()) || (await tab.locator('.try-it-launcher').isVisible()), { timeout: WAIT_MS * 2 }).toBe(true);
        if (!(await tab.locator('#try-it').isVisible())) await tab.locator('.try-it-launcher').click();
      };
      await openBalance();
      await expect.poll(() => tab.locator('#ti-api-key').inputValue(), { timeout: WAIT_MS }).toBe(first.demoKey);
      await first.close();
      first = undefined;
      second = await serveSandbox({ port, file: join(other, 'b.db'), site: { docsDir, specJson: bundledJson, specYaml: bundledYaml } });
      expect(second.sandbox.port, 'the same origin, so the tab keeps its storage').toBe(port);
      await openBalance(true);
      await expect.poll(() => tab.locator('#ti-api-key').inputValue(), { timeout: WAIT_MS }).toBe(second.demoKey);
      await tab.locator('#try-it .ti-send').focus();
      expect((await send(tab)).status).toBe(200);
      // A key the reader typed stays as typed; its 401 offers the sandbox's demo key.
      await tab.locator('#ti-api-key').fill('svc_live_typedByTheReaderButUnknownHere0');
      await tab.locator('#try-it .ti-send').focus();
      expect((await send(tab)).status).toBe(401);
      await tab.locator('#try-it .ti-response').getByRole('button', { name: "Use this sandbox's demo key" }).click();
      expect(await tab.locator('#ti-api-key').inputValue()).toBe(second.demoKey);
      await tab.locator('#try-it .ti-send').focus();
      expect((await send(tab)).status).toBe(200);
      expect(pageErrors).toEqual([]);
    } finally {
      await first?.close();
      await second?.close();
    }
  });
});
