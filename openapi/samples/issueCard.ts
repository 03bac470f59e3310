// Docs sample for issueCard (POST /v1/cards). The docs show the lines between the `sample:start` /
// `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: card } = await payments.POST('/v1/cards', {
      body: {}, // the provider's document shows no fields
      idempotencyKey: await deriveIdempotencyKey('issueCard', 'employee-0042'),
    });
    console.log(card);
    return card;
  } catch (err) {
    // e.g. 403 authorized_user_terms_required: accept the card terms in the dashboard first
    if (err instanceof ApiError) console.error(err.status, err.code, err.message);
    throw err;
  }
  // sample:end
}
