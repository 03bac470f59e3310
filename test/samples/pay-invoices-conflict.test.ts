// examples/pay-invoices on a 409 banking_transfer_idempotency_conflict (the invoice's key already paid
// another amount: the invoice was edited after an unresolved send): recorded as `key_conflict` with the
// request id for a human, never sent again, and never reported as "nothing was paid" (`rejected`).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPaymentsClient } from '@payments/client';
import { payInvoices } from '../../examples/pay-invoices/index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pay-invoices-conflict-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('a key conflict is flagged for a human and never sent again', async () => {
  const sent: string[] = [];
  const client = createPaymentsClient({
    apiKey: 'svc_live_payinvoicesconflict',
    baseUrl: 'http://127.0.0.1:1',
    fetch: async (request) => {
      sent.push(request.headers.get('idempotency-key')!);
      const code = 'banking_transfer_idempotency_conflict';
      return Response.json({ error: 'key used for another amount', code, requestId: '1bc17391-f5ec-4052-87bb-4b3291b88b3d' }, { status: 409 });
    },
  });
  const statePath = join(dir, 'state.json');
  const invoices = [{ invoiceId: 'inv-edited', recipientId: 'rcp_1', amount: '12.00' }];
  const first = await payInvoices({ invoices, statePath, client, log: () => {} });
  expect(first.state.invoices['inv-edited']).toMatchObject({
    status: 'key_conflict',
    errorCode: 'banking_transfer_idempotency_conflict',
    requestId: '1bc17391-f5ec-4052-87bb-4b3291b88b3d',
  });
  expect(sent).toHaveLength(1);
  const second = await payInvoices({ invoices, statePath, client, log: () => {} });
  expect(second.skipped).toEqual(['inv-edited']);
  expect(sent).toHaveLength(1);
});
