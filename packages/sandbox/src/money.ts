// Exact decimal amounts: a validated amount (number or string) as integer cents, and back.

export function toCents(amount: unknown): number {
  if (typeof amount === 'number') return Math.round(amount * 100);
  const [whole = '0', fraction = ''] = String(amount).split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export function fromCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The canonical two-decimal string of an amount: 37.45 and "37.45" are the same. */
export const normalizeAmount = (amount: unknown): string => fromCents(toCents(amount));
