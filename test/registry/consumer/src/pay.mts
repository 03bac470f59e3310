// The consumer's own test against the sandbox (`npm test` in the CI job of the guide "Test your integration"):
// a recipient, then a transfer paid with @payments/client under a key derived from the order's id, replayed
// once with the same key (the same transfer comes back). Exit 0 when the transfer was created and replayed.
import { createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
import type { Transfer } from '@payments/types';

const baseUrl = process.env.PAYMENTS_BASE_URL;
const apiKey = process.env.PAYMENTS_API_KEY;
if (!baseUrl || !apiKey) throw new Error('set PAYMENTS_BASE_URL and PAYMENTS_API_KEY');

const payments = createPaymentsClient({ apiKey, baseUrl });
const recipient = await payments.POST('/v1/banking/recipients', {
  body: { rail: 'brl_pix', nickname: `Supplier ${Date.now()}`, pixKey: `supplier.${Date.now()}@example.com` },
  idempotencyKey: await deriveIdempotencyKey('createRecipient', `supplier-${Date.now()}`),
});
const idempotencyKey = await deriveIdempotencyKey('createTransfer', `order-${Date.now()}`);
const pay = () => payments.POST('/v1/banking/transfers', { body: { recipientId: recipient.data.id, amount: '150.00' }, idempotencyKey });
const first = await pay();
const replay = await pay();
const transfer: Transfer = first.data;
console.log(JSON.stringify({ status: first.response.status, transfer: transfer.id, transferStatus: transfer.status, replayedSame: replay.data.id === transfer.id }));
if (first.response.status !== 201 || replay.data.id !== transfer.id) process.exitCode = 1;
