// (c) A green run means something only if the kit catches what it claims to: against the broken fixture,
// first with no violation (it must pass: the fixture itself conforms), then with each kind of violation on
// its own (the kit must report it as a failure, on that operation, with a recognizable message, and nothing
// else), then with all of them at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/types.ts';
import { ALL_VIOLATIONS, DEFAULT_VIOLATIONS, startBrokenServer, type BrokenServer, type Violation } from './fixtures/broken-server.ts';
import { describeFailures, failures, runKit } from './support.ts';

const EXPECTED: Record<Violation, { rules: string[]; message: RegExp; check: RegExp }> = {
  'undocumented-status': { rules: ['status'], message: /status 410 is not documented for getTransfer/, check: /^getTransfer\/valid$/ },
  'wrong-content-type': { rules: ['content-type'], message: /content-type text\/plain, but the spec declares application\/json/, check: /^createCheckoutProduct\// },
  'schema-mismatch': { rules: ['body-schema'], message: /body does not match the schema \(\(root\) must have required property 'requestId'\)/, check: /^createCheckoutSession\// },
  'server-error-on-bad-input': { rules: ['server-error', 'status'], message: /got a 500; bad input must get a 4xx/, check: /^createRecipient\/invalid$/ },
  'missing-key-accepted': { rules: ['auth'], message: /refuses a request without a key: POST \/v1\/cards → 201, not refused \(expected 401\)/, check: /^issueCard\/auth-(no-key|bearer)$/ },
  'replay-different-body': { rules: ['replay'], message: /returned 201 with a different body: first difference at character \d+: original .*id.*rcp_/, check: /^createRecipient\/idempotent-replay$/ },
  'conflict-ignored': { rules: ['conflict'], message: /got POST \/v1\/banking\/transfers → 201 \(the original response was replayed: the changed amount was ignored\); expected 409 banking_transfer_idempotency_conflict/, check: /^createTransfer\/idempotency-conflict$/ },
  'edge-json-502': { rules: ['edge-body'], message: /declares this 502 without content \(x-origin: edge.*but it claims JSON \(content-type application\/json/, check: /^getBankingBalance\// },
};

const opOf = (kind: Violation) => Object.entries(DEFAULT_VIOLATIONS).find(([, kinds]) => kinds.includes(kind))![0];

const API_KEY = 'svc_live_brokenfixturekey0000000001';

async function against(violations: Record<string, Violation[]>): Promise<Report> {
  const server: BrokenServer = await startBrokenServer({ violations, apiKey: API_KEY });
  try {
    return await runKit({ baseUrl: server.url, apiKey: server.apiKey, seed: 99 });
  } finally {
    await server.close();
  }
}

describe('the broken-server fixture', () => {
  it('with no violation, passes (the fixture itself conforms)', async () => {
    const report = await against({});
    expect(failures(report), describeFailures(report)).toEqual([]);
    expect(report.totals.passed).toBeGreaterThan(40);
  });

  it.each(ALL_VIOLATIONS)('%s: caught, on its operation only, with a recognizable message', async (kind) => {
    const op = opOf(kind);
    const report = await against({ [op]: [kind] });
    const found = failures(report);
    const expected = EXPECTED[kind];
    expect(found.length, `no failure reported for ${kind}`).toBeGreaterThan(0);
    expect(found.some((f) => expected.message.test(f.message)), describeFailures(report)).toBe(true);
    for (const f of found) {
      expect(f.check, describeFailures(report)).toMatch(new RegExp(`^${op}/`));
      expect(expected.rules, `${f.check}: ${f.message}`).toContain(f.rule);
    }
    expect(found.some((f) => expected.check.test(f.check)), describeFailures(report)).toBe(true);
    // Every failure comes with a reproduction that never shows the key.
    for (const f of found) {
      expect(f.curl, f.message).toMatch(/^curl /);
      expect(f.curl).not.toContain(API_KEY);
    }
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
