// Docs sample for createRecipient (POST /v1/banking/recipients). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: recipient } = await payments.POST('/v1/banking/recipients', {
      body: { rail: 'brl_pix', nickname: 'Maria Souza (supplier)', pixKey: 'maria.souza@example.com' },
      // Derived from your own stable id: a retry after a crash sends the same key and gets the same recipient.
      idempotencyKey: await deriveIdempotencyKey('createRecipient', 'supplier-4411'),
    });
    console.log(recipient.id);
    return recipient;
  } catch (err) {
    if (err instanceof ApiError) console.error(err.status, err.code, err.message); // e.g. 409 recipient_nickname_already_exists
    throw err;
  }
  // sample:end
}
