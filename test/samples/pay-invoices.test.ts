// examples/pay-invoices against a sandbox with injected faults, in virtual time: every outcome of
// classifyTransfer, a crash mid-run (the second run resumes), each invoice paid exactly once.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deriveIdempotencyKey, type PaymentsClientOptions } from '@payments/client';
import { startSandbox, type RunningSandbox } from '../../packages/sandbox/src/sandbox.ts';
import { adminOf, call } from '../../packages/sandbox/test/support.ts';
import { payInvoices, type Invoice, type PayState } from '../../examples/pay-invoices/index.ts';

let sandbox: RunningSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({});
  dir = await mkdtemp(join(tmpdir(), 'pay-invoices-'));
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

class Crash extends Error {
  override name = 'Crash';
}

it('pays every invoice exactly once across a crash, faults and reruns', async () => {
  const admin = adminOf(sandbox);
  const { org, key: apiKey } = await admin.org();
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', {
    key: apiKey,
    idem: crypto.randomUUID(),
    body: { rail: 'brl_pix', nickname: 'Supplier', pixKey: 'supplier@example.com' },
  });
  expect(recipient.status, recipient.text).toBe(201);
  const recipientId = recipient.body.id as string;

  const invoices: Invoice[] = [
    { invoiceId: 'inv-503', recipientId, amount: '10.00' }, // 503, the client waits 60 s (virtual), same key → paid
    { invoiceId: 'inv-502', recipientId, amount: 11 }, // edge 502 after the commit: the retry replays it
    { invoiceId: 'inv-drop', recipientId, amount: '12.00' }, // connection cut after the commit: the retry replays it
    { invoiceId: 'inv-closed', recipientId, amount: '14.00' }, // 503, the retry resolves it as failed: closed
    { invoiceId: 'inv-review', recipientId, amount: '15.00' }, // 409 pending review: flagged; the next run asks again
    { invoiceId: 'inv-later', recipientId, amount: '16.00' }, // 503 on every attempt until the client's deadline: unresolved
    { invoiceId: 'inv-crash', recipientId, amount: '17.00' }, // committed, then the process "dies" while waiting to retry
    { invoiceId: 'inv-plain', recipientId, amount: '18.00' }, // first sent by the second run (after the crash)
    { invoiceId: 'inv-rejected', recipientId, amount: '13.13' }, // pix_payout_rejected: nothing paid
    { invoiceId: 'inv-no-recipient', recipientId: 'rcp_01JD7Q2W5E3R4T6Y8U9I0O1P2A', amount: '19.00' }, // recipient_not_found
  ];
  const faults: Record<string, Record<string, unknown>> = {
    'inv-503': { kind: 'unavailable', resolution: 'completed' },
    'inv-502': { kind: 'edge_502', commit: true },
    'inv-drop': { kind: 'drop_after_commit' },
    'inv-closed': { kind: 'unavailable', resolution: 'failed' },
    'inv-review': { kind: 'pending_review', resolution: 'completed' },
    'inv-later': { kind: 'unavailable', count: 1000 }, // outlasts the client's retry budget; cleared by the next invoice
    'inv-crash': { kind: 'drop_after_commit' },
  };
  const keyOf = new Map<string, string>();
  for (const invoice of invoices) keyOf.set(await deriveIdempotencyKey('createTransfer', invoice.invoiceId), invoice.invoiceId);

  // Virtual time, and a wire log. Faults are added just before an invoice's first request (faults are taken
  // by whichever request comes next), so each invoice meets exactly its own.
  let clock = Date.parse('2030-01-01T00:00:00Z');
  let run = 0;
  let crashOnSleep = false;
  const sleeps: number[] = [];
  const posts: { run: number; invoiceId: string }[] = [];
  const seen = new Set<string>();
  const clientOptions: PaymentsClientOptions = {
    apiKey,
    baseUrl: sandbox.url,
    now: () => clock,
    random: () => 0.5,
    sleep: async (ms) => {
      if (crashOnSleep) throw new Crash('the process died while waiting to retry');
      sleeps.push(ms);
      clock += ms;
    },
    fetch: async (request, init) => {
      const invoiceId = keyOf.get(request.headers.get('idempotency-key') ?? '');
      if (invoiceId) {
        posts.push({ run, invoiceId });
        if (run === 1 && !seen.has(invoiceId)) {
          seen.add(invoiceId);
          // inv-later's fault outlasts its own call: the next invoice starts without it.
          if (invoiceId !== 'inv-later') await admin.req('DELETE', '/faults');
          const fault = faults[invoiceId];
          if (fault) await admin.fault({ operationId: 'createTransfer', count: 1, organizationId: org.id, ...fault });
          if (invoiceId === 'inv-crash') crashOnSleep = true;
        }
      }
      return fetch(request, init);
    },
  };
  const statePath = join(dir, 'state.json');
  const readState = async () => JSON.parse(await readFile(statePath, 'utf8')) as PayState;
  const transfers = () => sandbox.store.transaction((tx) => tx.countTransfers(org.id));
  const quiet = () => {};

  // Run 1 "crashes" at inv-crash: the state says `sending` for it, with its key, and nothing after it was sent.
  run = 1;
  await expect(payInvoices({ invoices, statePath, clientOptions, log: quiet })).rejects.toBeInstanceOf(Crash);
  crashOnSleep = false;
  const afterCrash = await readState();
  expect(Object.fromEntries(Object.values(afterCrash.invoices).map((i) => [i.invoiceId, i.status]))).toEqual({
    'inv-503': 'paid',
    'inv-502': 'paid',
    'inv-drop': 'paid',
    'inv-closed': 'failed',
    'inv-review': 'pending_review',
    'inv-later': 'unresolved',
    'inv-crash': 'sending',
  });
  expect(afterCrash.invoices['inv-crash']!.idempotencyKey).toBe(await deriveIdempotencyKey('createTransfer', 'inv-crash'));
  expect(afterCrash.invoices['inv-closed']!.transferStatus).toBe('failed');
  expect(afterCrash.invoices['inv-review']!.errorCode).toBe('banking_transfer_attempt_pending_review');
  expect(afterCrash.invoices['inv-later']!.errorCode).toBe('temporarily_unavailable');
  expect(sleeps.some((ms) => ms >= 60_000)).toBe(true); // the 503's first wait, in virtual time
  expect(await transfers()).toBe(5); // 503, 502, drop, closed (a failed transfer), crash (committed before the cut)
  expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

  // Run 2 resumes: the crashed invoice and the open ones with their SAME keys, the rest for the first time.
  run = 2;
  const second = await payInvoices({ invoices, statePath, clientOptions, log: quiet });
  expect(second.sent.sort()).toEqual(['inv-crash', 'inv-later', 'inv-no-recipient', 'inv-plain', 'inv-rejected', 'inv-review']);
  expect(second.skipped.sort()).toEqual(['inv-502', 'inv-503', 'inv-closed', 'inv-drop']);
  const final = await readState();
  const status = Object.fromEntries(Object.values(final.invoices).map((i) => [i.invoiceId, i.status]));
  expect(status).toEqual({
    'inv-503': 'paid',
    'inv-502': 'paid',
    'inv-drop': 'paid',
    'inv-closed': 'failed',
    'inv-review': 'paid',
    'inv-later': 'paid',
    'inv-crash': 'paid',
    'inv-plain': 'paid',
    'inv-rejected': 'rejected',
    'inv-no-recipient': 'rejected',
  });
  expect(final.invoices['inv-rejected']!.errorCode).toBe('pix_payout_rejected');
  expect(final.invoices['inv-no-recipient']!.errorCode).toBe('recipient_not_found');
  // The crashed invoice's transfer is the one committed in run 1: its resend was a replay.
  expect(await transfers()).toBe(8); // + review, later, plain; the crash's resend created none

  // Each invoice with a transfer has exactly one, under its own key, with its amount.
  const ids = Object.values(final.invoices).flatMap((i) => (i.transferId ? [i.transferId] : []));
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toHaveLength(await transfers());
  for (const entry of Object.values(final.invoices)) {
    if (!entry.transferId) continue;
    const record = await sandbox.store.transaction((tx) => tx.getTransfer(org.id, entry.transferId!));
    expect(record?.idempotencyKey).toBe(entry.idempotencyKey);
    const invoice = invoices.find((i) => i.invoiceId === entry.invoiceId)!;
    expect(record?.amount).toBe(Number(invoice.amount).toFixed(2));
  }

  // Run 3: every invoice is final (paid, failed: needs a new key, rejected: needs a human): nothing is sent.
  run = 3;
  const third = await payInvoices({ invoices, statePath, clientOptions, log: quiet });
  expect(third.sent).toEqual([]);
  expect(posts.filter((p) => p.run === 3)).toEqual([]);
  expect(await transfers()).toBe(8);
});
