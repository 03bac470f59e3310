// Docs sample for getTransfer (GET /v1/banking/transfers/{transferId}). The docs show the lines between the
// `sample:start` / `sample:end` markers; test/samples runs `run()` against the sandbox.
// sample:start
import { ApiError, createPaymentsClient } from '@payments/client';
// sample:end

export async function run({ baseUrl, apiKey, transferId }: { baseUrl: string; apiKey: string; transferId: string }): Promise<unknown> {
  // sample:start
  const payments = createPaymentsClient({ apiKey, baseUrl }); // apiKey: svc_live_…, server-side only

  try {
    const { data: transfer } = await payments.GET('/v1/banking/transfers/{transferId}', {
      params: { path: { transferId } },
    });
    console.log(transfer.id, transfer.status); // pending → completed, or failed/cancelled
    return transfer;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) console.error('no such transfer in this organization');
    throw err;
  }
  // sample:end
}
