// Banking: balance, recipients, transfers, the transfer lookup. Domain rules from the provider's document
// (sections 2–4 and 7); provider-side outcomes triggered by the published test values.
import { Failure } from '../failure.ts';
import { validAddress } from '../eip55.ts';
import { fromCents, normalizeAmount, toCents } from '../money.ts';
import { PIX_QUOTE_MAX_CENTS, testValue } from '../test-values.ts';
import { ConstraintViolation, type Transaction } from '../store/types.ts';
import type { RecipientRecord, TransferRecord, TransferStatus } from '../records.ts';
import { compact, type OperationContext, type OperationHandler } from './context.ts';

const CURRENCY: Record<string, string> = { brl_pix: 'BRL', usd_ach: 'USD', usd_wire: 'USD', wallet: 'USD' };

export const recipientView = (r: RecipientRecord) =>
  compact({ id: r.id, nickname: r.nickname, rail: r.rail, pixKey: r.pixKey, destinationAddress: r.destinationAddress, active: r.active, idempotencyKey: r.idempotencyKey });

export const transferView = (t: TransferRecord) =>
  ({ id: t.id, recipientId: t.recipientId, amount: t.amount, status: t.status, idempotencyKey: t.idempotencyKey });

export const getBankingBalance: OperationHandler = {
  async run({ tx, org }) {
    const debited = await tx.debitedTotals(org.id);
    const currencies = [...new Set([...Object.keys(org.funding), ...Object.keys(debited)])].sort();
    const balances = currencies.map((currency) => ({ currency, available: fromCents(toCents(org.funding[currency] ?? '0') - toCents(debited[currency] ?? '0')) }));
    return { status: 200, body: { balances } };
  },
};

/** The schema's unique indexes on recipients → the code a write they refuse gets (a race the checks below lost). */
export const RECIPIENT_CONSTRAINT_CODES: Readonly<Record<string, string>> = {
  recipients_active_nickname: 'recipient_nickname_already_exists',
  recipients_unique_pix_key: 'recipient_already_exists',
};

/** Runs a recipient write, turning a refusal by one of the recipients' unique indexes into its code. */
export async function recipientWrite<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const code = err instanceof ConstraintViolation ? RECIPIENT_CONSTRAINT_CODES[err.constraint] : undefined;
    throw code ? new Failure(code) : err;
  }
}

/**
 * Whether another ACTIVE external recipient of the organization uses the nickname (section 2: unique among
 * the organization's active external recipients, BRL PIX, USD ACH and USD Wire; a wallet recipient's
 * nickname counts for none), whoever saves or activates the recipient: the API (createRecipient) or the
 * dashboard (admin). A check for a clear answer in the common case; the schema's unique index decides races
 * (recipientWrite).
 */
export async function activeNicknameTaken(tx: Transaction, organizationId: string, nickname: string, exceptRecipientId?: string): Promise<boolean> {
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
    // A PIX key is a PIX recipient's (section 2); on another rail it is an unknown field, neither kept nor unique.
    const pixKey = body.rail === 'brl_pix' && typeof body.pixKey === 'string' ? body.pixKey : null;
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
    await recipientWrite(() => tx.insertRecipient(recipient));
    return { status: 201, body: recipientView(recipient) };
  },
};

export const transferFingerprint = (body: Record<string, unknown>) => JSON.stringify([String(body.recipientId), normalizeAmount(body.amount)]);

/** The transfer's recipient: createTransfer's read ahead (OperationHandler.readAhead). */
const readRecipient = ({ tx, org, body }: OperationContext): Promise<RecipientRecord | undefined> => tx.getRecipient(org.id, String(body.recipientId));

/** The transfer's recipient, from the read ahead when there is one. */
const recipientOf = (ctx: OperationContext) => (ctx.readAhead as ReturnType<typeof readRecipient> | undefined) ?? readRecipient(ctx);

/** Checks that decide whether a new transfer attempt can be made at all. */
async function admitTransfer(ctx: OperationContext): Promise<RecipientRecord> {
  const { org, body } = ctx;
  const recipient = await recipientOf(ctx);
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

export async function insertTransfer(ctx: OperationContext, recipient: RecipientRecord, status: TransferStatus): Promise<TransferRecord> {
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

const FINAL_RESOLUTIONS: readonly string[] = ['pending', 'completed', 'failed', 'cancelled'];

export const createTransfer: OperationHandler = {
  readAhead: readRecipient,
  fingerprint: transferFingerprint,
  conflictCode: 'banking_transfer_idempotency_conflict',
  async run(ctx) {
    const recipient = await admitTransfer(ctx);
    const transfer = await insertTransfer(ctx, recipient, 'pending');
    return { status: 201, body: transferView(transfer) };
  },
  // The retry of an attempt left open by a temporary 503, per the provider's outcome table (section 3):
  // still under review (409), still unavailable (503), or resolved into a transfer of the given status. The
  // attempt was started (rule 7: "the retry resolves the original attempt"), so a new attempt's checks are
  // not run again: a recipient deactivated since, or a test value a new attempt is refused for, does not
  // change the resolution. Only a recipient the organization never had leaves no transfer to resolve into.
  openAttempts: {
    pendingReviewCode: 'banking_transfer_attempt_pending_review',
    async resume(ctx, resolution) {
      if (resolution === 'pending_review') throw new Failure('banking_transfer_attempt_pending_review');
      if (!resolution || !FINAL_RESOLUTIONS.includes(resolution)) throw new Failure('temporarily_unavailable');
      const recipient = await recipientOf(ctx);
      if (!recipient) throw new Failure('recipient_not_found');
      const transfer = await insertTransfer(ctx, recipient, resolution as TransferStatus);
      return { status: 201, body: transferView(transfer) };
    },
  },
};

export const getTransfer: OperationHandler = {
  async run({ tx, org, params }) {
    const transfer = await tx.getTransfer(org.id, String(params.transferId));
    if (!transfer) throw new Failure('banking_transfer_not_found');
    return { status: 200, body: transferView(transfer) };
  },
};
