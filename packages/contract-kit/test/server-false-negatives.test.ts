// Defects a QA pass found the released kit passing, run as a user runs it against staging: WITHOUT
// --admin-token (one key, paced), only the checks that should catch each one. Each defect is the real sandbox
// behind the mutant proxy (test/mutants/proxy.ts), one sandbox for the file with the defect switched per
// test; the unmodified sandbox passes the same checks (no false positive).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOf } from '../../sandbox/test/support.ts';
import type { Report } from '../src/types.ts';
import { startMutant, type Mutant, type MutantEnv, type Req, type Res, type RunningMutant } from './mutants/proxy.ts';
import { is, MUTANTS, parse } from './mutants/registry.ts';
import { check, describeFailures, runKit, SERVER_GATE } from './support.ts';

const RECIPIENTS = /^\/v1\/banking\/recipients(\?|$)/;
const TRANSFERS = /^\/v1\/banking\/transfers(\?|$)/;
const TRANSFER = /^\/v1\/banking\/transfers\/([^/?]+)/;
const codeOf = (res: Res): string | undefined => parse(res.body)?.code;
const json = (status: number, body: unknown): Res => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A transfer's Idempotency-Key as `rename` makes it from the key and how many requests came with it so far (undefined: as sent). */
const rekeyTransfers = (rename: (key: string, n: number) => string | undefined): NonNullable<Mutant['request']> => (req, env) => {
  const key = req.headers['idempotency-key'];
  if (!is(req, 'POST', TRANSFERS) || !key) return req;
  const n = ((env.memory.get(`n:${key}`) as number | undefined) ?? 0) + 1;
  env.memory.set(`n:${key}`, n);
  const renamed = rename(key, n);
  return renamed === undefined ? req : { ...req, headers: { ...req.headers, 'idempotency-key': renamed } };
};

