// The client-rules audit (src/audit) on journals a correct and a careless client produce. The journals are
// recorded, not hand-written, where that is possible: a scripted server in virtual time answers each fault
// scenario of issue 13 and records one JournalEntry per request, while the REAL client (@payments/client,
// through a payer loop that follows classifyTransfer) or a careless client (a fresh key per retry, 2-second
// waits, retrying checkout_pix_not_available, a new key after pending review) talks to it. The audit must
// find every rule the careless client breaks and nothing for the correct one.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@payments/spec';
import { classifyTransfer, createPaymentsClient, type PaymentsClient, type RetryOptions } from '@payments/client';
import { auditJitter, auditJournal, auditRules, formatFindings, openEnd, paymentIdentity, PROVIDER, type AuditOptions, type Finding, type JournalEntry } from '../src/audit/index.ts';

const rules = auditRules(loadSpec());
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

/** One scripted answer; `drop` commits, then cuts the connection; `edge` is the edge's body-less 502/504. */
type Reply =
  | { status: number; code?: string; transferStatus?: string; retryAfter?: number; fault?: string }
  | { drop: true; status: number; transferStatus: string };

const OPS: Record<string, string> = {
  'POST /v1/banking/transfers': 'createTransfer',
  'POST /v1/cards': 'issueCard',
  'POST /v1/checkout/sessions': 'createCheckoutSession',
};

/** A server in virtual time: the n-th request gets the n-th reply (the last one repeats); each request is journaled. */
function scriptedServer(script: Reply[]) {
  const journal: JournalEntry[] = [];
  let now = T0;
  const fetch = async (request: Request): Promise<Response> => {
    const text = await request.text();
    const body: unknown = text ? JSON.parse(text) : undefined;
    const operationId = OPS[`${request.method} ${new URL(request.url).pathname}`]!;
    const reply = script[Math.min(journal.length, script.length - 1)]!;
    const entry: JournalEntry = {
      at: now,
      operationId,
      idempotencyKey: request.headers.get('idempotency-key'),
      identity: paymentIdentity(operationId, body),
      body,
      status: reply.status,
      code: 'code' in reply ? (reply.code ?? null) : null,
      resourceStatus: reply.transferStatus ?? null,
      retryAfterSeconds: 'retryAfter' in reply ? (reply.retryAfter ?? null) : null,
      fault: 'drop' in reply ? 'drop_after_commit' : 'fault' in reply ? (reply.fault ?? null) : null,
      answered: !('drop' in reply),
    };
    journal.push(entry);
    if ('drop' in reply) throw new TypeError('fetch failed: other side closed');
    const headers: Record<string, string> = reply.retryAfter ? { 'retry-after': String(reply.retryAfter) } : {};
    if (reply.status < 300) {
      const resource = { id: 'trf_1', recipientId: 'rcp_1', amount: '150.00', status: reply.transferStatus ?? 'pending', idempotencyKey: 'k' };
      return Response.json(resource, { status: reply.status, headers });
    }
    if (!reply.code) return new Response('<html>bad gateway</html>', { status: reply.status, headers });
    return Response.json({ error: reply.code, code: reply.code, requestId: '0bc36b14-a5d1-4c4e-a530-545c2573fb85' }, { status: reply.status, headers });
  };
  return {
    journal,
    fetch,
    now: () => now,
    sleep: async (ms: number) => void (now += ms),
  };
}

type Server = ReturnType<typeof scriptedServer>;
interface Scenario {
  name: string;
  operation: 'transfer' | 'card' | 'checkout';
  script: Reply[];
}

