// Banking: balance, recipients, transfers, the transfer lookup. Domain rules from the provider's document
// (sections 2–4 and 7); provider-side outcomes triggered by the published test values.
import { Failure } from '../failure.ts';
import { validAddress } from '../eip55.ts';
import { fromCents, normalizeAmount, toCents } from '../money.ts';
import { PIX_QUOTE_MAX_CENTS, testValue } from '../test-values.ts';
import type { RecipientRecord, Transaction, TransferRecord, TransferStatus } from '../store/types.ts';
import { compact, type OperationHandler } from './context.ts';

const CURRENCY: Record<string, string> = { brl_pix: 'BRL', usd_ach: 'USD', usd_wire: 'USD', wallet: 'USD' };
const DEBITED: readonly TransferStatus[] = Object.freeze(['pending', 'completed']);

export const recipientView = (r: RecipientRecord) =>
  compact({ id: r.id, nickname: r.nickname, rail: r.rail, pixKey: r.pixKey, destinationAddress: r.destinationAddress, active: r.active, idempotencyKey: r.idempotencyKey });

export const transferView = (t: TransferRecord) =>
  ({ id: t.id, recipientId: t.recipientId, amount: t.amount, status: t.status, idempotencyKey: t.idempotencyKey });

/**
 * Balance bodies by the sums they were computed from, for the organization they were computed for. A
 * store that caches hands out the same frozen sums and organization until either changes, and a balance
 * is read far more often than it changes; a store that does not cache never hits (fresh objects).
 */
const balanceBodies = new WeakMap<object, { org: object; body: unknown; text: string }>();

export const getBankingBalance: OperationHandler = {
  async run({ tx, org }) {
    const debited = await tx.sumTransfers(org.id, DEBITED);
    const memo = balanceBodies.get(debited);
    if (memo?.org === org) return { status: 200, body: memo.body, text: memo.text };
    const currencies = [...new Set([...Object.keys(org.funding), ...Object.keys(debited)])].sort();
    const balances = currencies.map((currency) =>
      Object.freeze({ currency, available: fromCents(toCents(org.funding[currency] ?? '0') - toCents(debited[currency] ?? '0')) }),
    );
    const body = Object.freeze({ balances: Object.freeze(balances) });
    const text = JSON.stringify(body);
    if (Object.isFrozen(debited) && Object.isFrozen(org)) balanceBodies.set(debited, { org, body, text });
    return { status: 200, body, text };
  },
};

/**
 * Whether another ACTIVE recipient of the organization uses the nickname (section 2: unique among active
 * recipients), whoever saves or activates the recipient: the API (createRecipient) or the dashboard (admin).
 * Locks the organization first, so the answer holds until the transaction ends (no race between instances)
 * and later checks in the same transaction (the PIX key) are covered too.
 */
export async function activeNicknameTaken(tx: Transaction, organizationId: string, nickname: string, exceptRecipientId?: string): Promise<boolean> {
  await tx.lockOrganization(organizationId);
  const found = await tx.findActiveRecipientByNickname(organizationId, nickname);
  return Boolean(found && found.id !== exceptRecipientId);
}

export const createRecipient: OperationHandler = {
  fingerprint: (body) => JSON.stringify([body.rail, body.nickname, body.pixKey ?? null, body.destinationAddress ?? null]),
  async run({ tx, org, body, idempotencyKey, now, newId }) {
    const nickname = String(body.nickname);
    const address = typeof body.destinationAddress === 'string' ? body.destinationAddress : null;
    if (address !== null && !validAddress(address)) throw new Failure('invalid_destination_address');
    if (nickname === testValue('recipient_partner_sync_failed').value) throw new Failure('recipient_partner_sync_failed');
    if (await activeNicknameTaken(tx, org.id, nickname)) throw new Failure('recipient_nickname_already_exists');
    const pixKey = typeof body.pixKey === 'string' ? body.pixKey : null;
    if (pixKey !== null && (await tx.findRecipientByPixKey(org.id, pixKey))) throw new Failure('recipient_already_exists');
    const recipient: RecipientRecord = {
      id: newId('rcp'),
      organizationId: org.id,
      nickname,
      rail: body.rail as RecipientRecord['rail'],
      pixKey,
      destinationAddress: address,
      active: true,
      source: 'api',
      idempotencyKey: idempotencyKey ?? null,
      createdAt: now,
    };
    await tx.insertRecipient(recipient);
    return { status: 201, body: recipientView(recipient) };
  },
};

export const transferFingerprint = (body: Record<string, unknown>) => JSON.stringify([String(body.recipientId), normalizeAmount(body.amount)]);

/** Checks that decide whether a transfer can be made at all; shared by a first attempt and a resolved retry. */
export async function admitTransfer(ctx: Parameters<OperationHandler['run']>[0]): Promise<RecipientRecord> {
  const { tx, org, body } = ctx;
  const recipient = await tx.getRecipient(org.id, String(body.recipientId));
  if (recipient?.rail === 'wallet') {
    if (!org.walletTransfers) throw new Failure('wallet_transfers_not_enabled');
    if (!recipient.active) throw new Failure('wallet_recipient_required');
  }
  if (!recipient || !recipient.active) throw new Failure('recipient_not_found');
  if (recipient.rail === 'brl_pix') {
    if (recipient.pixKey === testValue('pix_recipient_bank_not_supported').value) throw new Failure('pix_recipient_bank_not_supported');
    const cents = toCents(body.amount);
    if (cents > PIX_QUOTE_MAX_CENTS) throw new Failure('pix_quote_rejected', `PIX quote rejected: ${fromCents(cents)} is outside the allowed range (up to ${fromCents(PIX_QUOTE_MAX_CENTS)}).`);
    if (normalizeAmount(body.amount) === testValue('pix_payout_rejected').value) throw new Failure('pix_payout_rejected', 'PIX payout rejected: the recipient account is closed.');
  }
  return recipient;
}

export async function insertTransfer(ctx: Parameters<OperationHandler['run']>[0], recipient: RecipientRecord, status: TransferStatus): Promise<TransferRecord> {
  const transfer: TransferRecord = {
    id: ctx.newId('trf'),
    organizationId: ctx.org.id,
    recipientId: recipient.id,
    amount: normalizeAmount(ctx.body.amount),
    currency: CURRENCY[recipient.rail] ?? 'USD',
    status,
    idempotencyKey: ctx.idempotencyKey!,
    createdAt: ctx.now,
  };
  await ctx.tx.insertTransfer(transfer);
  return transfer;
}

export const createTransfer: OperationHandler = {
  fingerprint: transferFingerprint,
  conflictCode: 'banking_transfer_idempotency_conflict',
  async run(ctx) {
    const recipient = await admitTransfer(ctx);
    const transfer = await insertTransfer(ctx, recipient, 'pending');
    return { status: 201, body: transferView(transfer) };
  },
};

export const getTransfer: OperationHandler = {
  async run({ tx, org, params }) {
    const transfer = await tx.getTransfer(org.id, String(params.transferId));
    if (!transfer) throw new Failure('banking_transfer_not_found');
    return { status: 200, body: transferView(transfer) };
  },
};
