// The docs console's check of typed parameters before a send (tools/lib/docs-browser/console-request.ts's
// firstBreach), against the rules the console reads from the bundled spec (consoleData, as the docs build
// embeds it): no rule is typed here, each comes from the document.
import { describe, expect, it } from 'vitest';
import { deref, isObject, loadSpec, operations, type Json, type JsonObject } from '@payments/spec';
import { consoleData, type ConsoleOperation, type ConsoleParameter } from '../../tools/lib/docs-console.ts';
import { SCENARIOS } from '../../tools/lib/docs.ts';
import { firstBreach, patternOf, ruleText } from '../../tools/lib/docs-browser/console-request.ts';

const doc = loadSpec();
const data = consoleData(doc, SCENARIOS);
const operation = (id: string): ConsoleOperation => data.operations.find((o) => o.operationId === id)!;
const keyOf = (op: ConsoleOperation): ConsoleParameter => op.parameters.find((p) => p.in === 'header' && p.name === 'Idempotency-Key')!;
const checkout = operation('createCheckoutProduct');
const banking = operation('createRecipient');
const checkoutKey = keyOf(checkout);
const bankingKey = keyOf(banking);

/** The breach of one typed Idempotency-Key on an operation, or undefined when the console would send it. */
const breachOfKey = (op: ConsoleOperation, value: string) => firstBreach(op.parameters, [{ name: 'Idempotency-Key', in: 'header', value }]);

describe('the console reads each parameter\'s rule from the bundled spec', () => {
  it('keeps minLength, maxLength and pattern of every parameter\'s schema as the document has them', () => {
    for (const { operationId, path, operation } of operations(doc)) {
      const pathItem = deref(doc, (doc.paths as JsonObject)[path]!) as JsonObject;
      const kept = data.operations.find((o) => o.operationId === operationId)!.parameters;
      for (const p of [...asArray(pathItem.parameters), ...asArray(operation.parameters)].map((r) => deref(doc, r)).filter(isObject)) {
        const schema = deref(doc, p.schema as Json) as JsonObject;
        const rule = kept.find((q) => q.name === p.name && q.in === p.in);
        expect({ minLength: rule?.minLength, maxLength: rule?.maxLength, pattern: rule?.pattern }, `${operationId} ${String(p.name)}`).toEqual({ minLength: schema.minLength, maxLength: schema.maxLength, pattern: schema.pattern });
      }
    }
    expect(checkoutKey.minLength, 'the checkout key has a length rule').toBeTypeOf('number');
    expect(checkoutKey.pattern, 'the checkout key has a pattern').toBeTypeOf('string');
  });

  it('compiles every parameter pattern as a `u` regular expression (the check is never skipped silently)', () => {
    const patterns = data.operations.flatMap((o) => o.parameters.flatMap((p) => (p.pattern === undefined ? [] : [p.pattern])));
    expect(patterns.length).toBeGreaterThan(0);
    for (const pattern of patterns) expect(patternOf(pattern), pattern).toBeInstanceOf(RegExp);
  });

  it('words the rule as the spec gives it', () => {
    expect(ruleText(checkoutKey)).toBe(`${checkoutKey.minLength}–${checkoutKey.maxLength} characters matching ${checkoutKey.pattern}`);
    expect(ruleText(bankingKey)).toBe(`${bankingKey.minLength}–${bankingKey.maxLength} characters`);
  });
});

describe('firstBreach: the first typed value its spec rule refuses, before anything is sent', () => {
  const min = checkoutKey.minLength!;
  const max = checkoutKey.maxLength!;

  it('refuses a checkout key one character under minLength, naming the parameter, its length and the rule', () => {
    const breach = breachOfKey(checkout, 'a'.repeat(min - 1));
    expect(breach).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    expect(breach!.message).toContain('Idempotency-Key');
    expect(breach!.message).toContain(`is ${min - 1} characters, under the minimum of ${min}`);
    expect(breach!.message).toContain(`The spec: ${ruleText(checkoutKey)}.`);
  });

  it('refuses a checkout key one character over maxLength', () => {
    expect(breachOfKey(checkout, 'a'.repeat(max + 1))?.message).toContain(`is ${max + 1} characters, over the maximum of ${max}`);
  });

  it('refuses a checkout key with a space (the pattern)', () => {
    const breach = breachOfKey(checkout, 'cart 7781:session');
    expect(breach?.message).toContain(`"cart 7781:session" (17 characters) does not match ${checkoutKey.pattern}`);
  });

  it('refuses an empty key: the spec requires it', () => {
    expect(breachOfKey(checkout, '')?.message).toContain('is empty, and the spec requires it');
  });

  it('accepts checkout keys of exactly minLength and maxLength characters (8 and 200), and the spec\'s example', () => {
    expect(breachOfKey(checkout, 'a'.repeat(min))).toBeUndefined();
    expect(breachOfKey(checkout, 'a'.repeat(max))).toBeUndefined();
    expect(breachOfKey(checkout, checkoutKey.example!)).toBeUndefined();
  });

  it('accepts a 1-character banking key (its assumed rule is 1–255 characters, any character)', () => {
    expect(breachOfKey(banking, 'k')).toBeUndefined();
    expect(breachOfKey(banking, 'a key with spaces')).toBeUndefined();
    expect(breachOfKey(banking, 'a'.repeat(bankingKey.maxLength! + 1))?.message).toContain(`over the maximum of ${bankingKey.maxLength}`);
  });

  it('counts characters as JSON Schema does (code points, not UTF-16 units)', () => {
    expect(breachOfKey(banking, '😀'.repeat(bankingKey.maxLength!))).toBeUndefined();
  });
});

function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}
