// The docs console's check of typed parameters before a send (tools/lib/docs-browser/console-request.ts's
// firstBreach), against the rules the console reads from the bundled spec (consoleData, as the docs build
// embeds it): no rule is typed here, each comes from the document.
import { describe, expect, it } from 'vitest';
import { deref, isObject, loadSpec, operations, type Json, type JsonObject } from '@payments/spec';
import { consoleData, type ConsoleOperation, type ConsoleParameter } from '../../tools/lib/docs-console.ts';
import { SCENARIOS } from '../../tools/lib/docs.ts';
import { firstBreach, otherRequestOf, patternOf, replayOf, requestIdentity, ruleText, type Sent } from '../../tools/lib/docs-browser/console-request.ts';

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

describe('replayOf / otherRequestOf: one key, the same request or another (section 7, rules 3 and 4)', () => {
  const send = (n: number, operationId: string, body: string, id = 'res_1'): Sent => ({ n, status: 201, key: 'docs-k', id, identity: requestIdentity(operationId, body) });

  it('calls a transfer or a checkout session written another way the same request: 37.45 and "37.45", 150 and "150.00", fields reordered', () => {
    const pairs = [
      ['createCheckoutSession', '{"amount":"37.45","paymentMethod":"pix"}', '{ "paymentMethod": "pix", "amount": 37.45 }'],
      ['createTransfer', '{"recipientId":"rcp_1","amount":"150.00"}', '{"amount":150,"recipientId":"rcp_1"}'],
    ] as const;
    for (const [operationId, first, again] of pairs) {
      const sent = [send(1, operationId, first), send(2, operationId, again)];
      expect(replayOf(sent, sent[1]!), `${operationId}: ${again}`).toBe(sent[0]);
      expect(otherRequestOf(sent, sent[1]!)).toBeUndefined();
    }
  });

  it('calls another amount, or an edited field of any other operation, another request', () => {
    const transfers = [send(1, 'createTransfer', '{"recipientId":"rcp_1","amount":"150.00"}'), send(2, 'createTransfer', '{"recipientId":"rcp_1","amount":"150.01"}')];
    expect(otherRequestOf(transfers, transfers[1]!)).toBe(transfers[0]);
    // A recipient's nickname is its request too (no identity named by the document: the whole body counts).
    const recipients = [send(1, 'createRecipient', '{"rail":"brl_pix","nickname":"A","pixKey":"a@example.com"}'), send(2, 'createRecipient', '{"rail":"brl_pix","nickname":"A (edited)","pixKey":"a@example.com"}')];
    expect(otherRequestOf(recipients, recipients[1]!)).toBe(recipients[0]);
    const reordered = [recipients[0]!, send(2, 'createRecipient', '{"pixKey":"a@example.com","nickname":"A","rail":"brl_pix"}')];
    expect(replayOf(reordered, reordered[1]!)).toBe(reordered[0]);
  });
});

describe('which 409 means a taken value (the console then points at the recipient holding it)', () => {
  it('the codes the unique fields\' descriptions name, read from the spec; not every 409 of the operation (QA: recipient_partner_sync_failed read as a duplicate)', () => {
    const recipients = operation('createRecipient');
    expect(recipients.uniqueFields.toSorted()).toEqual(['nickname', 'pixKey']);
    expect(recipients.takenCodes.length).toBeGreaterThan(0);
    const conflicts = Object.keys(recipientConflictExamples());
    for (const code of recipients.takenCodes) expect(conflicts, `${code} is one of the operation's documented 409s`).toContain(code);
    expect(conflicts).toContain('recipient_partner_sync_failed');
    expect(recipients.takenCodes).not.toContain('recipient_partner_sync_failed');
  });
});

/** The 409 examples of createRecipient, by error code. */
function recipientConflictExamples(): Record<string, unknown> {
  const op = operations(doc).find((o) => o.operationId === 'createRecipient')!.operation;
  const conflict = deref(doc, (op.responses as JsonObject)['409'] as Json) as JsonObject;
  const examples = deref(doc, ((conflict.content as JsonObject)['application/json'] as JsonObject).examples as Json) as JsonObject;
  return Object.fromEntries(Object.values(examples).map((e) => [String(((deref(doc, e as Json) as JsonObject).value as JsonObject).code), e]));
}
