// The embedded store's in-memory index of idempotency keys (store/key-index.ts): exact under collisions,
// rollbacks taken back in any depth, and caught up with rows another connection committed.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { KeyIndex } from '../src/store/key-index.ts';

/** A hash with 4 values: most keys collide with others. */
class FewHashes extends KeyIndex {
  override hash(organizationId: string, operationId: string, key: string): number {
    return super.hash(organizationId, operationId, key) & 3;
  }
}

interface Row {
  rowid: number;
  organizationId: string;
  operationId: string;
  key: string;
}

/** What a store does: the rowids of the key's candidates whose row is that key. */
const lookUp = (index: KeyIndex, table: Map<number, Row>, org: string, op: string, key: string): number[] =>
  index.candidates(index.hash(org, op, key)).filter((rowid) => {
    const row = table.get(rowid);
    return row?.organizationId === org && row.operationId === op && row.key === key;
  });

it('hashes are 32-bit integers, differ with any of the three strings, and per index (seeded)', () => {
  const index = new KeyIndex();
  const h = index.hash('org_1', 'createTransfer', 'k');
  expect(Number.isInteger(h) && h === (h | 0)).toBe(true);
  expect(new Set([h, index.hash('org_2', 'createTransfer', 'k'), index.hash('org_1', 'createRecipient', 'k'), index.hash('org_1', 'createTransfer', 'k2')]).size).toBe(4);
  // The separators matter: moving a character from one string to the next is another key.
  expect(index.hash('ab', 'c', 'd')).not.toBe(index.hash('a', 'bc', 'd'));
  const others = Array.from({ length: 8 }, () => new KeyIndex().hash('org_1', 'createTransfer', 'k'));
  expect(new Set([h, ...others]).size).toBeGreaterThan(1);
});

it('keeps every rowid of colliding keys, and a removal takes back exactly one add', () => {
  const index = new KeyIndex();
  const first = index.add(7, 1);
  const second = index.add(7, 2);
  const third = index.add(7, 3);
  expect([first, second, third]).toEqual([0, 1, 2]);
  expect(index.candidates(7)).toEqual([1, 2, 3]);
  index.add(7, 2); // the same row again (a catch-up that overlaps): not twice
  expect(index.candidates(7)).toEqual([1, 2, 3]);
  index.remove(7, 3, third);
  index.remove(7, 2, second);
  expect(index.candidates(7)).toEqual([1]);
  expect(index.candidates(8)).toEqual([]);
  index.remove(7, 1, first);
  expect(index.candidates(7)).toEqual([]);
  expect(index.size).toBe(0);
});

it('catches up from the highest rowid it holds, and from scratch after invalidate', () => {
  const index = new KeyIndex();
  const table = new Map<number, Row>();
  const rowsAbove = (asked: number[]) => (above: number) => {
    asked.push(above);
    return [...table.values()].filter((r) => r.rowid > above);
  };
  const insert = (rowid: number, key: string) => table.set(rowid, { rowid, organizationId: 'o', operationId: 'op', key });
  insert(1, 'a');
  insert(2, 'b');
  const asked: number[] = [];
  index.catchUp(rowsAbove(asked)); // new: stale, built from the whole table
  insert(3, 'c'); // another connection commits
  index.catchUp(rowsAbove(asked));
  expect(asked).toEqual([0, 2]);
  expect(['a', 'b', 'c', 'd'].map((k) => lookUp(index, table, 'o', 'op', k))).toEqual([[1], [2], [3], []]);
  // Our own insert of row 4, rolled back: the next catch-up starts above 3 again.
  const before = index.add(index.hash('o', 'op', 'mine'), 4);
  index.remove(index.hash('o', 'op', 'mine'), 4, before);
  insert(4, 'theirs');
  index.catchUp(rowsAbove(asked));
  expect(asked.at(-1)).toBe(3);
  expect(lookUp(index, table, 'o', 'op', 'theirs')).toEqual([4]);
  // The table lost row 4 (a batch rolled back): rebuilt from scratch.
  table.delete(4);
  index.invalidate();
  index.catchUp(rowsAbove(asked));
  expect(asked.at(-1)).toBe(0);
  expect(index.size).toBe(3);
  expect(lookUp(index, table, 'o', 'op', 'theirs')).toEqual([]);
});

it('matches a plain map of keys under random inserts, nested rollbacks and catch-ups (few hashes: collisions everywhere)', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), key: fc.string({ maxLength: 3 }), org: fc.constantFrom('o1', 'o2') }),
    fc.record({ kind: fc.constant('begin' as const) }),
    fc.record({ kind: fc.constant('rollback' as const) }),
    fc.record({ kind: fc.constant('commit' as const) }),
    fc.record({ kind: fc.constant('foreign' as const), key: fc.string({ maxLength: 3 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const index = new FewHashes();
      const table = new Map<number, Row>();
      const rowsAbove = (above: number) => [...table.values()].filter((r) => r.rowid > above).sort((a, b) => a.rowid - b.rowid);
      index.catchUp(rowsAbove);
      /** Open scopes, innermost last: what each must take back (index and table) when it rolls back. */
      const scopes: { undo: (() => void)[] }[] = [];
      const nextRowid = () => Math.max(0, ...table.keys()) + 1; // SQLite's max + 1
      for (const step of ops) {
        if (step.kind === 'begin') scopes.push({ undo: [] });
        else if (step.kind === 'commit') {
          const done = scopes.pop();
          if (done) scopes.at(-1)?.undo.push(...done.undo);
        } else if (step.kind === 'rollback') {
          for (const undo of (scopes.pop()?.undo ?? []).reverse()) undo();
        } else if (step.kind === 'insert') {
          if (lookUp(index, table, step.org, 'op', step.key).length > 0) continue; // claimed: a replay
          const rowid = nextRowid();
          table.set(rowid, { rowid, organizationId: step.org, operationId: 'op', key: step.key });
          const hash = index.hash(step.org, 'op', step.key);
          const before = index.add(hash, rowid);
          scopes.at(-1)?.undo.push(() => {
            table.delete(rowid);
            index.remove(hash, rowid, before);
          });
        } else if (scopes.length === 0) {
          // Another connection commits a row (only while we hold no transaction), and we catch up.
          const rowid = nextRowid();
          if (!rowsAbove(0).some((r) => r.organizationId === 'o3' && r.key === step.key)) {
            table.set(rowid, { rowid, organizationId: 'o3', operationId: 'op', key: step.key });
          }
          index.catchUp(rowsAbove);
        }
      }
      for (const row of table.values()) expect(lookUp(index, table, row.organizationId, row.operationId, row.key)).toEqual([row.rowid]);
      expect(index.size).toBe(table.size);
    }),
    { numRuns: 300 },
  );
});
