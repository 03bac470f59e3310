// The bench's CPU-profile summary (bench/sandbox/profile.ts) names where the sandbox's time goes. Its areas
// follow the store's files: when the SQLite calls moved from sqlite.ts to sqlite-group-commit.ts, SQLite's
// time fell into "native, other (all)" and no table said so. A small profile of known shape holds it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../bench/sandbox/profile.ts';

const SRC = 'file:///repo/packages/sandbox/src';
const PG = 'file:///repo/node_modules/.pnpm/pg@8.23.1/node_modules/pg/lib/client.js';

/** A call tree as [functionName, url, children]; each leaf gets `samples` samples. */
type Tree = [string, string, Tree[]?, number?];

function profileOf(root: Tree): object {
  const nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children: number[] }[] = [];
  const samples: number[] = [];
  const add = ([functionName, url, children = [], count = 0]: Tree): number => {
    const node = { id: nodes.length + 1, callFrame: { functionName, url, lineNumber: 9 }, children: [] as number[] };
    nodes.push(node);
    for (let i = 0; i < count; i++) samples.push(node.id);
    node.children = children.map(add);
    return node.id;
  };
  add(root);
  return { nodes, startTime: 0, endTime: samples.length * 500, samples, timeDeltas: samples.map(() => 500) };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function summary(root: Tree) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profileOf(root)));
  return summarizeProfile(file);
}

/** The `% of busy` an area or operation row of a table shows. */
const share = (table: string, row: string) => table.split('\n').find((line) => line.startsWith(row))?.trim().split(/\s+/).at(-1);

describe('the bench profile summary', () => {
  const sqliteCall = (operation: string, samples: number): Tree => [
    operation,
    `${SRC}/store/sql-transaction.ts`,
    [['(anonymous)', `${SRC}/store/sql-transaction.ts`, [['sql', `${SRC}/store/sqlite-group-commit.ts`, [['all', '', [], samples]]]]]],
  ];

  it("counts node:sqlite's native calls as SQLite, by the store operation that asked", () => {
    const s = summary([
      '(root)',
      '',
      [
        ['run', `${SRC}/operations/banking.ts`, [sqliteCall('debitedTotals', 30), sqliteCall('appendJournal', 10)]],
        ['commit', `${SRC}/store/sqlite-group-commit.ts`, [['exec', `${SRC}/store/sqlite-group-commit.ts`, [['run', '', [], 20]]]]],
        ['api', `${SRC}/pipeline/pipeline.ts`, [], 40],
      ],
    ]);
    expect(share(s.areas, 'node:sqlite calls')).toBe('60.0%');
    expect(s.areas).not.toMatch(/native, other \((all|run)\)/);
    expect(share(s.sqliteByOperation, 'debitedTotals')).toBe('30.0%');
    expect(share(s.sqliteByOperation, 'commit')).toBe('20.0%');
    expect(share(s.sqliteByOperation, 'appendJournal')).toBe('10.0%');
  });

  it('tells socket writes to PostgreSQL from writes to HTTP clients', () => {
    const write = (name: string, samples: number): Tree => ['uncork', 'node:internal/streams/writable', [['writevGeneric', 'node:internal/stream_base_commons', [[name, '', [], samples]]]]];
    const s = summary([
      '(root)',
      '',
      [
        ['submit', PG, [write('writev', 25)]],
        ['sendJsonText', `${SRC}/http.ts`, [write('writeUtf8String', 15)]],
        ['api', `${SRC}/pipeline/pipeline.ts`, [], 60],
      ],
    ]);
    expect(share(s.areas, 'socket writes to PostgreSQL')).toBe('25.0%');
    expect(share(s.areas, 'socket writes to HTTP clients')).toBe('15.0%');
    expect(s.sqliteByOperation).toBe('');
  });
});
