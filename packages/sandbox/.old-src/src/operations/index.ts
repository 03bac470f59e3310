import type { OperationHandler } from './context.ts';
import { createRecipient, createTransfer, getBankingBalance, getTransfer } from './banking.ts';
import { issueCard } from './cards.ts';
import { createCheckoutProduct, createCheckoutSession } from './checkout.ts';

/** Handlers by operationId. The app checks at start-up that this covers every operation of the spec. */
export const handlers: Record<string, OperationHandler> = {
  getBankingBalance,
  createRecipient,
  createTransfer,
  getTransfer,
  issueCard,
  createCheckoutProduct,
  createCheckoutSession,
};
