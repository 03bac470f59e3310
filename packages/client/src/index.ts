export { createPaymentsClient, type PaymentsClient, type PaymentsClientOptions, type Result, type LogEvent, type CallOptions } from './client.ts';
export { ApiError, AbortError, EdgeError, NetworkError, PaymentsError, ResponseError, TimeoutError, ValidationError, isApiError } from './errors.ts';
export { deriveIdempotencyKey, newIdempotencyKey, KEY_NAMESPACE } from './idempotency.ts';
export { defaultRetryPolicy, policyFor, type RetryMode, type RetryOn, type RetryOptions, type RetryPolicy } from './policy.ts';
export { classifyTransfer, type TransferOutcome } from './transfer-outcome.ts';
export type { RetryEvent } from './retry-fetch.ts';
export type { SetTimer } from './deadlines.ts';
export type { NextStep } from './next-step.ts';
export { normalizeAmount } from './validate.ts';
