// The client-rules audit (issue 13, deliver 3): one organization's journal in, the provider's rules the
// client broke out, each with the rule (section and words), the requests as evidence and what the client
// should have done. A pure function: no clock, no store, no I/O.
//
// Which requests are "the same payment": those under one key (the document's own model: the client derives
// the key from its stable id for the operation, and a new request takes a new key). The document never says
// that two keys with the same amount and recipient are one payment (two invoices of one amount are two), so
// requests under different keys are judged as one payment only when the caller knows the journal holds one
// payment of an operation (`onePayment`: a client-mode scenario asks for exactly one): then a new key for it
// is judged against what the previous key's last answer said, whatever its amount or recipient.
import type { ValidateFunction } from 'ajv';
import type { JournalEntry } from './journal.ts';
import { definite5xxWords, PROVIDER, type AuditRules, type OperationRules, type ProviderRule } from './rules.ts';

export type FindingKind =
  /** A new key for the same payment while the previous key's outcome was unknown (503/5xx, the edge's 502/504, no answer). */
  | 'new_key_after_unknown_outcome'
  /** The same payment retried sooner than the spec's minimum after a temporary 503 (x-retry). */
  | 'retry_before_minimum_delay'
  /** Waits that do not grow over consecutive temporary 503s of one payment. */
  | 'delays_not_growing'
  /** The same waits, to the millisecond, in every run of one scenario: no jitter. */
  | 'delays_without_jitter'
  /** The same payment retried before the Retry-After of an answer that requires waiting it. */
  | 'retry_before_retry_after'
  /** A new key for a transfer whose earlier attempt was answered 201 pending/completed: a duplicate payment. */
  | 'duplicate_payment'
  /** A second resource of the scenario's one payment under a new key, where the document has no rule for it: the scenario's expectation. */
  | 'second_resource'
  /** The client stopped while its payment was still open (an unknown outcome, a wait to sit out) and the scenario held the answer: the scenario's expectation. */
  | 'stopped_before_resolution'
  /** The client did not end by itself: the kit stopped it at its time limit. */
  | 'client_timed_out'
  /** A new key for a payment whose attempt is pending review. */
  | 'new_key_while_pending_review'
  /** One key sent with two different payment identities. */
  | 'key_reused_for_other_payment'
  /** A payment sent again after a definite refusal, and refused the same way again. */
  | 'retried_definite_answer'
  /** A POST without the Idempotency-Key its operation requires. */
  | 'post_without_key'
  /** A request the spec's request schemas reject (the key or the body). */
  | 'request_breaks_schema';

/** One request of the evidence, as the journal has it (time as ISO 8601). */
export interface Evidence {
  at: string;
  operationId: string;
  idempotencyKey: string | null;
  status: number | null;
  code: string | null;
  fault: string | null;
  answered: boolean;
  /** The status of the resource a 2xx answered with (a transfer's `pending`…): which resource it was. */
  resourceStatus: string | null;
}

/**
 * What a finding rests on: `document`, a rule of the provider's document (a failure); `assumed`, only an
 * x-assumed part of the spec (a warning naming the assumption: the provider never said it); `scenario`, what
 * the scenario asked the client for (one card, one session), not a rule of the document.
 */
export type Basis = 'document' | 'assumed' | 'scenario';

export interface Finding {
  kind: FindingKind;
  /** `failure` fails the client; `warning` (an assumption's finding) is reported apart and fails nothing. */
  severity: 'failure' | 'warning';
  basis: Basis;
  /** For `assumed`: the x-assumed node(s) the finding rests on, with their reasons. */
  assumptions?: { pointer: string; reason: string }[];
  /** The provider's rule broken; `spec` adds where the spec says it, when the check reads the spec. */
  rule: ProviderRule & { spec?: string };
  /** What happened, with the numbers. */
  detail: string;
  /** The requests that show it, in time order. */
  evidence: Evidence[];
  /** What the client should have done. */
  shouldHave: string;
}

type Outcome =
  | { kind: 'unknown'; cause: 'no answer' | 'edge' | '5xx' }
  | { kind: 'pending_review' | 'resolved' | 'closed' | 'rate_limited' }
  | { kind: 'refused'; code: string };

