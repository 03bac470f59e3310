// Docs sample for getBankingBalance (GET /v1/banking/balance). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, createPaymentsClient } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: balance } = await payments.GET('/v1/banking/balance');
    console.log(balance);
    return balance;
  } catch (err) {
    if (err instanceof ApiError) console.error(err.status, err.code, err.message); // e.g. 403 banking_api_access_not_enabled
    throw err;
  }
  // sample:end
}
