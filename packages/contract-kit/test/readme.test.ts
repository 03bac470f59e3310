// The kit's README lists every check of the registry, with the capabilities it needs, and the root README's
// table names every check too: a check added to the registry without its documentation fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/registry.ts';

const kitReadme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const rootReadme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const checksTable = kitReadme.slice(kitReadme.indexOf('| id | needs |'), kitReadme.indexOf('**Capabilities**'));

describe('documentation of the checks', () => {
  it.each(CHECKS.map((c) => [c.id, c] as const))('%s is in the kit README with what it needs, and in the root README', (id, check) => {
    const row = checksTable.split('\n').find((line) => line.split('|')[1]?.includes(`\`${id}\``));
    expect(row, `no row for ${id} in the kit README's checks table`).toBeDefined();
    expect(row!.split('|')[2]!.trim()).toBe(check.needs.join(', ') || '—');
    expect(rootReadme).toContain(`\`${id}\``);
  });
});
