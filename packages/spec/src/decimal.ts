// `multipleOf` on JSON numbers, decided on the decimals a number is written as. A JSON number arrives as a
// binary double: 0.07 / 0.01 is 7.000000000000001, so Ajv's exact division refuses 0.07. A fixed tolerance
// (Ajv's `multipleOfPrecision`) fixes small amounts but fails large ones: 114533670.82 / 0.01 is off by
// 2e-6, and about one two-decimal amount in ten above 5×10^7 was refused. Here a number counts as the
// shortest decimal that reads back as it (String(n): `114533670.82`), the text a client wrote, and the
// multiple is checked on integers. No dependencies: Prism's process loads it too (@payments/mock's hook).

/** A finite number as `digits × 10^-scale`, from its shortest round-trip text ("1.5e-7" included). */
function decimalOf(n: number): { digits: bigint; scale: number } | undefined {
  if (!Number.isFinite(n)) return undefined;
  const [mantissa = '', exponent = '0'] = String(n).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const scale = fraction.length - Number(exponent);
  const digits = BigInt(whole + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** Whether `value` is an integer multiple of `step`, both read as the decimals they print as. */
export function isDecimalMultiple(value: number, step: number): boolean {
  const v = decimalOf(value);
  const s = decimalOf(step);
  if (!v || !s || s.digits === 0n) return false;
  const scale = Math.max(v.scale, s.scale);
  const scaled = (d: { digits: bigint; scale: number }) => d.digits * 10n ** BigInt(scale - d.scale);
  return scaled(v) % scaled(s) === 0n;
}

/** The part of an Ajv instance this needs: any Ajv 8 copy (Prism's has its own, with its own definition types). */
interface KeywordHost {
  removeKeyword(keyword: string): unknown;
  addKeyword(definition: never): unknown;
}

/** Replaces the instance's `multipleOf` with isDecimalMultiple; its refusals read as Ajv's own. */
export function useExactMultipleOf<A extends KeywordHost>(ajv: A): A {
  const validate = (step: number, value: number): boolean => {
    const ok = isDecimalMultiple(value, step);
    validate.errors = ok ? null : [{ keyword: 'multipleOf', params: { multipleOf: step }, message: `must be multiple of ${step}` }];
    return ok;
  };
  validate.errors = null as object[] | null;
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({ keyword: 'multipleOf', type: 'number', schemaType: 'number', validate } as never);
  return ajv;
}
