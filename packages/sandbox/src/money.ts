// Exact decimal amounts as integer cents (BigInt), and back: string arithmetic on the decimal form, never a
// binary double, so no amount loses a cent however large it is. A JSON number is read through its shortest
// round-trip decimal (String(n)): 37.45 is "37.45", 0.1 + 0.2 is "0.30000000000000004" (three decimals and
// more: not an amount), 1e21 is "1e+21" (exactly 10^21).

/** A value that is not a positive-or-zero decimal with at most two decimal places. */
export class InvalidAmount extends Error {}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const NUMBER = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/; // String(n) of a finite non-negative number, or a JSON number's text without its sign (lower case)

/** The whole and fraction digits of a number's decimal text (String(n), or a JSON number without its sign), the exponent applied; undefined for any other text. */
function decimalDigits(text: string): { whole: string; fraction: string } | undefined {
  const m = NUMBER.exec(text.toLowerCase());
  if (!m) return undefined;
  // Shift the decimal point by the exponent, on the digits.
  const digits = `${m[1]}${m[2] ?? ''}`;
  const point = m[1]!.length + Number(m[3] ?? 0);
  const padded = point > digits.length ? digits.padEnd(point, '0') : point < 0 ? `${'0'.repeat(-point)}${digits}` : digits;
  const at = Math.max(point, 0);
  return { whole: padded.slice(0, at).replace(/^0+(?=\d)/, '') || '0', fraction: padded.slice(at).replace(/0+$/, '') };
}

/** The plain decimal spelling of a JSON number's text ("1E2" → "100", "37.450" → "37.45", "-5e-1" → "-0.5"), or undefined for other text. */
export function plainDecimal(jsonText: string): string | undefined {
  const negative = jsonText.startsWith('-');
  const digits = decimalDigits(negative ? jsonText.slice(1) : jsonText);
  return digits && `${negative ? '-' : ''}${digits.whole}${digits.fraction ? `.${digits.fraction}` : ''}`;
}

/**
 * Whether the double a JSON number's text parsed to is exactly that number: not so when it is only the
 * nearest double (99999999999999.99 parses to the one that prints 99999999999999.98, 37.45000000000000001 to 37.45).
 */
export const heldExactly = (jsonText: string, parsed: number): boolean => Number.isFinite(parsed) && plainDecimal(jsonText) === plainDecimal(String(parsed));

/** Integer cents of an amount: a decimal string with at most two decimals, or a JSON number (via String(n)). */
export function toCents(amount: unknown): bigint {
  let whole: string;
  let fraction: string;
  if (typeof amount === 'number') {
    const digits = Number.isFinite(amount) && amount >= 0 ? decimalDigits(String(amount)) : undefined;
    if (!digits) throw new InvalidAmount(`${String(amount)} is not a decimal amount`);
    ({ whole, fraction } = digits);
  } else if (typeof amount === 'string') {
    const m = DECIMAL.exec(amount);
    if (!m) throw new InvalidAmount(`${JSON.stringify(amount)} is not a decimal amount`);
    whole = m[1]!;
    fraction = m[2] ?? '';
  } else {
    throw new InvalidAmount(`${JSON.stringify(amount) ?? String(amount)} is not a decimal amount`);
  }
  if (fraction.length > 2) throw new InvalidAmount(`${String(amount)} has more than two decimal places`);
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'));
}

const STORED = /^(-?)(\d+)\.(\d{2})$/;

/**
 * Integer cents of an amount as the stores keep it: exactly two decimals, a sign allowed ("12.50" → 1250n,
 * "-0.05" → -5n). Stricter than toCents on purpose: a store given anything else was handed an unnormalized
 * amount, a bug, so it throws a TypeError rather than an InvalidAmount.
 */
export function storedCents(amount: string): bigint {
  const match = STORED.exec(amount);
  if (!match) throw new TypeError(`amount must be a canonical two-decimal string such as "12.50", got ${JSON.stringify(amount)}`);
  const cents = BigInt(match[2]!) * 100n + BigInt(match[3]!);
  return match[1] === '-' ? -cents : cents;
}

/** The canonical two-decimal string of integer cents ("-" for a negative balance). */
export function fromCents(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** Already canonical: no leading zero, exactly two decimals (what clients send, nearly always). */
const CANONICAL = /^(?:0|[1-9]\d*)\.\d{2}$/;

/** The canonical two-decimal string of an amount: 37.45 and "37.45" are the same. Throws InvalidAmount. */
export const normalizeAmount = (amount: unknown): string =>
  typeof amount === 'string' && CANONICAL.test(amount) ? amount : fromCents(toCents(amount));