const temporary503: Reply = { status: 503, code: 'temporarily_unavailable' };
const scenarios: Scenario[] = [
  { name: 'transfer 503 then resolved', operation: 'transfer', script: [temporary503, { status: 201, transferStatus: 'completed' }] },
  { name: 'three 503s', operation: 'transfer', script: [temporary503, temporary503, temporary503, { status: 201, transferStatus: 'pending' }] },
  { name: 'edge 502 after commit', operation: 'transfer', script: [{ status: 502, fault: 'edge_502' }, { status: 201, transferStatus: 'pending' }] },
  { name: '504 before processing', operation: 'transfer', script: [{ status: 504, fault: 'edge_504' }, { status: 201, transferStatus: 'pending' }] },
  { name: 'dropped connection after commit', operation: 'transfer', script: [{ drop: true, status: 201, transferStatus: 'pending' }, { status: 201, transferStatus: 'pending' }] },
  {
    name: 'pending review',
    operation: 'transfer',
    script: [{ status: 409, code: 'banking_transfer_attempt_pending_review', fault: 'pending_review' }, { status: 201, transferStatus: 'completed' }],
  },
  { name: 'card provider_rate_limited', operation: 'card', script: [{ status: 503, code: 'provider_rate_limited', retryAfter: 7, fault: 'provider_rate_limited' }, { status: 201 }] },
  { name: 'checkout PIX not set up', operation: 'checkout', script: [{ status: 503, code: 'checkout_pix_not_available' }] },
];

const sessionBody = { amount: '37.45', paymentMethod: 'pix' };
/** A scenario's journal holds its one payment (as in client mode): requests under any key are that payment. */
const onePayment = (scenario: Scenario): AuditOptions => ({ onePayment: { transfer: 'createTransfer', card: 'issueCard', checkout: 'createCheckoutSession' }[scenario.operation] });

/**
 * Our client, default options, with a payer loop as the README's: classifyTransfer decides, a later round
 * keeps the key. `n` tells payments apart (its own key and recipient) when journals are merged.
 */
async function correctPayer(server: Server, scenario: Scenario, n = 1, retry?: RetryOptions): Promise<void> {
  const client: PaymentsClient = createPaymentsClient({
    apiKey: 'svc_live_auditcorrect01',
    baseUrl: 'https://sandbox.invalid',
    fetch: server.fetch,
    sleep: server.sleep,
    now: server.now,
    ...(retry ? { retry } : {}),
  });
  const idempotencyKey = `order-${scenario.operation}-${n}`;
  const transferBody = { recipientId: `rcp_${n}`, amount: 150 }; // a number: sent as "150.00" by our client
  for (let round = 0; round < 5; round++) {
    try {
      const result =
        scenario.operation === 'transfer'
          ? await client.POST('/v1/banking/transfers', { body: transferBody, idempotencyKey })
          : scenario.operation === 'card'
            ? await client.POST('/v1/cards', { body: {}, idempotencyKey })
            : await client.POST('/v1/checkout/sessions', { body: sessionBody, idempotencyKey });
      if (scenario.operation !== 'transfer' || classifyTransfer(result).kind !== 'unresolved') return;
    } catch (err) {
      const kind = classifyTransfer(err).kind;
      if (kind !== 'unresolved' && kind !== 'pending_review') return;
    }
    await server.sleep(10 * 60_000); // a later run, with the SAME key
  }
}