const DEFECTS = {
  // QA DEFECT=get-any
  'lookup-any-id': {
    name: 'lookup-any-id',
    defect: 'GET /v1/banking/transfers/{id} answers 200 with a made-up transfer for any id',
    visible: true,
    response: (res, req) => (is(req, 'GET', TRANSFER) && res.status === 404 ? json(200, { id: decodeURIComponent(TRANSFER.exec(req.path)![1]!), status: 'completed' }) : res),
  },
  // QA DEFECT=dup-nickname-201
  'nickname-taken-201': {
    name: 'nickname-taken-201',
    defect: 'a second active external recipient with a nickname in use is created (201)',
    visible: true,
    handle: async (req, env) => {
      const res = await env.forward(req);
      if (!is(req, 'POST', RECIPIENTS) || codeOf(res) !== 'recipient_nickname_already_exists') return res;
      const body = parse(req.body);
      // Under a key of its own: the refusal is the first key's result, and a re-send under it replays it.
      const headers = { ...req.headers, 'idempotency-key': `${String(req.headers['idempotency-key'])}-2` };
      const created = await env.forward({ ...req, headers, body: JSON.stringify({ ...body, nickname: `${body.nickname} (2)` }) });
      return { ...created, body: JSON.stringify({ ...parse(created.body), nickname: body.nickname }) };
    },
  },
  // QA DEFECT=dup-nickname-400
  'nickname-taken-400': {
    name: 'nickname-taken-400',
    defect: 'a nickname in use gets recipient_nickname_already_exists at 400 instead of 409',
    visible: true,
    response: (res) => (codeOf(res) === 'recipient_nickname_already_exists' ? { ...res, status: 400 } : res),
  },
  // QA DEFECT=raw-identity
  'amount-form-conflict': {
    name: 'amount-form-conflict',
    defect: 'a transfer key replayed with the same amount in its other JSON form (150 vs "150.00") gets 409 banking_transfer_idempotency_conflict',
    visible: true,
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', TRANSFERS) || !key) return env.forward(req);
      const form = typeof parse(req.body)?.amount;
      const first = env.memory.get(`form:${key}`);
      if (first === undefined) env.memory.set(`form:${key}`, form);
      else if (first !== form) return json(409, { error: 'Key used with another amount.', code: 'banking_transfer_idempotency_conflict', requestId: crypto.randomUUID() });
      return env.forward(req);
    },
  },
  // QA DEFECT=race (the message): every other request with one key goes to a second transfer
  'two-transfers-per-key': {
    name: 'two-transfers-per-key',
    defect: 'parallel transfers with one key make two transfers, each replayed to half of the requests',
    visible: true,
    request: rekeyTransfers((key, n) => (n % 2 === 0 ? `${key.slice(0, 200)}-second` : undefined)),
  },
  // QA DEFECT=conflict-code (the message)
  'conflict-code-renamed': {
    name: 'conflict-code-renamed',
    defect: 'the transfer key conflict answers 409 idempotency_key_reused',
    visible: true,
    response: (res) => (codeOf(res) === 'banking_transfer_idempotency_conflict' ? { ...res, body: JSON.stringify({ ...parse(res.body), code: 'idempotency_key_reused' }) } : res),
  },
  // QA DEFECT=race (every request its own transfer)
  'six-transfers-per-key': {
    name: 'six-transfers-per-key',
    defect: 'parallel transfers with one key make one transfer each',
    visible: true,
    request: rekeyTransfers((key, n) => `${key.slice(0, 200)}-${n}`),
  },
  // QA DEFECT=replay-200: a replay gets the original body with 200 instead of the original 201
  'replay-status-200': {
    name: 'replay-status-200',
    defect: 'a transfer replayed under its key answers 200 (the original body) instead of the original 201',
    visible: true,
    response: (res, req, env) => {
      const key = req.headers['idempotency-key'];
      if (!is(req, 'POST', TRANSFERS) || !key || res.status !== 201) return res;
      const seen = env.memory.has(`seen:${key}`);
      env.memory.set(`seen:${key}`, true);
      return seen ? { ...res, status: 200 } : res;
    },
  },
  // QA DEFECT=transfers-skip-auth: the transfers routes serve any credential (none, malformed, unknown, Bearer) as the organization's
  'transfers-skip-auth': {
    name: 'transfers-skip-auth',
    defect: 'the transfer routes do not authenticate: a request without a valid x-api-key is served as the organization',
    visible: true,
    request: (req) => {
      if (!(is(req, 'POST', TRANSFERS) || is(req, 'GET', TRANSFER)) || req.headers['x-api-key'] === apiKey) return req;
      const { authorization: _a, ...headers } = req.headers;
      return { ...req, headers: { ...headers, 'x-api-key': apiKey } };
    },
  },
  // QA DEFECT=idem-global: idempotency records keyed by the Idempotency-Key alone, not organization + key
  'idempotency-store-global': {
    name: 'idempotency-store-global',
    defect: "the idempotency store is shared by every organization: another organization's key replays the first one's answer",
    visible: true,
    handle: async (req, env) => {
      const key = req.headers['idempotency-key'];
      if (req.method !== 'POST' || !key || !req.path.startsWith('/v1/')) return env.forward(req);
      const slot = `idem:${req.path}:${key}`;
      const stored = env.memory.get(slot) as Res | undefined;
      if (stored) return stored;
      const res = await env.forward(req);
      if (res.status < 500) env.memory.set(slot, res);
      return res;
    },
  },
  // QA DEFECT=no-rate-limit
  'no-default-rate-limit': {
    name: 'no-default-rate-limit',
    defect: 'the 600 requests per 15 minutes of a key are not enforced on GET /v1/banking/balance (its 429 answered 200)',
    visible: true,
    response: (res, req) => (is(req, 'GET', /^\/v1\/banking\/balance(\?|$)/) && res.status === 429 ? json(200, { balances: [] }) : res),
  },
} satisfies Record<string, Mutant>;

let active: Mutant | undefined;
/** One proxy for the file: it applies the defect of the test running (none: the sandbox as it is). */
const switchable: Mutant = {
  name: 'switchable',
  defect: 'the defect of the test running',
  visible: true,
  handle: async (req: Req, env: MutantEnv) => {
    if (active?.handle) return active.handle(req, env);
    const sent = active?.request ? await active.request(req, env) : req;
    const res = await env.forward(sent);
    return active?.response ? active.response(res, sent, env) : res;
  },
};

let server: RunningMutant;
let apiKey: string;
/** A key of a second organization, as a staging user would pass it (--other-api-key). */
let otherApiKey: string;

beforeAll(async () => {
  server = await startMutant(switchable);
  ({ key: apiKey } = await adminOf(server.sandbox).org({}));
  ({ key: otherApiKey } = await adminOf(server.sandbox).org({}));
});
afterAll(async () => {
  expect(server?.errors, 'the mutant itself crashed').toEqual([]);
  await server?.close();
});

