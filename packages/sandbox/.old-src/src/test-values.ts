// Deterministic test values that trigger each provider-side outcome, the way card networks publish test
// card numbers. The docs render this table (see sandbox docs); tests use these exact values.

export interface TestValue {
  /** Where the value goes. */
  field: string;
  value: string;
  operationId: string;
  code: string;
  meaning: string;
}

export const TEST_VALUES: TestValue[] = [
  {
    field: 'pixKey (recipient)',
    value: 'coop@unsupported-bank.test',
    operationId: 'createTransfer',
    code: 'pix_recipient_bank_not_supported',
    meaning: 'A transfer to a recipient with this PIX key: its bank (a credit cooperative) takes no PIX payouts.',
  },
  {
    field: 'amount (transfer to a PIX recipient)',
    value: '999999.99',
    operationId: 'createTransfer',
    code: 'pix_quote_rejected',
    meaning: 'Outside the quote range (the sandbox quotes PIX amounts up to 100000.00).',
  },
  {
    field: 'amount (transfer to a PIX recipient)',
    value: '13.13',
    operationId: 'createTransfer',
    code: 'pix_payout_rejected',
    meaning: 'The payout is rejected before funds move (the recipient account is closed).',
  },
  {
    field: 'nickname (recipient)',
    value: 'Partner Reject',
    operationId: 'createRecipient',
    code: 'recipient_partner_sync_failed',
    meaning: 'The banking route rejects the recipient details.',
  },
];

/** The top of the sandbox's PIX quote range, in integer cents (compared with money.ts toCents). */
export const PIX_QUOTE_MAX_CENTS = 100_000_00n;

export function testValue(code: string): TestValue {
  const found = TEST_VALUES.find((t) => t.code === code);
  if (!found) throw new Error(`no test value for ${code}`);
  return found;
}
