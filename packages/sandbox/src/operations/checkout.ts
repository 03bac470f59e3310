// Checkout: products, and sessions whose request identity is the normalized amount, discountPercent and
// payment method. PIX needs the organization to be set up for it.
import { Failure } from '../failure.ts';
import { normalizeAmount } from '../money.ts';
import { compact, type OperationHandler } from './context.ts';

export const createCheckoutProduct: OperationHandler = {
  fingerprint: (body) => JSON.stringify(body),
  async run({ tx, org, body, idempotencyKey, now, newId }) {
    const product = { ...body, id: newId('prd'), idempotencyKey: idempotencyKey! };
    await tx.insertResource({ id: product.id, organizationId: org.id, kind: 'checkout_product', idempotencyKey: idempotencyKey!, body: product, createdAt: now });
    return { status: 201, body: product };
  },
};

/** PIX however it is written (`pix`, `PIX`): the document names the method, not its spelling (PaymentMethod's x-assumed). */
const isPix = (method: unknown): boolean => typeof method === 'string' && method.toLowerCase() === 'pix';

export const createCheckoutSession: OperationHandler = {
  fingerprint: (body) =>
    JSON.stringify([body.amount === undefined ? null : normalizeAmount(body.amount), body.discountPercent ?? null, body.paymentMethod ?? null]),
  async run({ tx, org, body, idempotencyKey, now, newId }) {
    if (isPix(body.paymentMethod) && !org.checkoutPix) throw new Failure('checkout_pix_not_available');
    const session = compact({
      ...body,
      id: newId('cks'),
      amount: body.amount === undefined ? undefined : normalizeAmount(body.amount),
      idempotencyKey: idempotencyKey!,
    });
    await tx.insertResource({ id: String(session.id), organizationId: org.id, kind: 'checkout_session', idempotencyKey: idempotencyKey!, body: session, createdAt: now });
    return { status: 201, body: session };
  },
};