/** A transfer in one of these statuses closes its attempt: a new payment attempt takes a new key (section 3). */
const CLOSED = new Set(['failed', 'cancelled']);

/** What an answer told the client about its payment. */
export function outcomeOf(entry: JournalEntry, op: OperationRules, rules: AuditRules): Outcome {
  const { status, code } = entry;
  if (!entry.answered || status === null) return { kind: 'unknown', cause: 'no answer' };
  if (status < 300) return { kind: entry.resourceStatus !== null && CLOSED.has(entry.resourceStatus) ? 'closed' : 'resolved' };
  if (code === null && op.edgeStatuses.has(status)) return { kind: 'unknown', cause: 'edge' };
  if (code === rules.pendingReviewCode) return { kind: 'pending_review' };
  const known = code === null ? undefined : op.codes.get(code);
  // A 5xx leaves the outcome unknown (section 7), unless the catalog calls its code definite (not x-retryable).
  if (status >= 500) return known && !known.retryable ? { kind: 'refused', code: code! } : { kind: 'unknown', cause: '5xx' };
  // A 4xx is a refusal ("request rejected"), unless the spec retries it (a rate limit).
  return known?.retryable ? { kind: 'rate_limited' } : { kind: 'refused', code: code ?? `http_${status}` };
}

/** The operation's temporary failure (x-retry: the transfer's 503 without a transfer object): wait its minimum, retry with the same key. */
export const isTemporary = (e: JournalEntry, op: OperationRules, rules: AuditRules): boolean =>
  op.temporary !== undefined && e.answered && e.status === op.temporary.status && outcomeOf(e, op, rules).kind === 'unknown';

