// Cards: issuance needs the authorized-user terms accepted in the dashboard.
import { Failure } from '../failure.ts';
import type { OperationHandler } from './context.ts';

export const issueCard: OperationHandler = {
  fingerprint: (body) => JSON.stringify(body),
  async run({ tx, org, body, idempotencyKey, now, newId }) {
    if (!org.cardTermsAccepted) throw new Failure('authorized_user_terms_required');
    const card = { ...body, id: newId('crd'), idempotencyKey: idempotencyKey! };
    await tx.insertResource({ id: card.id, organizationId: org.id, kind: 'card', idempotencyKey: idempotencyKey!, body: card, createdAt: now });
    return { status: 201, body: card };
  },
};