/** The kit as the QA ran it: no --admin-token, a few checks of a few operations. */
async function kit(defect: Mutant | undefined, checks: string[], operations: string[], extra: { otherApiKey?: string } = {}): Promise<Report> {
  active = defect;
  try {
    return await runKit({ baseUrl: server.url, apiKey, checks, operations, seed: 11, ...SERVER_GATE, ...extra });
  } finally {
    active = undefined;
  }
}

const failureOf = (report: Report, id: string): string => check(report, id).failures.map((f) => f.message).join('\n');

describe('without --admin-token, the kit catches', () => {
  it('a transfer lookup answering 200 for an id the kit never created (404 banking_transfer_not_found)', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['lookup-any-id'], ['resource-chain'], ['createTransfer', 'getTransfer']);
    expect(check(report, 'createTransfer/resource-chain').status).toBe('failed');
    expect(failureOf(report, 'createTransfer/resource-chain')).toMatch(/never created: GET \/v1\/banking\/transfers\/\{transferId\} → 200; the spec documents 404 banking_transfer_not_found/);
  });

  for (const defect of [DEFECTS['nickname-taken-201'], DEFECTS['nickname-taken-400']]) {
    it(`a nickname in use answered other than 409 recipient_nickname_already_exists (${defect.name})`, { timeout: 60_000 }, async () => {
      const report = await kit(defect, ['unique-fields'], ['createRecipient']);
      expect(check(report, 'createRecipient/unique-fields').status).toBe('failed');
      expect(failureOf(report, 'createRecipient/unique-fields')).toMatch(/"nickname" of an existing one under a new key: POST \/v1\/banking\/recipients → (201|400 recipient_nickname_already_exists); the spec documents 409 recipient_nickname_already_exists\b/);
    });
  }

  it('a transfer replay with the amount in its other JSON form answered with a conflict', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['amount-form-conflict'], ['idempotent-replay'], ['createTransfer']);
    expect(check(report, 'createTransfer/idempotent-replay').status).toBe('failed');
    expect(failureOf(report, 'createTransfer/idempotent-replay')).toMatch(/amount "150\.00" re-sent as 150 .* got POST \/v1\/banking\/transfers → 409 banking_transfer_idempotency_conflict instead of 201/);
  });
});

describe('the messages say what was received', () => {
  it('counts the distinct answers to parallel requests (2 transfers: 2 bodies, not one per differing request)', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['two-transfers-per-key'], ['concurrent-key'], ['createTransfer']);
    expect(failureOf(report, 'createTransfer/concurrent-key')).toMatch(/^6 identical parallel requests with one Idempotency-Key got 201 ×6, 2 different bodies \(×3, ×3\): first difference/);
  });

  it('says "201 ×6, 6 different bodies" for one transfer per request', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['six-transfers-per-key'], ['concurrent-key'], ['createTransfer']);
    expect(failureOf(report, 'createTransfer/concurrent-key')).toMatch(/^6 identical parallel requests with one Idempotency-Key got 201 ×6, 6 different bodies \(×1 each\): first difference/);
  });

  it('says that only the status differs when the bodies are identical (a replay answered 200)', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['replay-status-200'], ['concurrent-key', 'idempotent-replay'], ['createTransfer']);
    const concurrent = failureOf(report, 'createTransfer/concurrent-key');
    expect(concurrent).toMatch(/^6 identical parallel requests with one Idempotency-Key got 201 ×1, 200 ×5, one body: only the status differs/m);
    expect(concurrent).not.toMatch(/identical bodies|not done exactly once/);
    expect(failureOf(report, 'createTransfer/idempotent-replay')).toMatch(/returned 200 instead of 201, with the same body: only the status differs/);
  });

  it('names the code of a wrong conflict answer', { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['conflict-code-renamed'], ['idempotency-conflict'], ['createTransfer']);
    expect(failureOf(report, 'createTransfer/idempotency-conflict')).toMatch(/got POST \/v1\/banking\/transfers → 409 idempotency_key_reused; expected 409 banking_transfer_idempotency_conflict/);
  });
});

