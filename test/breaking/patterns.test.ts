// The pattern-widening proof (tools/lib/breaking/patterns.ts): what it proves, what it refuses to prove, and
// that whatever it proves holds on generated strings (soundness: old matches ⇒ new matches).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patternProvablyWidens, splitTopLevel } from '../../tools/lib/breaking/patterns.ts';

const proved: [string, string][] = [
  ['^[a-z]+$', '^[a-z]+$'],
  ['^[a-z]+$', '^[a-z]+$|^[0-9]+$'],
  ['^[a-z]+$', '^(?:[a-z]+|[0-9]+)$'],
  ['^(?:[a-z]+|x)$', '^(?:x|[a-z]+|y)$'],
  ['ab|cd', 'cd|ef|ab'],
];
const notProved: [string, string][] = [
  ['^[a-z]+$', '^[a-z0-9]+$'], // wider, but not by alternation: review
  ['^[a-z]+$', '^[a-z]{1,5}$'],
  ['^[a-z]+$', '[a-z]+|[0-9]+'], // anchoring differs
  ['^(a)|(b)$', '^(a)|(b)|(c)$x'],
  ['^(a)\\1$', '^(?:(a)\\1|b)$'], // backreferences: not handled
  ['^a|b$', '^a$|^b$'],
  ['^[a|b]$', '^[a$|^b]$'],
];

describe('provable widening of request patterns', () => {
  it('splits alternatives outside groups, classes and escapes', () => {
    expect(splitTopLevel('a|(b|c)|[d|e]|f\\|g')).toEqual(['a', '(b|c)', '[d|e]', 'f\\|g']);
    expect(splitTopLevel('(a')).toBeUndefined();
  });

  it.each(proved)('proves %s ⊆ %s', (o, n) => expect(patternProvablyWidens(o, n)).toBe(true));
  it.each(notProved)('does not claim %s ⊆ %s', (o, n) => expect(patternProvablyWidens(o, n)).toBe(false));

  it('is sound: every string the old pattern matches, a proved-wider new one matches', () => {
    const pairs = [...proved, ...notProved].filter(([o, n]) => patternProvablyWidens(o, n));
    expect(pairs.length).toBe(proved.length);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', 'y', '0', '9', 'Z', '|', ' '), maxLength: 8 }), (s) => {
        for (const [o, n] of pairs) if (new RegExp(o, 'u').test(s)) expect(new RegExp(n, 'u').test(s), `${o} → ${n} on ${JSON.stringify(s)}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
