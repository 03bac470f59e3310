// Docs sample for createCheckoutProduct (POST /v1/checkout/products). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, createPaymentsClient, deriveIdempotencyKey } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: product } = await payments.POST('/v1/checkout/products', {
      body: {}, // the provider's document shows no fields
      idempotencyKey: await deriveIdempotencyKey('createCheckoutProduct', 'sku-7781'),
    });
    console.log(product);
    return product;
  } catch (err) {
    if (err instanceof ApiError) console.error(err.status, err.code, err.message); // e.g. 403 api_access_disabled
    throw err;
  }
  // sample:end
}