/** Everything the issue calls careless: a fresh key per attempt, 2-second waits, retrying whatever failed. */
async function carelessPayer(server: Server, scenario: Scenario): Promise<void> {
  const path = { transfer: '/v1/banking/transfers', card: '/v1/cards', checkout: '/v1/checkout/sessions' }[scenario.operation];
  const body = { transfer: { recipientId: 'rcp_1', amount: '150.00' }, card: {}, checkout: sessionBody }[scenario.operation];
  for (let attempt = 1; attempt <= 4; attempt++) {
    let ok = false;
    try {
      const response = await server.fetch(
        new Request(`https://sandbox.invalid${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `careless-${scenario.operation}-${attempt}` },
          body: JSON.stringify(body),
        }),
      );
      ok = response.ok;
    } catch {
      ok = false;
    }
    if (ok) return;
    await server.sleep(2_000);
  }
}

async function journalOf(payer: (server: Server, scenario: Scenario) => Promise<void>, scenario: Scenario): Promise<JournalEntry[]> {
  const server = scriptedServer(scenario.script);
  await payer(server, scenario);
  return server.journal;
}

const kinds = (findings: Finding[]) => findings.map((f) => f.kind);

describe('a correct client (ours, following classifyTransfer): zero findings in every scenario', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (_name, scenario) => {
    const journal = await journalOf(correctPayer, scenario);
    expect(journal.length).toBeGreaterThan(0);
    const findings = auditJournal(journal, rules, onePayment(scenario));
    expect(findings, formatFindings(findings)).toEqual([]);
  });

  it('all scenarios in one journal (one organization, payments interleaved in time): still zero', async () => {
    const all = (await Promise.all(scenarios.map((s, i) => journalOf((server) => correctPayer(server, s, i + 1), s)))).flat();
    expect(all.length).toBeGreaterThan(scenarios.length);
    const findings = auditJournal(all, rules);
    expect(findings, formatFindings(findings)).toEqual([]);
  });

  it('a long outage outlasting the client’s call (its backoff restarts in a later round): still growing overall, zero', async () => {
    const outage: Scenario = { name: 'long outage', operation: 'transfer', script: [temporary503, temporary503, temporary503, { status: 201, transferStatus: 'pending' }] };
    const journal = await journalOf((server) => correctPayer(server, outage, 1, { operations: { createTransfer: { maxAttempts: 2 } } }), outage);
    expect(journal.map((e) => e.status)).toEqual([503, 503, 503, 201]);
    const findings = auditJournal(journal, rules, onePayment(outage));
    expect(findings, formatFindings(findings)).toEqual([]);
  });
});

describe('a careless client: every rule it breaks, named', () => {
  const expected: Record<string, string[]> = {
    'transfer 503 then resolved': ['new_key_after_unknown_outcome', 'retry_before_minimum_delay'],
    'three 503s': [
      'new_key_after_unknown_outcome',
      'retry_before_minimum_delay',
      'new_key_after_unknown_outcome',
      'retry_before_minimum_delay',
      'delays_not_growing',
      'new_key_after_unknown_outcome',
      'retry_before_minimum_delay',
    ],
    'edge 502 after commit': ['new_key_after_unknown_outcome'],
    '504 before processing': ['new_key_after_unknown_outcome'],
    'dropped connection after commit': ['new_key_after_unknown_outcome'],
    'pending review': ['new_key_while_pending_review'],
    'card provider_rate_limited': ['new_key_after_unknown_outcome', 'retry_before_retry_after'],
    'checkout PIX not set up': ['retried_definite_answer'],
  };

  it.each(scenarios.map((s) => [s.name, s] as const))('%s', async (name, scenario) => {
    const journal = await journalOf(carelessPayer, scenario);
    const findings = auditJournal(journal, rules, onePayment(scenario));
    expect(kinds(findings).sort(), formatFindings(findings)).toEqual([...expected[name]!].sort());
    for (const f of findings) {
      expect(f.evidence.length).toBeGreaterThan(0);
      expect(f.rule.words.length).toBeGreaterThan(10);
      expect(f.shouldHave).not.toBe('');
    }
  });

  it('a retried checkout_pix_not_available is a warning on the spec\'s reading: the document gives that 503 no retry advice', async () => {
    const scenario = scenarios.find((s) => s.name === 'checkout PIX not set up')!;
    const [finding] = auditJournal(await journalOf(carelessPayer, scenario), rules, onePayment(scenario));
    expect(finding).toMatchObject({ kind: 'retried_definite_answer', severity: 'warning', basis: 'assumed', assumptions: [{ pointer: '#/components/examples/checkout_pix_not_available/x-retryable' }] });
    expect(finding!.assumptions![0]!.reason).toMatch(/no retry advice/);
  });

  it('cites the rule that was broken, with the evidence: a new key after a temporary 503', async () => {
    const journal = await journalOf(carelessPayer, scenarios[0]!);
    const [newKey, tooSoon] = auditJournal(journal, rules, onePayment(scenarios[0]!));
    expect(newKey).toMatchObject({
      kind: 'new_key_after_unknown_outcome',
      rule: PROVIDER.neverNewKeyOn5xx,
      evidence: [
        { idempotencyKey: 'careless-transfer-1', status: 503, code: 'temporarily_unavailable', at: new Date(T0).toISOString() },
        { idempotencyKey: 'careless-transfer-2', status: 201, at: new Date(T0 + 2_000).toISOString() },
      ],
    });
    expect(newKey!.shouldHave).toContain('"careless-transfer-1"');
    expect(tooSoon).toMatchObject({ kind: 'retry_before_minimum_delay', rule: PROVIDER.waitAfter503, detail: expect.stringContaining('2.0 s after a temporary 503; the minimum is 60.0 s') });
  });

  // QA: the finding said "if that attempt went through, this one does it twice" and quoted rule 8, where the
  // document says this 503 processed nothing and asks for the same request, with the same key, after Retry-After.
  it("names a new key after provider_rate_limited by that code's own rule: the same request again after Retry-After", async () => {
    const scenario = scenarios.find((s) => s.name === 'card provider_rate_limited')!;
    const newKey = auditJournal(await journalOf(carelessPayer, scenario), rules, onePayment(scenario)).find((f) => f.kind === 'new_key_after_unknown_outcome')!;
    expect(newKey.rule).toEqual(PROVIDER.waitRetryAfter);
    expect(newKey.detail).toMatch(/after 503 provider_rate_limited under "careless-card-1": that answer asked for the same request again, with the same key, after its Retry-After \(7 s\)$/);
    expect(newKey.detail).not.toContain('twice');
  });

  it('names the edge and the dropped connection by their own rules', async () => {
    const [edge] = auditJournal(await journalOf(carelessPayer, scenarios[2]!), rules, onePayment(scenarios[2]!));
    expect(edge!.rule).toEqual(PROVIDER.edgeIsATimeout);
    const [dropped] = auditJournal(await journalOf(carelessPayer, scenarios[4]!), rules, onePayment(scenarios[4]!));
    expect(dropped!.rule).toEqual(PROVIDER.sameKeyAfterTimeout);
    expect(dropped!.evidence[0]).toMatchObject({ answered: false, fault: 'drop_after_commit' });
  });
});

/** A hand-written entry for the kinds no scenario above produces. */
const entry = (at: number, operationId: string, key: string | null, body: unknown, answer: Partial<JournalEntry> = {}): JournalEntry => ({
  at: T0 + at,
  operationId,
  idempotencyKey: key,
  identity: paymentIdentity(operationId, body),
  body,
  status: 201,
  code: null,
  resourceStatus: null,
  retryAfterSeconds: null,
  fault: null,
  answered: true,
  ...answer,
});

describe('the other kinds, on hand-written journals', () => {
  it('a POST without a key; a key and a body that break the spec (Ajv over the spec)', () => {
    const findings = auditJournal(
      [
        entry(0, 'createTransfer', null, { recipientId: 'rcp_1', amount: '10.00' }),
        entry(1_000, 'createCheckoutSession', 'short', { amount: '10.00', paymentMethod: 'pix' }, { status: 400, code: 'invalid_request' }),
        entry(2_000, 'createTransfer', 'order-9', { recipientId: 'rcp_1', amount: '10.001' }, { status: 400, code: 'invalid_request' }),
      ],
      rules,
    );
    expect(kinds(findings)).toEqual(['post_without_key', 'request_breaks_schema', 'request_breaks_schema']);
    expect(findings[1]!.rule).toMatchObject(PROVIDER.checkoutKey);
    expect(findings[1]!.detail).toMatch(/Idempotency-Key "short": .*must (NOT have fewer than 8 characters|match pattern)/);
    expect(findings[2]!.detail).toMatch(/^body: \/amount /);
  });

  it('one key for two payments (a changed amount): named once per other payment, with both requests, under the client\'s rule', () => {
    const findings = auditJournal(
      [
        entry(0, 'createTransfer', 'invoice-7', { recipientId: 'rcp_1', amount: '10.00' }),
        entry(5_000, 'createTransfer', 'invoice-7', { recipientId: 'rcp_1', amount: '12.00' }, { status: 409, code: 'banking_transfer_idempotency_conflict' }),
        // The same mistake retried: one finding; another amount again: a second one.
        entry(10_000, 'createTransfer', 'invoice-7', { recipientId: 'rcp_1', amount: '12.00' }, { status: 409, code: 'banking_transfer_idempotency_conflict' }),
        entry(15_000, 'createTransfer', 'invoice-7', { recipientId: 'rcp_1', amount: '12.00' }, { status: 409, code: 'banking_transfer_idempotency_conflict' }),
        entry(20_000, 'createTransfer', 'invoice-7', { recipientId: 'rcp_1', amount: '13.00' }, { status: 409, code: 'banking_transfer_idempotency_conflict' }),
      ],
      rules,
    );
    expect(findings.map((f) => f.kind)).toEqual(['key_reused_for_other_payment', 'key_reused_for_other_payment']);
    // The client's rule (section 7, Idempotency rule 3), not the service's answer (rule 4).
    expect(findings[0]).toMatchObject({ kind: 'key_reused_for_other_payment', rule: PROVIDER.sameKeyAfterTimeout });
    expect(findings[0]!.rule.section).toBe('7. Errors, Idempotency, rule 3');
    expect(findings[0]!.evidence.map((e) => e.status)).toEqual([201, 409]);
    expect(findings[1]!.detail).toContain('13.00');
  });

  it('a 4xx refusal retried and refused again is a loop; a fix that changes the answer is not', () => {
    const rejected = { status: 422, code: 'pix_quote_rejected' };
    const loop = auditJournal(
      [entry(0, 'createTransfer', 'a', { recipientId: 'rcp_1', amount: '10.00' }, rejected), entry(3_000, 'createTransfer', 'b', { recipientId: 'rcp_1', amount: '10.00' }, rejected)],
      rules,
      { onePayment: 'createTransfer' },
    );
    expect(kinds(loop)).toEqual(['retried_definite_answer']);
    expect(loop[0]!.rule).toMatchObject(PROVIDER.refusals);
    const notFound = { status: 404, code: 'recipient_not_found' };
    const fixed = auditJournal(
      [entry(0, 'createTransfer', 'a', { recipientId: 'rcp_1', amount: '10.00' }, notFound), entry(60_000, 'createTransfer', 'b', { recipientId: 'rcp_1', amount: '10.00' })],
      rules,
    );
    expect(fixed).toEqual([]);
  });

  it('must not cry wolf: a new key after a closed attempt or a definite refusal; the same key after a resolved one', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const findings = auditJournal(
      [
        entry(0, 'createTransfer', 'a', body, temporary503Entry()),
        entry(61_000, 'createTransfer', 'a', body, { resourceStatus: 'failed' }), // closed: a new attempt needs a new key
        entry(70_000, 'createTransfer', 'b', body, { status: 404, code: 'recipient_not_found' }),
        entry(80_000, 'createTransfer', 'c', body, { resourceStatus: 'pending' }), // after a definite refusal
        entry(90_000, 'createTransfer', 'c', body, { resourceStatus: 'pending' }), // a replay (a crash-resume): harmless
        entry(95_000, 'createCheckoutSession', 'cart-1:session', { amount: 37.45, paymentMethod: 'pix' }),
        entry(96_000, 'createCheckoutSession', 'cart-1:session', { paymentMethod: 'pix', amount: '37.45' }), // the same identity
      ],
      rules,
      { onePayment: 'createTransfer' },
    );
    expect(findings, formatFindings(findings)).toEqual([]);
  });

  it('one payment, a new key after the 201 pending or completed that resolved a 503 is a duplicate payment; after a 201 failed or cancelled it is right (section 3)', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const after = (resourceStatus: string, options: AuditOptions = { onePayment: 'createTransfer' }) =>
      auditJournal(
        [entry(0, 'createTransfer', 'a', body, temporary503Entry()), entry(61_000, 'createTransfer', 'a', body, { resourceStatus }), entry(65_000, 'createTransfer', 'b', body, { resourceStatus: 'pending' })],
        rules,
        options,
      );
    for (const status of ['pending', 'completed']) {
      const [finding, ...rest] = after(status);
      expect(rest).toEqual([]);
      expect(finding).toMatchObject({ kind: 'duplicate_payment', rule: PROVIDER.resolvedKeepKey, severity: 'failure', basis: 'document' });
      expect(finding!.evidence.map((e) => [e.idempotencyKey, e.status, e.resourceStatus])).toEqual([['a', 503, null], ['a', 201, status], ['b', 201, 'pending']]);
      expect(finding!.shouldHave).toContain('Keep the original key "a"');
      // Without knowing the journal holds one payment, key "b" is another payment: the document never says otherwise.
      expect(after(status, {})).toEqual([]);
    }
    for (const status of ['failed', 'cancelled']) expect(after(status)).toEqual([]);
    // Not a transfer: the document has no outcome table for cards; the client mode judges the scenario's one card.
    expect(auditJournal([entry(0, 'issueCard', 'a', {}), entry(5_000, 'issueCard', 'b', {})], rules, { onePayment: 'issueCard' })).toEqual([]);
  });

  // QA: two invoices of one amount to one recipient were a `duplicate_payment` on the document's authority,
  // and a second invoice sent after the first one's 503 a new key and a too-short wait. The document never
  // says that one amount and recipient are one payment: under two keys they are two.
  it('two invoices of one amount to one recipient, under two keys, are two payments: no finding', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const noFaults = [entry(0, 'createTransfer', 'invoice-1001', body, { resourceStatus: 'pending' }), entry(1_000, 'createTransfer', 'invoice-1002', body, { resourceStatus: 'pending' })];
    expect(auditJournal(noFaults, rules), formatFindings(auditJournal(noFaults, rules))).toEqual([]);
    const afterA503 = [
      entry(0, 'createTransfer', 'invoice-2001', body, temporary503Entry()),
      entry(1_000, 'createTransfer', 'invoice-2002', body, { resourceStatus: 'pending' }),
      entry(71_000, 'createTransfer', 'invoice-2001', body, { resourceStatus: 'pending' }),
    ];
    expect(auditJournal(afterA503, rules), formatFindings(auditJournal(afterA503, rules))).toEqual([]);
    // A 201 that resolved no 503 has no rule of the document behind it, even in a one-payment journal (the
    // client mode reports the second transfer as the scenario's expectation).
    expect(auditJournal(noFaults, rules, { onePayment: 'createTransfer' })).toEqual([]);
  });

  // QA: after a 503 the same payment re-sent under a NEW key with 150.01 for 150.00 was no finding (another
  // identity, so "another payment"). In a journal of one payment it is rule 8's switch.
  it('one payment: a new key with another amount after a 503 is the switch rule 8 forbids', () => {
    const findings = auditJournal(
      [
        entry(0, 'createTransfer', 'qa-1', { recipientId: 'rcp_1', amount: '150.00' }, temporary503Entry()),
        entry(65_000, 'createTransfer', 'qa-2', { recipientId: 'rcp_1', amount: '150.01' }, { resourceStatus: 'pending' }),
      ],
      rules,
      { onePayment: 'createTransfer' },
    );
    expect(findings.map((f) => [f.kind, f.basis]), formatFindings(findings)).toEqual([['new_key_after_unknown_outcome', 'document']]);
    expect(findings[0]!.rule).toEqual(PROVIDER.neverNewKeyOn5xx);
    expect(findings[0]!.detail).toContain('another amount or recipient');
  });

  it('openEnd: the answer a journal leaves its payment open at, with the words for the retry it asks', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const endsWith = (answer: Partial<JournalEntry>, operationId = 'createTransfer') =>
      openEnd([entry(0, operationId, 'k', operationId === 'createTransfer' ? body : {}, { resourceStatus: 'pending' }), entry(1_000, operationId, 'k', operationId === 'createTransfer' ? body : {}, answer)], operationId, rules)?.rule;
    expect(endsWith(temporary503Entry())).toEqual(PROVIDER.waitAfter503);
    expect(endsWith({ status: 502, fault: 'edge_502' })).toEqual(PROVIDER.edgeIsATimeout);
    expect(endsWith({ status: null, answered: false, fault: 'drop_after_commit' })).toEqual(PROVIDER.sameKeyAfterTimeout);
    expect(endsWith({ status: 503, code: 'provider_rate_limited', retryAfterSeconds: 5 }, 'issueCard')).toEqual(PROVIDER.waitRetryAfter);
    // Answers that end the payment: stopping there is right.
    for (const answer of [{}, { status: 409, code: 'banking_transfer_attempt_pending_review' }, { status: 422, code: 'pix_payout_rejected' }]) expect(endsWith(answer)).toBeUndefined();
    expect(endsWith({ status: 503, code: 'checkout_pix_not_available' }, 'createCheckoutSession')).toBeUndefined();
    expect(openEnd([], 'createTransfer', rules)).toBeUndefined();
  });

  it('a schema finding only on an x-assumed bound is a warning naming it; the documented checkout bound stays a failure', () => {
    const [transfer] = auditJournal([entry(0, 'createTransfer', 'k'.repeat(300), { recipientId: 'rcp_1', amount: '10.00' }, { status: 400, code: 'invalid_request' })], rules);
    const reason = (loadSpec() as any).components.parameters.IdempotencyKey.schema['x-assumed-reason'];
    expect(transfer).toMatchObject({ kind: 'request_breaks_schema', severity: 'warning', basis: 'assumed', assumptions: [{ pointer: '#/components/parameters/IdempotencyKey/schema', reason }] });
    expect(formatFindings([transfer!])).toContain(`ASSUMED, not the provider's rule (warning): "${reason}"`);
    const [checkout] = auditJournal([entry(0, 'createCheckoutSession', 'k'.repeat(300), { amount: '10.00', paymentMethod: 'pix' }, { status: 400, code: 'invalid_request' })], rules);
    expect(checkout).toMatchObject({ kind: 'request_breaks_schema', severity: 'failure', basis: 'document', rule: PROVIDER.checkoutKey });
  });

  it('jitter across runs: the same increased delays in every run are reported; differing ones, or one run, are not', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const journal = (waits: number[]) => {
      let at = 0;
      const list = [entry(0, 'createTransfer', 'k', body, temporary503Entry())];
      waits.forEach((wait, i) => list.push(entry((at += wait), 'createTransfer', 'k', body, i < waits.length - 1 ? temporary503Entry() : {})));
      return list;
    };
    const fixed = journal([60_000, 120_000, 240_000]);
    const [finding, ...rest] = auditJitter([fixed, fixed, fixed], rules);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ kind: 'delays_without_jitter', rule: PROVIDER.jitter, severity: 'failure' });
    expect(finding!.detail).toContain('(120.0 s, 240.0 s)');
    expect(auditJitter([fixed, journal([60_000, 131_234, 250_007])], rules)).toEqual([]);
    expect(auditJitter([fixed], rules)).toEqual([]);
    // The first wait is the 60 s floor, not an increased delay: one 503 gives nothing to compare.
    expect(auditJitter([journal([60_000]), journal([60_000])], rules)).toEqual([]);
  });

  it('growing delays: each wait longer than the last; constant, capped or jittered under a cap are not; a restart after a long pause is let through', () => {
    const body = { recipientId: 'rcp_1', amount: '10.00' };
    const run = (waits: number[]) => {
      let at = 0;
      const list = [entry(0, 'createTransfer', 'k', body, temporary503Entry())];
      for (const wait of waits) list.push(entry((at += wait), 'createTransfer', 'k', body, temporary503Entry()));
      return kinds(auditJournal(list, rules));
    };
    expect(run([60_000, 120_000, 240_000, 480_000, 600_000, 700_000, 720_000])).toEqual([]);
    expect(run([60_000, 60_000, 60_000])).toEqual(['delays_not_growing']);
    expect(run([60_000, 120_000, 240_000, 600_000, 600_000])).toEqual(['delays_not_growing']); // capped
    expect(run([65_400, 147_800, 130_600])).toEqual(['delays_not_growing']); // jitter under a cap (QA)
    expect(run([60_000, 120_000, 600_000, 60_000, 120_000])).toEqual([]); // a new call's backoff, after a long pause
  });

  it('the 429 (an assumed status and Retry-After) is never held against a client', () => {
    const findings = auditJournal(
      [
        entry(0, 'createTransfer', 'k', { recipientId: 'rcp_1', amount: '10.00' }, { status: 429, code: 'rate_limit_exceeded', retryAfterSeconds: 900 }),
        entry(1_000, 'createTransfer', 'k', { recipientId: 'rcp_1', amount: '10.00' }),
      ],
      rules,
    );
    expect(findings).toEqual([]);
  });
});

