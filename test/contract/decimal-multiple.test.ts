// multipleOf on JSON numbers (@payments/spec's decimal.ts): a number is the decimal it prints as, so every
// two-decimal amount a client writes passes `multipleOf: 0.01`, however large, and nothing else does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createValidator, isDecimalMultiple, type OpenApiDocument } from '@payments/spec';

const doc = JSON.parse(readFileSync(new URL('../../packages/spec/dist/openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;
const amount = createValidator(doc).schemaAt('#/components/schemas/Amount');

/** Deterministic pseudo-random integers (a linear congruential generator): the same amounts every run. */
function* cents(count: number, below: number): Generator<number> {
  let state = 20261127n;
  for (let i = 0; i < count; i++) {
    state = (state * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    yield Number(state % BigInt(below)) + 1;
  }
}

describe('multipleOf 0.01 on JSON numbers', () => {
  it('accepts 20,000 two-decimal amounts up to 10^13 written as numbers', () => {
    const refused = [...cents(20_000, 1e15)].map((c) => c / 100).filter((n) => !amount(n));
    // With Ajv's multipleOfPrecision 6 about a tenth of these were refused (114533670.82 among them).
    expect(refused.slice(0, 5)).toEqual([]);
    expect(amount(114533670.82)).toBe(true);
  });

  it('refuses numbers with more than two decimals, and says so as Ajv does', () => {
    for (const n of [1.005, 0.0100001, 0.1 + 0.2, 1.5e-7, 37.455]) {
      expect(amount(n), String(n)).toBe(false);
      expect(amount.errors?.[0], String(n)).toMatchObject({ keyword: 'multipleOf', params: { multipleOf: 0.01 }, message: 'must be multiple of 0.01' });
    }
  });

  it('reads exponent forms and other steps exactly', () => {
    expect(isDecimalMultiple(1e21, 0.01)).toBe(true);
    expect(isDecimalMultiple(2.5e-7, 5e-8)).toBe(true);
    expect(isDecimalMultiple(3e-8, 5e-8)).toBe(false);
    expect(isDecimalMultiple(-4.2, 0.1)).toBe(true);
    expect(isDecimalMultiple(10, 3)).toBe(false);
    expect(isDecimalMultiple(1, 0)).toBe(false);
    expect(isDecimalMultiple(Number.NaN, 0.01)).toBe(false);
  });
});
