// Docs sample for createCheckoutSession (POST /v1/checkout/sessions). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, ValidationError, createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: session } = await payments.POST('/v1/checkout/sessions', {
      body: { amount: '37.45', paymentMethod: 'pix' }, // amount OR discountPercent, never both
      idempotencyKey: await deriveIdempotencyKey('createCheckoutSession', 'cart-5521'),
    });
    console.log(session);
    return session;
  } catch (err) {
    if (err instanceof ValidationError) console.error('not sent:', err.code); // checked before sending
    else if (err instanceof ApiError) console.error(err.status, err.code, err.message); // e.g. 503 checkout_pix_not_available
    throw err;
  }
  // sample:end
}
