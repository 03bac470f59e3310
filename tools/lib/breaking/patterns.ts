// Whether a new request `pattern` provably accepts every string the old one accepted. Deciding inclusion of
// two arbitrary regular expressions is out of reach here, so this is a small SOUND check: it only answers
// "widened" when that follows from the patterns' syntax, and "unknown" otherwise (the gate then asks for a
// review). The one form it proves: the new pattern is an alternation whose alternatives include every
// alternative of the old one, under the same anchoring:
//
//   ^[a-z]+$          → ^[a-z]+$|^[0-9]+$          (a top-level alternative added)
//   ^(?:[a-z]+)$      → ^(?:[a-z]+|[A-Z]+)$        (an alternative added inside a whole-string group)
//   ^[a-z]+$          → ^(?:[a-z]+|[A-Z]+)$        (the same, the old one written without a group)
//
// Why it is sound: JSON Schema's `pattern` is an unanchored search (ECMA-262). A top-level `a|b` matches a
// string iff `a` or `b` does; `^(?:a|b)$` matches iff the whole string matches `a` or `b`. So if every old
// alternative is (textually) one of the new ones, every string the old pattern matched, the new one matches.

/** A pattern as a set of alternatives, either searched anywhere (`free`) or matched against the whole string (`whole`). */
export interface Alternatives {
  form: 'free' | 'whole';
  alternatives: string[];
}

/** Splits at `|` outside groups, character classes and escapes; undefined when the brackets do not balance. */
export function splitTopLevel(source: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      i++; // the escaped character is literal
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth < 0) return undefined;
    } else if (ch === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || inClass) return undefined;
  parts.push(source.slice(start));
  return parts;
}

/** `^(?:X)$` or `^(X)$` where the group spans the whole body: X; else undefined. */
function wholeGroupBody(source: string): string | undefined {
  const match = /^\^\((\?:)?([\s\S]*)\)\$$/.exec(source);
  if (!match) return undefined;
  const body = match[2] ?? '';
  // The group must close at the end, not earlier: `^(a)|(b)$` is not one group (its body `a)|(b` does not
  // balance: splitTopLevel refuses it).
  if (splitTopLevel(body) === undefined) return undefined;
  return body;
}

/** Whether `^` … `$` anchor the whole string with nothing at the top level splitting them. */
function isWholeAnchored(source: string): boolean {
  if (!source.startsWith('^') || !source.endsWith('$') || source.endsWith('\\$')) return false;
  return splitTopLevel(source)?.length === 1;
}

export function alternativesOf(source: string): Alternatives | undefined {
  const group = wholeGroupBody(source);
  if (group !== undefined) {
    const alternatives = splitTopLevel(group);
    return alternatives && { form: 'whole', alternatives };
  }
  if (isWholeAnchored(source)) return { form: 'whole', alternatives: [source.slice(1, -1)] };
  const alternatives = splitTopLevel(source);
  return alternatives && { form: 'free', alternatives };
}

/** True only when every string `oldPattern` matches, `newPattern` provably matches too. */
export function patternProvablyWidens(oldPattern: string, newPattern: string): boolean {
  if (oldPattern === newPattern) return true;
  // Backreferences count groups: wrapping an alternative in a new group could renumber them.
  if ([oldPattern, newPattern].some((p) => /\\[1-9]|\\k</.test(p))) return false;
  const o = alternativesOf(oldPattern);
  const n = alternativesOf(newPattern);
  if (!o || !n) return false;
  const covered = (alts: string[], by: string[]) => alts.every((a) => by.includes(a));
  if (o.form === n.form) return covered(o.alternatives, n.alternatives);
  // A whole-string alternative `^a$` is also a free alternative of the new pattern when written `^a$` there.
  if (o.form === 'whole' && n.form === 'free') return covered(o.alternatives.map((a) => `^${a}$`), n.alternatives);
  return false;
}
