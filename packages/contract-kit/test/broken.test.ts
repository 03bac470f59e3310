// (c) A green run means something only if the kit catches what it claims to: against the broken fixture,
// first with no violation (it must pass: the fixture itself conforms), then with each kind of violation on
// its own (the kit must report it as a failure of that kind, on that operation, with a recognizable message,
// and nothing else), then a server answering 503 to everything (inconclusive: visible, and a failure under
// the sandbox test's --strict-503), then with many violations at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSummary } from '../src/report/summary.ts';
import type { Report, RunOptions } from '../src/types.ts';
import { ALL_VIOLATIONS, DEFAULT_VIOLATIONS, everywhere, startBrokenServer, VIOLATION_HOME, type BrokenServer, type Violation } from './fixtures/broken-server.ts';
import { check, describeFailures, failures, runKit, SERVER_GATE } from './support.ts';

interface Expected {
  /** The only rules the failures may have (the first is the kind the mode is about). */
  rules: string[];
  /** At least one failure says this. */
  message: RegExp;
  /** Every failure is in a check whose id matches. */
  check: RegExp;
  /** Kit options for this mode (the 503 mode needs --strict-503 to fail). */
  options?: Partial<RunOptions>;
}

const EXPECTED: Record<Violation, Expected> = {
  'undocumented-status': { rules: ['status'], message: /status 410 is not documented for getTransfer/, check: /^getTransfer\/valid$/ },
  'wrong-content-type': { rules: ['content-type'], message: /content-type text\/plain, but the spec declares application\/json/, check: /^createCheckoutProduct\// },
  // The rejection of invalid input lacks the shared error body too: both the response check and the
  // invalid-input expectation say so.
  'schema-mismatch': { rules: ['body-schema', 'invalid-error-body'], message: /body does not match the schema \(\(root\) must have required property 'requestId'\)/, check: /^createCheckoutSession\// },
  'server-error-on-bad-input': { rules: ['server-error', 'status'], message: /got a 500; bad input must get a 4xx/, check: /^createRecipient\/invalid$/ },
  'missing-key-accepted': { rules: ['auth'], message: /refuses a request without a key: POST \/v1\/cards → 201, not refused \(expected 401\)/, check: /^issueCard\/auth-(no-key|bearer)$/ },
  'replay-different-body': { rules: ['replay'], message: /returned 201 with a different body: first difference at character \d+: original .*id.*rcp_/, check: /^createRecipient\/idempotent-replay$/ },
  'conflict-ignored': { rules: ['conflict'], message: /got POST \/v1\/banking\/transfers → 201 \(the original response was replayed: the changed amount was ignored\); expected 409 banking_transfer_idempotency_conflict/, check: /^createTransfer\/idempotency-conflict$/ },
  'edge-json-502': { rules: ['edge-body'], message: /declares this 502 without content \(x-origin: edge.*but it claims JSON \(content-type application\/json/, check: /^getBankingBalance\// },
  'valid-rejected': { rules: ['valid-rejected'], message: /POST \/v1\/banking\/transfers → 400: a request that is valid per the spec was rejected as invalid_request/, check: /^createTransfer\/valid$/ },
  'valid-rejected-schema-code': {
    rules: ['valid-rejected'],
    message: /POST \/v1\/checkout\/sessions → 400: a request that is valid per the spec was rejected with invalid_checkout_session_amount, a code the spec gives only to a schema violation \(x-error-code at #\/components\/schemas\/CheckoutSessionCreate\/properties\/amount\)/,
    check: /^createCheckoutSession\/valid$/,
    options: { runs: 15 }, // only generated sessions with an amount can show it
  },
  'invalid-accepted': { rules: ['invalid-accepted'], message: /POST \/v1\/checkout\/products → 201: invalid input \((no Idempotency-Key header|malformed Idempotency-Key: .*)\) was not rejected/, check: /^createCheckoutProduct\/invalid$/ },
  'retry-after-missing': { rules: ['header'], message: /POST \/v1\/cards → 503: header Retry-After is missing, and the spec says it is always sent with provider_rate_limited/, check: /^issueCard\/(valid|idempotent-replay)$/ },
  'retry-after-malformed': { rules: ['header'], message: /POST \/v1\/cards → 503: header Retry-After: "1\.5" \(root\) must be integer/, check: /^issueCard\/(valid|idempotent-replay)$/ },
  'invalid-error-body': {
    rules: ['invalid-error-body', 'content-type'],
    message: /POST \/v1\/banking\/recipients → 400: invalid input \(.*\) was rejected without the shared error body \(content-type text\/plain; body Bad Request: /,
    check: /^createRecipient\/invalid$/,
  },
  'bearer-accepted': { rules: ['auth'], message: /refuses the key sent as Authorization: Bearer: POST \/v1\/checkout\/sessions → 201, not refused/, check: /^createCheckoutSession\/auth-bearer$/ },
  'malformed-key-accepted': { rules: ['auth'], message: /refuses a malformed key: POST \/v1\/checkout\/products → 201, not refused/, check: /^createCheckoutProduct\/auth-malformed-key$/ },
  'unknown-key-accepted': { rules: ['auth'], message: /refuses a well-formed unknown key: POST \/v1\/banking\/recipients → 201, not refused/, check: /^createRecipient\/auth-unknown-key$/ },
  'revoked-key-accepted': { rules: ['auth'], message: /revoked key, the very next request: GET \/v1\/banking\/balance → 200, not refused/, check: /^getBankingBalance\/auth-revoked-key$/ },
  'server-error-on-valid-input': { rules: ['server-error', 'status'], message: /GET \/v1\/banking\/transfers\/[^ ]+ → 500: a valid request got a 500/, check: /^getTransfer\/valid$/ },
  unavailable: {
    rules: ['inconclusive'],
    message: /GET \/v1\/banking\/balance → 503: a documented 503 \(temporarily_unavailable\), a transient outage or a server bug; .*a failure under --strict-503/,
    check: /^getBankingBalance\//,
    options: SERVER_GATE,
  },
};

const API_KEY = 'svc_live_brokenfixturekey0000000001';

async function against(violations: Record<string, Violation[]>, options: Partial<RunOptions> = {}): Promise<Report> {
  const server: BrokenServer = await startBrokenServer({ violations, apiKey: API_KEY });
  try {
    return await runKit({ baseUrl: server.url, apiKey: server.apiKey, adminToken: server.adminToken, seed: 99, ...options });
  } finally {
    await server.close();
  }
}

describe('the broken-server fixture', () => {
  it('with no violation, passes, even under --strict-503 (the fixture itself conforms)', async () => {
    const report = await against({}, SERVER_GATE);
    expect(failures(report), describeFailures(report)).toEqual([]);
    expect(report.totals.passed).toBeGreaterThan(40);
    expect(report.totals.inconclusive).toBe(0);
    // Every probe ran, the revoked key (the fixture's admin API) included.
    expect(report.checks.filter((c) => c.status === 'skipped').map((c) => c.id)).toEqual([]);
    expect(check(report, 'getBankingBalance/auth-revoked-key').requests).toBe(2);
  });

  it('every violation has an expectation and a home', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...ALL_VIOLATIONS].sort());
  });

  it.each(ALL_VIOLATIONS)('%s: caught as exactly that kind, on its operation only, with a recognizable message', async (kind) => {
    const op = VIOLATION_HOME[kind];
    const expected = EXPECTED[kind];
    const report = await against({ [op]: [kind] }, expected.options);
    const found = failures(report);
    expect(found.length, `no failure reported for ${kind}`).toBeGreaterThan(0);
    expect(found.some((f) => expected.message.test(f.message)), describeFailures(report)).toBe(true);
    expect(found.some((f) => f.rule === expected.rules[0]), describeFailures(report)).toBe(true);
    for (const f of found) {
      expect(f.check, describeFailures(report)).toMatch(new RegExp(`^${op}/`));
      expect(f.check, describeFailures(report)).toMatch(expected.check);
      expect(expected.rules, `${f.check}: ${f.message}`).toContain(f.rule);
    }
    // Every failure comes with a reproduction that never shows the key.
    for (const f of found) {
      expect(f.curl, f.message).toMatch(/^curl /);
      expect(f.curl).not.toContain(API_KEY);
    }
  });

  it('revoked-key-accepted: the reproduction names the revoked key as a shell variable, never its value', async () => {
    const report = await against({ getBankingBalance: ['revoked-key-accepted'] });
    expect(check(report, 'getBankingBalance/auth-revoked-key').failures[0]?.curl).toMatch(/^curl -sS -i -X GET -H "x-api-key: \$REVOKED_KEY" /);
  });

  it('bearer-accepted: the Bearer probe fails while the no-key probe passes', async () => {
    const report = await against({ createCheckoutSession: ['bearer-accepted'] });
    expect(check(report, 'createCheckoutSession/auth-bearer').status).toBe('failed');
    expect(check(report, 'createCheckoutSession/auth-no-key').status).toBe('passed');
  });
});

describe('a server that answers 503 temporarily_unavailable to everything', () => {
  const ops = Object.keys(DEFAULT_VIOLATIONS);

  it('without --strict-503: no failure, but every operation shows its inconclusive answers', async () => {
    const report = await against(everywhere('unavailable'));
    expect(failures(report), describeFailures(report)).toEqual([]);
    expect(report.totals.inconclusive).toBeGreaterThan(0);
    for (const op of ops) {
      const n = report.checks.filter((c) => c.operationId === op).reduce((sum, c) => sum + c.inconclusive, 0);
      expect(n, op).toBeGreaterThan(0);
    }
    const summary = renderSummary(report);
    expect(summary).toMatch(/^operation\s+requests\s+passed\s+failed\s+skipped\s+warnings\s+inconclusive$/m);
    expect(summary).toMatch(new RegExp(`^TOTAL\\s+\\d+\\s+\\d+\\s+0\\s+\\d+\\s+\\d+\\s+${report.totals.inconclusive}$`, 'm'));
    expect(summary).toContain(`INCONCLUSIVE: ${report.totals.inconclusive} answers were a documented 503`);
    expect(summary).toMatch(/gate with --strict-503/);
  });

  it('with the sandbox test\'s gate (--strict-503): every operation fails, as inconclusive', async () => {
    const report = await against(everywhere('unavailable'), SERVER_GATE);
    const failedOps = new Set(report.checks.filter((c) => c.status === 'failed').map((c) => c.operationId));
    expect([...failedOps].sort()).toEqual([...ops].sort());
    expect(new Set(failures(report).map((f) => f.rule))).toEqual(new Set(['inconclusive']));
    expect(report.strict503).toBe(true);
  });
});

describe('all violations at once', () => {
  let report: Report;
  let server: BrokenServer;
  beforeAll(async () => {
    server = await startBrokenServer();
    report = await runKit({ baseUrl: server.url, apiKey: server.apiKey, seed: 5 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('fails every operation', () => {
    const failedOps = new Set(report.checks.filter((c) => c.status === 'failed').map((c) => c.operationId));
    expect([...failedOps].sort()).toEqual(Object.keys(DEFAULT_VIOLATIONS).sort());
  });

  it('shrinks a generated failure to a minimal request', () => {
    const invalid = report.checks.find((c) => c.id === 'createRecipient/invalid')!;
    expect(invalid.counterexample?.curl).toMatch(/^curl -sS -i -X POST -H "x-api-key: \$API_KEY"/);
    expect(invalid.counterexample?.numShrinks).toBeGreaterThan(0);
    // Shrunk: a tiny body, not the generated one.
    const body = /--data-raw '([^']*)'/.exec(invalid.counterexample!.curl)?.[1] ?? '';
    expect(body.length, invalid.counterexample!.curl).toBeLessThan(40);
  });
});
