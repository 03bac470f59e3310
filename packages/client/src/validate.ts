// Checks made before anything is sent, with the rules read from the spec (generated/spec-rules.ts): the
// operation's Idempotency-Key schema, decimal amounts, mutually exclusive fields. Amounts are normalized to
// a canonical two-decimal string, so 37.45 and "37.45" are one request identity on every attempt.
import type { errorCodes } from '@payments/types';
import { ValidationError, type ErrorContext } from './errors.ts';
import { bodyRules, idempotencyKeyRules } from './generated/spec-rules.ts';

type KeyedOperation = keyof typeof idempotencyKeyRules;
/** The 400 codes that every operation taking a key has (an intersection: inferred from contravariant positions). */
type SharedBadRequestCode = { [Op in KeyedOperation]: (code: (typeof errorCodes)[Op]['400'][number]) => void }[KeyedOperation] extends (code: infer C) => void ? C : never;

/**
 * What an HTTP header carries exactly as given (RFC 9110 §5.5), whatever the spec allows: visible ASCII,
 * spaces inside only. Headers would trim outer whitespace (so the key sent would differ from the key
 * kept), throw on a newline, and send other characters in an encoding the server may read differently.
 */
export const HEADER_EXACT = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/** Refuses a key the operation's spec schema rejects, or one HTTP would not carry unchanged: the key reported is the key sent. */
export function checkIdempotencyKey(operationId: string | undefined, key: unknown, context: ErrorContext): void {
  const rule = (idempotencyKeyRules as Record<string, RegExp>)[operationId!];
  const problem =
    typeof key !== 'string'
      ? 'must be a string'
      : rule && !rule.test(key)
        ? `must match ${rule}`
        : !HEADER_EXACT.test(key)
          ? 'must be printable ASCII, without outer spaces'
          : undefined;
  // The code type-checked against the spec: a typo, or a spec without it for one of those operations, fails tsc.
  if (problem) throw new ValidationError('invalid_request' satisfies SharedBadRequestCode, `Idempotency-Key ${problem}`, 'Idempotency-Key', context);
}

/**
 * The canonical form of a decimal amount ("37.45", "100.00"), or undefined when it breaks the rule. A number
 * is taken only when its shortest round-trip text (String(n), what `37.45` prints as) is itself a valid
 * amount: nothing is rounded, and exponent forms fail the pattern. Beyond the exact integers (2^53), or 15
 * significant digits with decimals ("x.yz" in 16 characters), a double may stand for another amount than
 * the one written, so it is refused.
 */
export function normalizeAmount(value: unknown, pattern: RegExp): string | undefined {
  // A number below 2^53 written in at most 16 characters is taken as written; any other stays a number, refused.
  const text = typeof value === 'number' && value < 2 ** 53 && String(value).length < 17 ? String(value) : value;
  if (typeof text !== 'string' || !pattern.test(text)) return undefined;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** Validates a request body against its operation's rules; returns the body with amounts normalized. */
type BodyRule = { decimals: Record<string, { code: string; pattern: RegExp }>; exclusive?: readonly { fields: readonly string[]; code: string }[] };

export function checkBody<B>(operationId: string | undefined, body: B, context: ErrorContext): B {
  const rule = (bodyRules as Record<string, BodyRule>)[operationId!];
  if (!rule || Object(body) !== body) return body; // no rule, or not an object (undefined, null, a primitive)
  const fields = body as Record<string, unknown>;
  for (const group of rule.exclusive ?? []) {
    const present = group.fields.filter((f) => fields[f] !== undefined);
    if (present.length > 1) throw new ValidationError(group.code, `send only one of ${present.join(', ')}`, present[1], context);
  }
  let out: Record<string, unknown> | undefined;
  for (const [field, { code, pattern }] of Object.entries(rule.decimals)) {
    if (fields[field] === undefined) continue;
    const normalized = normalizeAmount(fields[field], pattern);
    if (normalized === undefined) {
      throw new ValidationError(code, `${field}: not a positive amount with at most 2 decimals`, field, context);
    }
    out ??= { ...fields };
    out[field] = normalized;
  }
  return (out ?? body) as B;
}
