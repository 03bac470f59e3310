// Checks made before anything is sent, with the rules read from the spec (generated/spec-rules.ts): the
// operation's Idempotency-Key schema, decimal amounts, mutually exclusive fields. Amounts are normalized to
// a canonical two-decimal string, so 37.45 and "37.45" are one request identity on every attempt.
import { ValidationError, type ErrorContext } from './errors.ts';
import { bodyRules, idempotencyKeyRules } from './generated/spec-rules.ts';

type Rules = { minLength?: number; maxLength?: number; pattern?: string };

const compiled = new Map<string, RegExp>();
/** The spec's patterns, compiled once: this runs on every call. */
const regex = (pattern: string) => compiled.get(pattern) ?? compiled.set(pattern, new RegExp(pattern)).get(pattern)!;

export function checkIdempotencyKey(operationId: string, key: string, context: ErrorContext): void {
  const rule = (idempotencyKeyRules as Record<string, Rules>)[operationId];
  if (!rule) return;
  const bad =
    (rule.minLength !== undefined && key.length < rule.minLength) ||
    (rule.maxLength !== undefined && key.length > rule.maxLength) ||
    (rule.pattern !== undefined && !regex(rule.pattern).test(key));
  if (bad) {
    throw new ValidationError('invalid_request', `Idempotency-Key must match ${rule.pattern ?? `${rule.minLength}–${rule.maxLength} characters`}`, 'Idempotency-Key', context);
  }
}

/** The canonical form of a decimal amount ("37.45", "100.00"), or undefined when it breaks the rule. */
export function normalizeAmount(value: unknown, pattern: string): string | undefined {
  let text: string;
  if (typeof value === 'number') {
    const cents = Math.round(value * 100);
    if (!Number.isFinite(value) || value <= 0 || Math.abs(cents - value * 100) > 1e-6) return undefined;
    text = (cents / 100).toFixed(2);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return undefined;
  }
  if (!regex(pattern).test(text)) return undefined;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** Validates a request body against its operation's rules; returns the body with amounts normalized. */
export function checkBody<B>(operationId: string, body: B, context: ErrorContext): B {
  const rule = (bodyRules as Record<string, (typeof bodyRules)[keyof typeof bodyRules]>)[operationId];
  if (!rule || typeof body !== 'object' || body === null) return body;
  const fields = body as Record<string, unknown>;
  for (const group of rule.exclusive) {
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