describe('isolation without the admin API: --other-api-key', () => {
  const leak = MUTANTS.find((m) => m.name === 'foreign-transfer-visible')!;

  it("catches a lookup that shows another organization's transfer", { timeout: 60_000 }, async () => {
    const report = await kit(leak, ['isolation'], ['createTransfer', 'getTransfer'], { otherApiKey });
    expect(check(report, 'createTransfer/isolation').status).toBe('failed');
    expect(failureOf(report, 'createTransfer/isolation')).toMatch(/another organization's key was answered with the first organization's createTransfer resource.*--other-api-key/);
  });

  it('is not applicable without it, and passes on the sandbox as it is with it', { timeout: 60_000 }, async () => {
    const without = await kit(undefined, ['isolation'], ['createTransfer', 'getTransfer']);
    expect(without.notApplicable.find((n) => n.check === 'isolation')?.reason).toMatch(/--other-api-key/);
    const report = await kit(undefined, ['isolation'], ['createTransfer', 'getTransfer'], { otherApiKey });
    expect(report.verdict, describeFailures(report)).toBe('passed');
    expect(check(report, 'createTransfer/isolation').status).toBe('passed');
  });

  it('is not applicable, not skipped, with an empty --other-api-key (an empty PAYMENTS_OTHER_API_KEY): the run passes', { timeout: 60_000 }, async () => {
    const report = await kit(undefined, ['isolation', 'coverage'], ['createTransfer'], { otherApiKey: '' });
    expect(report.checks.map((c) => c.id)).not.toContain('createTransfer/isolation');
    expect(report.notApplicable.find((n) => n.check === 'isolation')?.reason).toMatch(/--other-api-key/);
    expect(report.verdict, describeFailures(report)).toBe('passed');
  });

  it("catches an idempotency store shared across organizations: the first one's key replayed by the second gets its resource", { timeout: 60_000 }, async () => {
    const report = await kit(DEFECTS['idempotency-store-global'], ['isolation'], ['createRecipient', 'createTransfer', 'getTransfer'], { otherApiKey });
    expect(check(report, 'createRecipient/isolation').status).toBe('failed');
    expect(failureOf(report, 'createRecipient/isolation')).toMatch(/Idempotency-Key the first organization used.*answered with the first organization's createRecipient/);
  });

  it('a key the server refuses stops the run, naming --other-api-key', async () => {
    await expect(kit(undefined, ['isolation'], ['createTransfer'], { otherApiKey: 'svc_live_unknownunknownunknownunknown' })).rejects.toThrow(/refused the key of --other-api-key/);
  });
});

describe('the auth probes send a request a valid key gets accepted', () => {
  it('a transfer route that lets any credential through fails every auth probe (not a 404 of a made-up id)', { timeout: 60_000 }, async () => {
    const probes = ['auth-no-key', 'auth-malformed-key', 'auth-unknown-key', 'auth-bearer'];
    const report = await kit(DEFECTS['transfers-skip-auth'], probes, ['createTransfer', 'getTransfer']);
    for (const op of ['createTransfer', 'getTransfer']) {
      for (const probe of probes) {
        expect(check(report, `${op}/${probe}`).status, `${op}/${probe}: ${describeFailures(report)}`).toBe('failed');
        expect(failureOf(report, `${op}/${probe}`)).toMatch(/not refused/);
      }
    }
  });

  it('a refusal with a business code of the operation is not an authentication failure', { timeout: 60_000 }, async () => {
    // Without a valid key the transfer routes answer as if the recipient / transfer did not exist.
    const notFound: Mutant = {
      name: 'auth-as-not-found',
      defect: 'a transfer route without a valid key answers 404 recipient_not_found / banking_transfer_not_found',
      visible: true,
      response: (res, req) => {
        if (res.status !== 401 || !(is(req, 'POST', TRANSFERS) || is(req, 'GET', TRANSFER))) return res;
        return json(404, { error: 'Not found.', code: is(req, 'GET', TRANSFER) ? 'banking_transfer_not_found' : 'recipient_not_found', requestId: crypto.randomUUID() });
      },
    };
    const report = await kit(notFound, ['auth-no-key', 'auth-unknown-key'], ['createTransfer', 'getTransfer']);
    for (const id of ['createTransfer/auth-no-key', 'createTransfer/auth-unknown-key', 'getTransfer/auth-no-key', 'getTransfer/auth-unknown-key']) {
      expect(check(report, id).status, id).toBe('failed');
      expect(failureOf(report, id)).toMatch(/404 (recipient_not_found|banking_transfer_not_found).*not an authentication failure/);
    }
  });
});

describe('x-assumed: an excuse covers exactly what is assumed', () => {
  // QA DEFECT=validation-422: the generic validation error is 422 validation_error, where the spec assumes 400 invalid_request.
  const validation422: Mutant = {
    name: 'validation-422',
    defect: 'the generic validation error (400 invalid_request, x-assumed) is answered 422 validation_error',
    visible: { no: 'the 400 invalid_request of a generic validation error is x-assumed' },
    response: (res) => (res.status === 400 && codeOf(res) === 'invalid_request' ? { ...res, status: 422, body: JSON.stringify({ ...parse(res.body), code: 'validation_error' }) } : res),
  };

  it('another 4xx where the spec assumes 400 invalid_request is an ASSUMED warning, not "status 422 is not documented"', { timeout: 60_000 }, async () => {
    const report = await kit(validation422, ['coverage', 'invalid'], ['createRecipient', 'issueCard']);
    expect(report.verdict, describeFailures(report)).toBe('passed');
    const assumed = report.checks.flatMap((c) => c.warnings).filter((w) => w.rule === 'status' && /status 422 is not documented/.test(w.message));
    expect(assumed.length).toBeGreaterThan(0);
    expect(assumed.every((w) => w.assumedReason)).toBe(true);
  });

  it('a stated code at an undocumented status still fails', { timeout: 60_000 }, async () => {
    const amount422: Mutant = {
      name: 'checkout-amount-422',
      defect: 'invalid_checkout_session_amount (stated by the provider) answered at 422',
      visible: true,
      response: (res) => (res.status === 400 && codeOf(res) === 'invalid_checkout_session_amount' ? { ...res, status: 422 } : res),
    };
    const report = await kit(amount422, ['coverage'], ['createCheckoutSession']);
    expect(check(report, 'createCheckoutSession/coverage').status).toBe('failed');
  });
});

describe('the document\'s default rate limit (600 per 15 minutes per key), with --admin-token', () => {
  const limitRun = (defect: Mutant | undefined) => {
    active = defect;
    return runKit({ baseUrl: server.url, apiKey, adminToken: server.adminToken, checks: ['rate-limit'], operations: ['getBankingBalance'], seed: 11, ...SERVER_GATE }).finally(() => (active = undefined));
  };

  it('catches a server that serves the 601st request of a key', { timeout: 60_000 }, async () => {
    const report = await limitRun(DEFECTS['no-default-rate-limit']);
    expect(check(report, 'getBankingBalance/rate-limit').status).toBe('failed');
    expect(failureOf(report, 'getBankingBalance/rate-limit')).toMatch(/request 601 with one key within 900 s was served; the provider's document limits a key to 600 requests per 15 minutes/);
  });

  it('passes the sandbox as it is', { timeout: 60_000 }, async () => {
    const report = await limitRun(undefined);
    expect(check(report, 'getBankingBalance/rate-limit').status, describeFailures(report)).toBe('passed');
  });
});

describe('a wrong --admin-token', () => {
  it('stops the run (a usage error naming --admin-token), not a run without the admin checks', async () => {
    await expect(runKit({ baseUrl: server.url, apiKey, adminToken: 'not-the-admin-token', checks: ['coverage'], operations: ['createTransfer'] })).rejects.toThrow(/refused the admin token.*--admin-token/);
  });
});

describe('the sandbox as it is, without --admin-token', () => {
  it('passes the auth probes', { timeout: 60_000 }, async () => {
    const report = await kit(undefined, ['auth-no-key', 'auth-malformed-key', 'auth-unknown-key', 'auth-bearer'], ['createRecipient', 'createTransfer', 'getTransfer']);
    expect(report.verdict, describeFailures(report)).toBe('passed');
  });

  it('passes the same checks: the lookup of an unknown id, nicknames in use, the amount in its other form', { timeout: 60_000 }, async () => {
    const report = await kit(undefined, ['resource-chain', 'idempotent-replay', 'unique-fields', 'idempotency-conflict', 'concurrent-key'], ['createRecipient', 'createTransfer', 'getTransfer']);
    expect(report.verdict, describeFailures(report)).toBe('passed');
    const seen = (op: string, status: string, code: string) => report.coverage.find((r) => r.operationId === op && r.status === status)?.codes.find((c) => c.code === code)?.seen ?? 0;
    expect(seen('getTransfer', '404', 'banking_transfer_not_found')).toBeGreaterThan(0);
    expect(seen('createRecipient', '409', 'recipient_nickname_already_exists')).toBeGreaterThan(0);
    expect(seen('createRecipient', '409', 'recipient_already_exists')).toBeGreaterThan(0);
  });
});