export const evidence = (e: JournalEntry): Evidence => ({
  at: new Date(e.at).toISOString(),
  operationId: e.operationId,
  idempotencyKey: e.idempotencyKey,
  status: e.status,
  code: e.code,
  fault: e.fault,
  answered: e.answered,
  resourceStatus: e.resourceStatus,
});
/** A wait to the tenth of a second, cut (never rounded) up: 59,950 ms is "59.9 s", never a "60 s" that meets a 60 s minimum. */
export const seconds = (ms: number) => `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
const answerOf = (e: JournalEntry) => (!e.answered ? 'no answer' : e.status === null ? 'nothing' : `${e.status}${e.code ? ` ${e.code}` : ''}`);

/** One payment's history: its last request, and the run of waits after consecutive temporary failures. */
interface PaymentState {
  last: JournalEntry;
  /** Keys of this payment, the latest last. */
  lastKey: string;
  run: { entries: JournalEntry[]; waits: number[] };
}
interface KeyState {
  first: JournalEntry;
  last: JournalEntry;
  /** An answer under this key was the temporary 503: what its 201 says is the outcome table's (section 3). */
  metTemporary: boolean;
  /** The other payments this key was reused for, each reported once (a client retrying the wrong request is one mistake). */
  reusedFor?: Set<string>;
}

export interface AuditOptions {
  /** The operationId of the ONE payment the journal holds (a client-mode scenario): its requests are that payment under any key. */
  onePayment?: string;
}

/** A finding as the checks write it: a rule of the document (a failure) unless it says otherwise. */
export type NewFinding = Omit<Finding, 'severity' | 'basis'> & Partial<Pick<Finding, 'severity' | 'basis'>>;
type Report = (at: number, f: NewFinding) => void;

export const stamp = (f: NewFinding): Finding => {
  const basis = f.basis ?? 'document';
  return { ...f, basis, severity: f.severity ?? (basis === 'assumed' ? 'warning' : 'failure') };
};

export function auditJournal(entries: readonly JournalEntry[], rules: AuditRules, options: AuditOptions = {}): Finding[] {
  const findings: { at: number; finding: Finding }[] = [];
  const report: Report = (at, finding) => findings.push({ at, finding: stamp(finding) });
  const keys = new Map<string, KeyState>();
  const payments = new Map<string, PaymentState>();
  const refusals = new Map<string, { code: string; entries: JournalEntry[] }>(); // by payment
  const ordered = entries.map((entry, index) => ({ entry, index })).sort((a, b) => a.entry.at - b.entry.at || a.index - b.index);

  for (const { entry: e, index } of ordered) {
    const op = rules.operations.get(e.operationId);
    if (!op || op.method !== 'POST') continue; // the rules below are about requests that create something
    checkSchema(e, op, rules, report);
    if (e.idempotencyKey === null && op.keyRequired) {
      report(e.at, {
        kind: 'post_without_key',
        rule: PROVIDER.keyRequired,
        detail: `${op.method} ${op.path} sent without an Idempotency-Key`,
        evidence: [evidence(e)],
        shouldHave: 'Send an Idempotency-Key with every POST, derived from your own stable id for the operation, and the same one on every retry.',
      });
    }
    // A request without a key is a key of its own: nothing can ever be replayed to it.
    const keyId = `${e.operationId}\n${e.idempotencyKey ?? `(none #${index})`}`;
    const paymentId = e.operationId === options.onePayment ? e.operationId : keyId;
    const key = keys.get(keyId);
    const payment = payments.get(paymentId);

    if (key && key.first.identity !== e.identity) {
      if (!key.reusedFor?.has(e.identity)) report(e.at, keyReused(key.first, e));
      (key.reusedFor ??= new Set()).add(e.identity);
    } else {
      if (!key && payment) checkNewKey(keys.get(payment.lastKey)!, e, op, rules, report);
      if (payment) checkWaits(payment, e, op, rules, report);
      trackRefusals(refusals, paymentId, e, op, rules);
    }

    const state = key ?? { first: e, last: e, metTemporary: false };
    state.last = e;
    state.metTemporary ||= isTemporary(e, op, rules);
    if (!key) keys.set(keyId, state);
    if (!key || key.first.identity === e.identity) {
      if (payment) {
        payment.last = e;
        payment.lastKey = keyId;
      } else payments.set(paymentId, { last: e, lastKey: keyId, run: { entries: [], waits: [] } });
    }
  }
  for (const payment of payments.values()) {
    const op = rules.operations.get(payment.last.operationId)!;
    if (payment.run.waits.length) endRun(payment, op, report); // runs the journal ends in
  }

  for (const { code, entries: repeated } of refusals.values()) {
    if (repeated.length < 2) continue;
    const op = rules.operations.get(repeated[0]!.operationId)!;
    const known = op.codes.get(code);
    const definite5xx = (repeated[0]!.status ?? 0) >= 500 ? definite5xxWords(code) : undefined;
    report(repeated[1]!.at, {
      kind: 'retried_definite_answer',
      rule: { ...(definite5xx ?? PROVIDER.refusals), spec: known ? `error catalog: ${code}, x-retryable: false` : `status ${repeated[0]!.status} (a refusal)` },
      detail: `the same payment was sent ${repeated.length} times and refused ${repeated.length} times with ${code}`,
      evidence: repeated.map(evidence),
      shouldHave: `Not repeat it: ${known?.action || 'the answer is definite; fix the request or the account, then send a corrected request under a new key'}`,
      // A 5xx is "a temporary server or provider failure" in the document's words; that this one is not
      // retried is the spec's reading (its x-retryable), so a retry of it is a warning, not a broken rule.
      ...(definite5xx && { basis: 'assumed' as const, assumptions: [{ pointer: `#/components/examples/${code}/x-retryable`, reason: known?.action ?? 'the spec\'s reading' }] }),
    });
  }
  return findings.sort((a, b) => a.at - b.at).map((f) => f.finding);
}

function checkSchema(e: JournalEntry, op: OperationRules, rules: AuditRules, report: Report): void {
  if (e.idempotencyKey !== null && op.validateKey && !op.validateKey(e.idempotencyKey)) {
    report(e.at, {
      kind: 'request_breaks_schema',
      rule: { ...(op.path.startsWith('/v1/checkout/') ? PROVIDER.checkoutKey : PROVIDER.keyRequired), spec: `${op.operationId}: Idempotency-Key parameter schema` },
      detail: `Idempotency-Key ${shownKey(e.idempotencyKey)}: ${ajvText(op.validateKey)}`,
      evidence: [evidence(e)],
      shouldHave: "Send a key the operation's schema accepts (the spec's Idempotency-Key parameter).",
      ...onAssumptions(rules, op.keyPointer, e.idempotencyKey, op.validateKey),
    });
  }
  if (e.body !== undefined && op.validateBody && !op.validateBody(e.body)) {
    report(e.at, {
      kind: 'request_breaks_schema',
      rule: { ...PROVIDER.bodies, spec: `${op.operationId}: request body ${op.bodyPointer}` },
      detail: `body: ${ajvText(op.validateBody)}`,
      evidence: [evidence(e)],
      shouldHave: 'Send a body the spec’s request schema accepts (validate it before sending).',
      ...onAssumptions(rules, op.bodyPointer, e.body, op.validateBody),
    });
  }
}