function temporary503Entry(): Partial<JournalEntry> {
  return { status: 503, code: 'temporarily_unavailable', fault: 'unavailable' };
}

describe('what the audit reads and quotes', () => {
  it('reads the 60 s floor from x-retry and the Retry-After code from the catalog (provider: section 8, section 7)', () => {
    expect(rules.operations.get('createTransfer')!.temporary).toEqual({ status: 503, minDelayMs: 60_000 });
    const card = rules.operations.get('issueCard')!.codes.get('provider_rate_limited')!;
    expect(card).toMatchObject({ status: 503, retryable: true, assumed: false });
    expect(rules.operations.get('createCheckoutSession')!.codes.get('checkout_pix_not_available')).toMatchObject({ retryable: false });
  });

  it('the identity is the provider’s: amount normalized, field order irrelevant, the API key nowhere', () => {
    expect(paymentIdentity('createTransfer', { amount: 150, recipientId: 'rcp_1' })).toBe(paymentIdentity('createTransfer', { recipientId: 'rcp_1', amount: '150.00' }));
    expect(paymentIdentity('createTransfer', { recipientId: 'rcp_1', amount: '150.00', memo: 'x' })).toBe(paymentIdentity('createTransfer', { recipientId: 'rcp_1', amount: '150' }));
    expect(paymentIdentity('createRecipient', { rail: 'brl_pix', nickname: 'A', pixKey: 'a@example.com' })).toBe(
      paymentIdentity('createRecipient', { rail: 'brl_pix', nickname: 'B', pixKey: 'a@example.com' }),
    );
    expect(paymentIdentity('createRecipient', { rail: 'usd_ach', nickname: 'A' })).not.toBe(paymentIdentity('createRecipient', { rail: 'usd_ach', nickname: 'B' }));
    const fields: (keyof JournalEntry)[] = ['at', 'operationId', 'idempotencyKey', 'identity', 'body', 'status', 'code', 'resourceStatus', 'retryAfterSeconds', 'fault', 'answered'];
    expect(Object.keys(entry(0, 'issueCard', 'k', {})).sort()).toEqual([...fields].sort());
  });

  it('an identity is one JSON text per value: keys sorted at every depth, arrays kept in order, what JSON.stringify writes', () => {
    const body = { z: [{ b: 1, a: [2, { d: null, c: 'é"\n' }] }], a: { y: 1.5, x: -0 } };
    const identity = paymentIdentity('issueCard', body);
    expect(identity).toBe('{"a":{"x":0,"y":1.5},"z":[{"a":[2,{"c":"é\\"\\n","d":null}],"b":1}]}');
    expect(JSON.parse(identity)).toEqual(JSON.parse(JSON.stringify(body)));
    expect(paymentIdentity('issueCard', JSON.parse('{"b":{"d":1,"c":2},"a":3}'))).toBe(paymentIdentity('issueCard', { a: 3, b: { c: 2, d: 1 } }));
    expect(paymentIdentity('getBankingBalance', undefined)).toBe('null');
  });

  // The provider's document is outside the repository (../shared/seed): checked where it is present.
  const providerDoc = fileURLToPath(new URL('../../../../shared/seed/payments-api.md', import.meta.url));
  it.runIf(existsSync(providerDoc))('every quoted rule is verbatim in the provider’s document', () => {
    const text = readFileSync(providerDoc, 'utf8');
    for (const [name, rule] of Object.entries(PROVIDER)) expect(text, name).toContain(rule.words);
  });
});
