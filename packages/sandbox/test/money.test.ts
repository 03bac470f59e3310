// money.ts: exact integer cents (BigInt) from decimal strings and JSON numbers, and back, at any size.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidAmount, fromCents, heldExactly, normalizeAmount, plainDecimal, toCents } from '../src/money.ts';

describe('money: exact cents', () => {
  it('keeps every digit of amounts beyond 2^53 cents', () => {
    expect(normalizeAmount('12345678901234567')).toBe('12345678901234567.00');
    expect(normalizeAmount('999999999999999.99')).toBe('999999999999999.99');
    expect(normalizeAmount('90071992547409.93')).toBe('90071992547409.93');
    expect(toCents('999999999999999.99')).toBe(99999999999999999n);
    expect(fromCents(99999999999999999n)).toBe('999999999999999.99');
    expect(fromCents(toCents('999999999999999.99') - toCents('0.01'))).toBe('999999999999999.98');
    expect(fromCents(-5n)).toBe('-0.05');
    expect(fromCents(-12345n)).toBe('-123.45');
  });

  it('reads a JSON number through its shortest round-trip decimal (String(n)): 37.45 is "37.45"', () => {
    for (const [n, text] of [
      [37.45, '37.45'],
      [0.07, '0.07'],
      [1.1, '1.10'],
      [100, '100.00'],
      [1e21, '1000000000000000000000.00'],
      [4503599627370497, '4503599627370497.00'],
    ] as const) {
      expect(normalizeAmount(n), String(n)).toBe(text);
    }
  });

  it('tells a JSON number text a double holds exactly from one it only rounds to (heldExactly), and spells it plainly', () => {
    for (const [text, held] of [
      ['37.45', true],
      ['37.450', true],
      ['1E2', true],
      ['1e+21', true],
      ['-0.5', true],
      ['0.07', true],
      ['99999999999999.99', false],
      ['37.45000000000000001', false],
      ['9007199254740993', false],
      ['1e400', false],
    ] as const) {
      expect(heldExactly(text, JSON.parse(text) as number), text).toBe(held);
    }
    expect(heldExactly('5', -5)).toBe(false);
    expect(['1E2', '37.450', '-5e-1', '9999999999999999e-2', '12'].map(plainDecimal)).toEqual(['100', '37.45', '-0.5', '99999999999999.99', '12']);
  });

  it('refuses anything that is not a decimal with at most two decimal places', () => {
    for (const bad of [0.1 + 0.2, 1.005, 37.456, 1e-7, 1.5e-7, -1, Number.NaN, Number.POSITIVE_INFINITY, '37.456', '1e3', ' 1', '1.', '.5', '-1.00', '', 'abc', null, undefined, {}, [1]]) {
      expect(() => toCents(bad), String(bad)).toThrow(InvalidAmount);
    }
  });

  it('round-trips any cents, however large, and agrees with the canonical string of its parts', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (cents) => {
        const text = fromCents(cents);
        expect(text).toMatch(/^\d+\.\d{2}$/);
        expect(toCents(text)).toBe(cents);
        expect(normalizeAmount(text)).toBe(text);
      }),
    );
  });

  it('normalizes any decimal string as its cents do (the shortcut for canonical strings included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^\d{1,20}(\.\d{1,2})?$/), fc.stringMatching(/^[0-9.-]{1,8}$/)), (text) => {
        const outcome = (f: () => string) => {
          try {
            return f();
          } catch (err) {
            return err instanceof InvalidAmount ? 'invalid' : err;
          }
        };
        expect(outcome(() => normalizeAmount(text)), text).toBe(outcome(() => fromCents(toCents(text))));
      }),
      { numRuns: 2000 },
    );
    expect(['007.50', '0.5', '12', '00.00'].map(normalizeAmount)).toEqual(['7.50', '0.50', '12.00', '0.00']);
  });

  it('a JSON number that shows a two-decimal value is exactly that many cents (no Math.round(n * 100))', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 99 }), (whole, cents) => {
        const text = `${whole}.${String(cents).padStart(2, '0')}`;
        const n = Number(text);
        // Only a double whose shortest decimal is the text itself (trailing zeros aside) carries that amount.
        if (String(n) !== text.replace(/0+$/, '').replace(/\.$/, '')) return;
        checked++;
        expect(toCents(n), text).toBe(whole * 100n + BigInt(cents));
      }),
      { numRuns: 2000 },
    );
    expect(checked).toBeGreaterThan(200); // many draws have no exact double
  });
});