/**
 * A schema failure that disappears once the spec's x-assumed nodes are relaxed rests only on assumptions
 * (a 300-character key on transfers: the 1–255 bound is the spec's choice, section 4 sets none): a warning
 * naming them. Read from the spec (the same rule as the contract kit's), never a hand list.
 */
function onAssumptions(rules: AuditRules, pointer: string | undefined, value: unknown, validate: ValidateFunction): Partial<NewFinding> {
  if (!pointer?.startsWith('#/')) return {};
  const { onlyAssumptions, assumptions } = rules.assumptions.explain(pointer, value, [...(validate.errors ?? [])]);
  if (!onlyAssumptions) return {};
  const named = assumptions.length ? assumptions : [{ pointer, reason: 'marked x-assumed' }];
  return {
    basis: 'assumed',
    assumptions: named,
    rule: { section: 'not in the provider\'s document (assumed)', words: named.map((a) => a.reason).join(' '), spec: `x-assumed at ${named.map((a) => a.pointer).join(', ')}` },
  };
}

/** A key as text; a long one cut, with its length (the detail is about its length, not its characters). */
export const shownKey = (key: string | null): string => (key !== null && key.length > 64 ? `${JSON.stringify(key.slice(0, 40))}… (${key.length} characters)` : JSON.stringify(key));

const ajvText = (validate: { errors?: { instancePath: string; message?: string }[] | null }) =>
  (validate.errors ?? [])
    .slice(0, 3)
    .map((err) => `${err.instancePath || '(root)'} ${err.message ?? 'is invalid'}`)
    .join('; ');

function keyReused(first: JournalEntry, e: JournalEntry): NewFinding {
  // The client's own rule (QA: rule 4, quoted before for transfers, says what the service answers).
  const rule = e.operationId === 'createCheckoutSession' ? PROVIDER.checkoutIdentity : PROVIDER.sameKeyAfterTimeout;
  return {
    kind: 'key_reused_for_other_payment',
    rule,
    detail: `key ${JSON.stringify(e.idempotencyKey)} was first sent for ${first.identity}, then for ${e.identity}`,
    evidence: [evidence(first), evidence(e)],
    shouldHave: 'Use one key per payment: a different payment (another amount, recipient, price or method) takes a new key; a retry repeats the same request exactly.',
  };
}

/** The same payment sent again: the minimum wait after a temporary 503, growing waits, Retry-After. */
function checkWaits(payment: PaymentState, e: JournalEntry, op: OperationRules, rules: AuditRules, report: Report): void {
  const prev = payment.last;
  const waited = e.at - prev.at;
  const temporary = isTemporary(prev, op, rules);
  if (temporary && waited < op.temporary!.minDelayMs) {
    report(e.at, {
      kind: 'retry_before_minimum_delay',
      rule: { ...PROVIDER.waitAfter503, spec: `${op.operationId}: x-retry.temporaryUnavailable.minDelaySeconds` },
      detail: `sent again ${seconds(waited)} after a temporary ${prev.status}; the minimum is ${seconds(op.temporary!.minDelayMs)}`,
      evidence: [evidence(prev), evidence(e)],
      shouldHave: `Wait at least ${seconds(op.temporary!.minDelayMs)} after a temporary ${op.temporary!.status}, then retry with the same key.`,
    });
  }
  const run = payment.run;
  if (temporary) {
    if (!run.entries.length) run.entries.push(prev);
    run.entries.push(e);
    run.waits.push(waited);
  }
  if (!temporary || !(e.answered && e.status === op.temporary!.status)) endRun(payment, op, report);
  const bindingRetryAfter = prev.retryAfterSeconds !== null && prev.code !== null && op.codes.get(prev.code);
  if (bindingRetryAfter && bindingRetryAfter.retryable && !bindingRetryAfter.assumed && waited < prev.retryAfterSeconds! * 1000) {
    report(e.at, {
      kind: 'retry_before_retry_after',
      rule: PROVIDER.waitRetryAfter,
      detail: `sent again ${seconds(waited)} after ${prev.code} with Retry-After: ${prev.retryAfterSeconds}`,
      evidence: [evidence(prev), evidence(e)],
      shouldHave: `Wait the ${prev.retryAfterSeconds} s of Retry-After, then repeat the same request with the same key.`,
    });
  }
}

