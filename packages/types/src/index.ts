// The names consumers need, over the generated types (./generated, never edited by hand).
import type { components, operations, paths } from './generated/openapi.ts';
import type { errorCodes } from './generated/error-codes.ts';

export type { components, operations, paths };
export { errorCodes } from './generated/error-codes.ts';

type Schemas = components['schemas'];
export type Transfer = Schemas['Transfer'];
export type TransferStatus = Schemas['TransferStatus'];
export type TransferCreate = Schemas['TransferCreate'];
export type Recipient = Schemas['Recipient'];
export type RecipientCreate = Schemas['RecipientCreate'];
export type Rail = Schemas['Rail'];
export type Balance = Schemas['Balance'];
export type Card = Schemas['Card'];
export type CardCreate = Schemas['CardCreate'];
export type CheckoutProduct = Schemas['CheckoutProduct'];
export type CheckoutProductCreate = Schemas['CheckoutProductCreate'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type CheckoutSessionCreate = Schemas['CheckoutSessionCreate'];
export type Amount = Schemas['Amount'];
/** The shared error body of every 4xx/5xx except the edge's 502/504. */
export type ErrorBody = Schemas['Error'];

export type OperationId = keyof operations;
/** The error codes the spec gives an operation (any status, or one status). Unknown codes can still come. */
export type ErrorCode<Op extends OperationId, Status extends keyof (typeof errorCodes)[Op] = keyof (typeof errorCodes)[Op]> =
  (typeof errorCodes)[Op][Status] extends readonly (infer C)[] ? C : never;
