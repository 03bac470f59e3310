// The relaxed schema behind "only an assumption differs" (@payments/spec, Assumptions): each x-assumed node
// accepts anything, so a mark must sit on exactly what is assumed. The USD ACH and Wire recipients' account
// fields are not shown (their `additionalProperties` carries the mark); the PIX recipient's named fields are
// the document's, and a body that lacks them is still wrong once the assumptions are relaxed.
import { expect, it } from 'vitest';
import { Assumptions, createValidator, loadSpec } from '@payments/spec';

const doc = loadSpec();
const relaxed = new Assumptions(doc, createValidator(doc)).relaxedValidator('#/components/schemas/RecipientCreate');

it('a PIX recipient without its PIX key fails even with every assumption relaxed; unnamed ACH or Wire fields pass', () => {
  expect(relaxed({ rail: 'brl_pix', nickname: 'Ana' })).toBe(false);
  expect(relaxed({ rail: 'brl_pix', nickname: 'Ana', pixKey: 'ana@example.com' })).toBe(true);
  expect(relaxed({ rail: 'usd_ach', nickname: 'Bob', routingNumber: '011000015', accountNumber: '12345' })).toBe(true);
  expect(relaxed({ rail: 'usd_wire', nickname: 'Cy', accountNumber: '12345' })).toBe(true);
});