/**
 * The end of a run of consecutive temporary failures of one payment: its waits must grow ("if the error
 * continues, the delays increase with jitter"). Not growing: later waits all no longer than the first, or a
 * wait no longer than the one before yet more than half of it (a cap holding them level, or jitter under a
 * cap: 65, 148, 131 s passed before, QA). A wait at most half the last is let through: the journal cannot
 * tell it from a new call of the client starting its backoff again after a long pause.
 */
function endRun(payment: PaymentState, op: OperationRules, report: Report): void {
  const { entries, waits } = payment.run;
  const level = waits.some((wait, i) => i > 0 && wait <= waits[i - 1]! && wait > waits[i - 1]! / 2);
  if (waits.length >= 2 && (level || waits.slice(1).every((wait) => wait <= waits[0]!))) {
    report(entries[entries.length - 1]!.at, {
      kind: 'delays_not_growing',
      rule: { ...PROVIDER.growingDelays, spec: `${op.operationId}: x-retry.temporaryUnavailable.backoff` },
      detail: `waits after consecutive temporary ${op.temporary!.status}s: ${waits.map(seconds).join(', ')}`,
      evidence: entries.map(evidence),
      shouldHave: 'Lengthen the wait after each further temporary 503 (e.g. double it), with random jitter added.',
    });
  }
  payment.run = { entries: [], waits: [] };
}

/**
 * A new key for the one payment (`onePayment`): only after a definite answer under the previous key. A
 * changed amount or recipient does not make it another payment: the journal holds one.
 */
function checkNewKey(previousKey: KeyState, e: JournalEntry, op: OperationRules, rules: AuditRules, report: Report): void {
  const prev = previousKey.last;
  const outcome = outcomeOf(prev, op, rules);
  const oldKey = JSON.stringify(prev.idempotencyKey);
  const shown = prev === previousKey.first ? [evidence(prev), evidence(e)] : [evidence(previousKey.first), evidence(prev), evidence(e)];
  const changed = e.identity === prev.identity ? '' : ' (sent with another amount or recipient: still the one payment)';
  if (outcome.kind === 'unknown') {
    // A 5xx whose Retry-After the spec makes binding (provider_rate_limited: "nothing was processed") asked for
    // the same request again: the new key breaks that rule, not a risk of paying twice (QA).
    const repeatAsked = outcome.cause === '5xx' && prev.retryAfterSeconds !== null && prev.code !== null && op.codes.get(prev.code)?.retryable === true && !op.codes.get(prev.code)?.assumed;
    const rule = outcome.cause === 'edge' ? PROVIDER.edgeIsATimeout : outcome.cause === 'no answer' ? PROVIDER.sameKeyAfterTimeout : repeatAsked ? PROVIDER.waitRetryAfter : PROVIDER.neverNewKeyOn5xx;
    const why = repeatAsked ? `that answer asked for the same request again, with the same key, after its Retry-After (${prev.retryAfterSeconds} s)` : 'if that attempt went through, this one does it twice';
    report(e.at, {
      kind: 'new_key_after_unknown_outcome',
      rule,
      detail: `a new key ${JSON.stringify(e.idempotencyKey)} for the same payment${changed} after ${answerOf(prev)} under ${oldKey}: ${why}`,
      evidence: shown,
      shouldHave: `Retry with the same key ${oldKey} and the same request until an answer says what happened; a new key only after a closed attempt (a transfer's 201 failed/cancelled) or a definite refusal.`,
    });
  } else if (outcome.kind === 'resolved' && previousKey.metTemporary && op.codes.has(rules.pendingReviewCode)) {
    // The outcome table (section 3) is about the retries after a temporary 503: its 201 pending/completed
    // resolved the attempt, so a new key for the same payment pays it twice. After a 201 that met no 503
    // the document has no rule: a second transfer is the scenario's expectation (the client mode's).
    report(e.at, {
      kind: 'duplicate_payment',
      rule: PROVIDER.resolvedKeepKey,
      detail: `a new key ${JSON.stringify(e.idempotencyKey)} for the same payment after ${answerOf(prev)} (transfer ${prev.resourceStatus ?? 'created'}) under ${oldKey}: ${e.status !== null && e.status < 300 ? `two transfers now exist for one payment, one under each key (${oldKey}: ${prev.resourceStatus ?? 'created'}, ${JSON.stringify(e.idempotencyKey)}: ${e.resourceStatus ?? 'created'})` : 'a second transfer for one payment was asked for'}`,
      evidence: shown,
      shouldHave: `Keep the original key ${oldKey} and track that transfer (it is ${prev.resourceStatus ?? 'created'}); do not submit the payment again. A new key only after a 201 failed/cancelled.`,
    });
  } else if (outcome.kind === 'pending_review') {
    report(e.at, {
      kind: 'new_key_while_pending_review',
      rule: PROVIDER.pendingReview,
      detail: `a new key ${JSON.stringify(e.idempotencyKey)} for a payment whose attempt under ${oldKey} is pending review`,
      evidence: shown,
      shouldHave: `Ask again later with the same key ${oldKey}; contact support (quoting the requestId) if it does not resolve. Never a new key.`,
    });
  }
}

