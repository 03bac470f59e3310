// Compiled by test/packages.test.ts with plain consumer settings (no path mapping, no .ts imports):
// everything here resolves through the packages' `exports` and their built declarations. The
// expect-error directives prove the types are real: if a type decayed to `any`, they would fail.
import type { ErrorBody, ErrorCode, Transfer, TransferStatus, paths } from '@payments/types';
import { errorCodes } from '@payments/types';
import { ApiError, classifyTransfer, createPaymentsClient, deriveIdempotencyKey, isApiError } from '@payments/client';

const status: TransferStatus = 'pending';
// @ts-expect-error not a documented transfer status
const wrong: TransferStatus = 'settled';

const conflict: ErrorCode<'createTransfer'> = 'banking_transfer_idempotency_conflict';
// @ts-expect-error a code of another operation
const notHere: ErrorCode<'createTransfer'> = 'checkout_pix_not_available';
const pending: ErrorCode<'createTransfer', '409'> = 'banking_transfer_attempt_pending_review';

const body: ErrorBody = { error: 'x', code: 'recipient_not_found', requestId: '9f0c2a6e-3b1d-4c55-8e2a-7d4f1b6a0c11' };
type TransferPath = keyof paths & '/v1/banking/transfers';
const codes: readonly string[] = errorCodes.createTransfer['409'];

export async function payInvoice(invoiceId: string): Promise<Transfer | undefined> {
  const client = createPaymentsClient({ apiKey: 'svc_live_example', baseUrl: 'http://127.0.0.1:4010' });
  const idempotencyKey = await deriveIdempotencyKey('createTransfer', invoiceId);
  try {
    const result = await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1', amount: '150.00' }, idempotencyKey });
    const outcome = classifyTransfer(result);
    return outcome.kind === 'resolved' ? outcome.transfer : undefined;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'recipient_not_found') return undefined;
    throw err;
  }
}

/** Error codes are typed per operation (read from the spec); a code the spec does not know still comes through. */
export function branch(err: unknown): string {
  if (isApiError(err, 'createTransfer', 'banking_transfer_attempt_pending_review', 'banking_transfer_idempotency_conflict')) {
    const narrowed: 'banking_transfer_attempt_pending_review' | 'banking_transfer_idempotency_conflict' = err.code;
    return narrowed;
  }
  // @ts-expect-error a misspelled code is a type error
  if (isApiError(err, 'createTransfer', 'banking_transfer_idempotency_conflit')) return 'never';
  // @ts-expect-error a code of another operation
  if (isApiError(err, 'createTransfer', 'checkout_pix_not_available')) return 'never';
  // @ts-expect-error not an operation
  if (isApiError(err, 'createTransfers')) return 'never';
  if (isApiError(err, 'createTransfer')) {
    const code: ErrorCode<'createTransfer'> | (string & {}) = err.code;
    const operation: 'createTransfer' = err.operationId;
    switch (err.code) {
      case 'recipient_not_found':
        return 'fix the recipient';
      default:
        return `${operation}: ${code}`; // a code newer than this build of the types
    }
  }
  return 'not an API error';
}

export async function wrongCalls(): Promise<void> {
  const client = createPaymentsClient({ apiKey: 'svc_live_example', baseUrl: 'http://127.0.0.1:4010' });
  // @ts-expect-error not a documented path
  await client.POST('/v1/banking/transfer', { body: {} });
  // @ts-expect-error amount is required on a transfer
  await client.POST('/v1/banking/transfers', { body: { recipientId: 'rcp_1' } });
  const balance = await client.GET('/v1/banking/balance');
  const first: string | undefined = balance.data.balances?.[0]?.currency;
  void first;
}

void [status, wrong, conflict, notHere, pending, body, codes, null as unknown as TransferPath];
