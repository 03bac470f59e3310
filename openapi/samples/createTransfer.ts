// Docs sample for createTransfer (POST /v1/banking/transfers). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { classifyTransfer, createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey, recipientId }: { baseUrl: string; apiKey: string; recipientId: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  // Derive the key from your own id for this payment and store it BEFORE sending: it is how you resume.
  const idempotencyKey = await deriveIdempotencyKey('createTransfer', 'order-1001');
  let outcome;
  try {
    outcome = classifyTransfer(
      await payments.POST('/v1/banking/transfers', { body: { recipientId, amount: '150.00' }, idempotencyKey }),
    );
  } catch (err) {
    outcome = classifyTransfer(err); // every PaymentsError carries idempotencyKey, attempts, retryable
  }

  switch (outcome.kind) {
    case 'resolved': // 201 pending/completed: track the transfer, never send again
      console.log('paid', outcome.transfer.id, outcome.transfer.status);
      return outcome.transfer;
    case 'closed': // 201 failed/cancelled: this attempt is over; a new attempt needs a NEW key
      console.log('not paid', outcome.transfer.status);
      return outcome.transfer;
    case 'pending_review': // 409: never a new key; contact support if it lasts
    case 'unresolved': // 503/502/504/timeout after the retry budget: retry LATER with the SAME key
      console.log('retry later with', outcome.idempotencyKey);
      throw outcome.error;
    case 'rejected': // a definite 4xx: nothing was paid under this key
      throw outcome.error;
  }
  // sample:end
}