/**
 * Where a journal leaves its payment of `operationId` open: its last request, when that answer leaves the
 * outcome unknown or asks for a wait (a retry with the same key is due), with the document's words for
 * that retry. Undefined when the last answer ends the payment (a 2xx, a refusal, pending review: stopping
 * there is right), or when there is no such request.
 */
export function openEnd(entries: readonly JournalEntry[], operationId: string, rules: AuditRules): { entry: JournalEntry; answer: string; rule: ProviderRule } | undefined {
  const op = rules.operations.get(operationId);
  const last = entries.filter((e) => e.operationId === operationId).sort((a, b) => a.at - b.at).at(-1);
  if (!op || !last) return undefined;
  const rule = retryWords(last, outcomeOf(last, op, rules), op, rules);
  return rule && { entry: last, answer: answerOf(last), rule };
}

/** The document's words for the retry an answer asks for; undefined when it ends the payment. */
function retryWords(e: JournalEntry, outcome: Outcome, op: OperationRules, rules: AuditRules): ProviderRule | undefined {
  if (outcome.kind === 'rate_limited') return PROVIDER.rateLimit;
  if (outcome.kind !== 'unknown') return undefined;
  if (outcome.cause === 'edge') return PROVIDER.edgeIsATimeout;
  if (outcome.cause === 'no answer') return PROVIDER.sameKeyAfterTimeout;
  const code = e.code === null ? undefined : op.codes.get(e.code);
  if (code?.retryable && !code.assumed && e.retryAfterSeconds !== null) return PROVIDER.waitRetryAfter;
  return isTemporary(e, op, rules) ? PROVIDER.waitAfter503 : PROVIDER.neverNewKeyOn5xx;
}

/** Refusals of a payment followed by the same refusal of the same payment: a retry loop on a definite answer. */
function trackRefusals(refusals: Map<string, { code: string; entries: JournalEntry[] }>, paymentId: string, e: JournalEntry, op: OperationRules, rules: AuditRules): void {
  const outcome = outcomeOf(e, op, rules);
  const seen = refusals.get(paymentId);
  if (outcome.kind !== 'refused') {
    refusals.delete(paymentId); // a different answer: the client fixed something, or the account changed
    return;
  }
  if (seen && seen.code === outcome.code) seen.entries.push(e);
  else refusals.set(paymentId, { code: outcome.code, entries: [e] });
}
