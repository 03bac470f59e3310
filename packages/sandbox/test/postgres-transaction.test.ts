// The PostgreSQL store's deferred writes made one statement (postgres-transaction.ts): only when no table is
// written twice, with each write's parameters renumbered after the ones before it.
import { expect, it } from 'vitest';
import { combineWrites } from '../src/store/postgres-transaction.ts';

const write = (text: string, ...values: string[]) => ({ text, values, translate: undefined });

it('writes of distinct tables become one statement of writable CTEs, parameters renumbered in order', () => {
  const combined = combineWrites([write('INSERT INTO transfers (id, amount) VALUES ($1, $2)', 't1', '1.00'), write('INSERT INTO journal (id, status) VALUES ($1, $2)', 'j1', '201')]);
  expect(combined).toEqual({
    text: 'WITH w0 AS (INSERT INTO transfers (id, amount) VALUES ($1, $2)) INSERT INTO journal (id, status) VALUES ($3, $4)',
    values: ['t1', '1.00', 'j1', '201'],
  });
  expect(combineWrites([write('INSERT INTO journal (id) VALUES ($1)', 'j1')])).toEqual({ text: 'INSERT INTO journal (id) VALUES ($1)', values: ['j1'] });
});

it('writes that touch one table twice, or that it cannot name, stay apart', () => {
  // A row changed twice in one statement keeps one of the changes: two upserts of one balance row.
  const upsert = 'INSERT INTO balances (id, cents) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET cents = balances.cents + excluded.cents';
  expect(combineWrites([write(upsert, 'b', '1'), write(upsert, 'b', '2')])).toBeUndefined();
  expect(combineWrites([write('SELECT 1')])).toBeUndefined();
  expect(combineWrites([])).toBeUndefined();
});
