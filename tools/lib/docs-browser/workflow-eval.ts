// The Arazzo runtime expressions and criteria the docs' workflow runner evaluates in the browser: the subset our
// workflows use (test/workflows/docs-workflows.test.ts checks that every expression of openapi/workflows/ is in
// it). `$inputs.x`, `$steps.s.outputs.o`, `$statusCode`, `$response.body#/pointer`, `$response.header.H`,
// `$request.header.H`, `{…}` embedded in strings; simple conditions `a OP b` joined by && and ||; RFC 9535 filters `$[?…]` made of
// `@.f`, `!@.f`, `@.f == 'v'` (or `== {$expr}`, written in as a JSON literal) joined by && and ||, applied to the
// context object as Respect does.

export interface EvalContext {
  inputs: Record<string, unknown>;
  steps: Record<string, Record<string, unknown>>;
  statusCode?: number;
  body?: unknown;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
}

export class UnsupportedExpression extends Error {}

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

function atPointer(value: unknown, pointer: string): unknown {
  let node = value;
  for (const part of pointer.split('/').slice(1).map(unescapePointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

const header = (headers: Record<string, string> | undefined, name: string) => Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The value of one runtime expression (a string starting with `$`). */
export function evaluate(expression: string, ctx: EvalContext): unknown {
  let m: RegExpExecArray | null;
  if ((m = /^\$inputs\.([\w.-]+)$/.exec(expression))) return ctx.inputs[m[1]!];
  if ((m = /^\$steps\.([\w-]+)\.outputs\.([\w.-]+)$/.exec(expression))) return ctx.steps[m[1]!]?.[m[2]!];
  if (expression === '$statusCode') return ctx.statusCode;
  if ((m = /^\$response\.body(#.*)?$/.exec(expression))) return m[1] ? atPointer(ctx.body, m[1].slice(1)) : ctx.body;
  if ((m = /^\$response\.header\.(.+)$/.exec(expression))) return header(ctx.responseHeaders, m[1]!);
  if ((m = /^\$request\.header\.(.+)$/.exec(expression))) return header(ctx.requestHeaders, m[1]!);
  throw new UnsupportedExpression(`the console does not evaluate ${expression}`);
}

/** A parameter value or payload with its expressions replaced: a lone expression keeps its type, `{…}` in text becomes text. */
export function interpolate(value: unknown, ctx: EvalContext): unknown {
  if (typeof value === 'string') {
    if (/^\$[a-zA-Z]/.test(value)) return evaluate(value, ctx);
    return value.replace(/\{(\$[^}]+)\}/g, (_, e: string) => String(evaluate(e, ctx)));
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, ctx));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, ctx)]));
  return value;
}

function operand(text: string, ctx: EvalContext): unknown {
  const t = text.trim();
  if (t.startsWith('$')) return evaluate(t, ctx);
  if (/^'.*'$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  throw new UnsupportedExpression(`the console does not read the operand ${t}`);
}

/** Loose equality the way Respect compares a header's text with a number (Retry-After: "2" == 2); an absent value equals null. */
const same = (a: unknown, b: unknown) => (a ?? null) === (b ?? null) || (a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b));

/** Comparisons joined by && and || (no parentheses: && binds tighter, as in Respect). */
function simple(condition: string, ctx: EvalContext): boolean {
  return condition.split('||').some((any) => any.split('&&').every((term) => comparison(term.trim(), ctx)));
}

function comparison(condition: string, ctx: EvalContext): boolean {
  const m = /^(.+?)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(condition);
  if (!m) throw new UnsupportedExpression(`the console does not read the condition ${condition}`);
  const [a, b] = [operand(m[1]!, ctx), operand(m[3]!, ctx)];
  switch (m[2]) {
    case '==':
      return same(a, b);
    case '!=':
      return !same(a, b);
    default: {
      const [x, y] = [Number(a), Number(b)];
      return m[2] === '<' ? x < y : m[2] === '>' ? x > y : m[2] === '<=' ? x <= y : x >= y;
    }
  }
}

function filterTerm(term: string, node: Record<string, unknown>): boolean {
  const t = term.trim();
  let m: RegExpExecArray | null;
  if ((m = /^!@\.(\w+)$/.exec(t))) return node[m[1]!] === undefined || node[m[1]!] === null || node[m[1]!] === false;
  if ((m = /^@\.(\w+)$/.exec(t))) return node[m[1]!] !== undefined && node[m[1]!] !== null && node[m[1]!] !== false;
  if ((m = /^@\.(\w+)\s*(==|!=)\s*(?:'([^']*)'|("(?:[^"\\]|\\.)*"))$/.exec(t))) return (node[m[1]!] === (m[3] ?? JSON.parse(m[4]!))) === (m[2] === '==');
  throw new UnsupportedExpression(`the console does not read the filter term ${t}`);
}

/** `{$expr}` in a filter becomes the value as a JSON literal first, as Respect writes it (a string in double quotes). */
function jsonpath(condition: string, context: unknown, ctx: EvalContext): boolean {
  const written = condition.replace(/\{(\$[^{}]+)\}/g, (_, e: string) => JSON.stringify(evaluate(e, ctx)));
  const m = /^\$\[\?(.+)\]$/.exec(written.trim());
  if (!m) throw new UnsupportedExpression(`the console reads only $[?…] filters, not ${condition}`);
  if (!context || typeof context !== 'object') return false;
  const node = context as Record<string, unknown>;
  return m[1]!.split('||').some((any) => any.split('&&').every((term) => filterTerm(term, node)));
}

export interface Criterion {
  condition: string;
  type?: string;
  context?: string;
}

export function meets(criterion: Criterion, ctx: EvalContext): boolean {
  if (criterion.type === 'jsonpath') return jsonpath(criterion.condition, evaluate(criterion.context ?? '$response.body', ctx), ctx);
  if (criterion.type && criterion.type !== 'simple') throw new UnsupportedExpression(`the console does not evaluate ${criterion.type} criteria`);
  return simple(criterion.condition, ctx);
}
