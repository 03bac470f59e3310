// http.ts: the request path as Node's URL parser gives it, without running the parser on plain paths.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { pathOf } from '../src/http.ts';

/** What the URL parser makes of it; a target it refuses stays as it came (without its query). */
const viaUrl = (target: string) => {
  try {
    return new URL(target, 'http://sandbox').pathname;
  } catch {
    return target.split('?')[0];
  }
};

it('pathOf agrees with new URL(target).pathname on any request target', () => {
  const char = fc.constantFrom(...'aZ09-._~!$&\'()*+,;=:@/%?#\\ "<>`{}|^[]é'.split(''), '%2F', '%ZZ', '/..', '/.', '//');
  fc.assert(
    fc.property(fc.array(char, { maxLength: 24 }), (parts) => {
      const target = `/${parts.join('')}`;
      expect(pathOf(target), target).toBe(viaUrl(target));
    }),
    { numRuns: 5000 },
  );
  for (const target of ['/v1/banking/balance', '/v1/banking/balance?x=1', '/v1/banking/../banking/balance', '/v1/./banking', '//evil/v1', '/v1/banking/transfers/%ZZ', '/a b', '/\\', '/\\x?y']) {
    expect(pathOf(target), target).toBe(viaUrl(target));
  }
});
