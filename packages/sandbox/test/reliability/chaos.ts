// The chaos harness: N payments, each from a distinct stable id (`invoice-<i>`, its Idempotency-Key derived
// with deriveIdempotencyKey), sent through the REAL client (@payments/client) to a running sandbox while
// faults are injected through the admin API, in batches, on a good share of the transfer attempts. Then the
// sandbox's store is read back and every payment is checked against the provider's outcome table (section 3).
//
// Time is virtual: each payment has its own clock (AsyncLocalStorage), the client's `sleep` records the wait
// and advances that clock at once, and `now` reads it. So a 60 s wait after a 503 costs nothing, and one
// payment's waits never eat another payment's retry deadline.
//
// What a payment does with each outcome (classifyTransfer, the provider's table):
// - resolved (201 pending/completed): done, one transfer; never sent again;
// - closed (201 failed/cancelled): that attempt is over, and by the table a new attempt needs a NEW key. The
//   harness does make a new attempt, with the key derived from `invoice-<i>:attempt-<n>`, up to
//   `maxAttemptsPerInvoice` attempts; an invoice whose every attempt closed is a definite typed failure
//   (`closed`, its transfers failed/cancelled). A merchant retrying a failed payout is the common case, and
//   it is the one that could pay twice if keys were mixed up, so it is the one worth exercising;
// - pending_review (409): never a new key. Looked at once more later (same key), then handed to "support":
//   the harness's review desk resolves the attempt through the admin API, and the payment retries with the
//   same key;
// - unresolved (503/502/504/network after the client's retry budget): retried later with the SAME key, at
//   most `MAX_LATER_ROUNDS` times;
// - rejected (a definite 4xx): only expected for the invoices that pay the published `pix_payout_rejected`
//   test amount; a definite typed failure with nothing paid. Unless a fault left that invoice's attempt open
//   (a 503 or a pending review): the retry then resolves the attempt as the fault scheduled (section 3).
//
// Verification, from the store (a read of each key's idempotency record and its transfer, in transactions
// that are rolled back): every invoice has at most one live (pending/completed) transfer; every transfer in
// the organization belongs to a key the harness sent (count equality); every 201 the client saw, replays
// included, is in the store with the same body; each final outcome matches the table; the client waited as
// documented (≥ the spec's minimum after a temporary 503; exactly Retry-After after a 429, which the
// rate-limit suite provokes; provider_rate_limited is not in the mix: the spec documents it on card issuance
// only, and the sandbox refuses faults an operation does not document); and the sandbox's answers match the
// faults it reports having injected.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';
import { ApiError, classifyTransfer, createPaymentsClient, deriveIdempotencyKey, type PaymentsClient, type RetryEvent, type RetryOptions, type TransferOutcome } from '@payments/client';
import { loadSpec } from '@payments/spec';
import { transferView } from '../../src/operations/banking.ts';
import { testValue } from '../../src/test-values.ts';
import type { FaultKind, IdempotencyRecord, Store, TransferRecord } from '../../src/store/types.ts';
import { adminApi } from './wire.ts';

export interface ChaosTarget {
  /** Base URLs of the sandbox instances (one store); API keys are spread over them, admin calls go to the first. */
  urls: string[];
  adminToken: string;
  /** The sandbox's store, or another connection to it: read only after the load, to verify. */
  store: Store;
  /** Crashes during the run (`chaos --crash-every`): which instance is down, and when it is back. */
  crashes?: Crashes;
}

/**
 * What the crash loop (tools/tasks/chaos.ts) tells the harness. A request to an instance killed while it was
 * in flight, or sent while it is down, fails on the wire; the payer then waits, in real time, until the
 * instance is back before its client (whose waits are virtual) sees the error and retries with its key.
 */
export interface Crashes {
  /** How many times the instance at `origin` has been killed so far. */
  count(origin: string): number;
  /** Whether the instance at `origin` is down now (killed, not yet listening again). */
  down(origin: string): boolean;
  /** Resolves once the instance at `origin` accepts requests again (at once when it is up). */
  whenUp(origin: string): Promise<void>;
  /** Whether the database server has been restarted during the run (its requests may then meet a 500). */
  databaseRestarted(): boolean;
  /** Resolves once the database server accepts connections again (at once when it is up). */
  whenDatabaseUp(): Promise<void>;
}

export interface ChaosOptions {
  payments: number;
  /** Payments in flight at once. */
  concurrency?: number;
  seed?: number;
  /** Share of the transfer attempts that meet a fault (default 0.3). */
  faultShare?: number;
  /** A batch of faults is scheduled after every `feedEvery` attempts (default 20), sized to keep `faultShare`. */
  feedEvery?: number;
  /** Payments per API key, so the per-key rate limit (600 / 15 min, its own test) never interferes. */
  paymentsPerKey?: number;
  /** Attempts (keys) per invoice while attempts come back closed. */
  maxAttemptsPerInvoice?: number;
  /** Every `rejectEvery`-th invoice pays the pix_payout_rejected test amount (a definite 422). 0: none. */
  rejectEvery?: number;
  /** Per-attempt timeout of the client (real time). */
  timeoutMs?: number;
  /**
   * The client's retry overrides. Default: 4 attempts per call for createTransfer (instead of 10), so that
   * calls do end unresolved now and then and the "retry later with the same key" path is exercised.
   */
  retry?: RetryOptions;
  /**
   * A deliberately wrong payer, to prove the checks can fail: a new key after an unresolved outcome (what the
   * provider's section 7 rule 8 forbids). Only for the harness's own test.
   */
  sabotage?: 'new-key-after-unresolved';
  progress?: (line: string) => void;
}

type Transfer = { id: string; recipientId: string; amount: string; status: string; idempotencyKey?: string };

interface FaultPlan {
  kind: FaultKind;
  commit?: boolean;
  resolution?: string;
}

/** The mix of injected faults, by weight of fault uses (not records). */
export const FAULT_MIX: readonly { weight: number; fault: FaultPlan }[] = [
  { weight: 10, fault: { kind: 'unavailable', resolution: 'pending' } },
  { weight: 6, fault: { kind: 'unavailable', resolution: 'completed' } },
  { weight: 5, fault: { kind: 'unavailable', resolution: 'failed' } },
  { weight: 4, fault: { kind: 'unavailable', resolution: 'cancelled' } },
  { weight: 2, fault: { kind: 'unavailable', resolution: 'pending_review' } },
  { weight: 7, fault: { kind: 'edge_502', commit: true } },
  { weight: 6, fault: { kind: 'edge_502', commit: false } },
  { weight: 6, fault: { kind: 'edge_504', commit: true } },
  { weight: 5, fault: { kind: 'edge_504', commit: false } },
  { weight: 9, fault: { kind: 'drop_after_commit' } },
  { weight: 8, fault: { kind: 'pending_review', resolution: 'pending_review' } },
  { weight: 3, fault: { kind: 'pending_review', resolution: 'completed' } },
];

/** How the review desk (support, through the admin API) resolves held attempts, by weight. */
const REVIEW_RESOLUTIONS: readonly { weight: number; resolution: string }[] = [
  { weight: 45, resolution: 'pending' },
  { weight: 35, resolution: 'completed' },
  { weight: 10, resolution: 'failed' },
  { weight: 10, resolution: 'cancelled' },
];

export const faultLabel = (f: { kind: string; commit?: boolean | undefined; resolution?: string | null | undefined }) =>
  f.kind === 'edge_502' || f.kind === 'edge_504'
    ? `${f.kind}${f.commit ? ' (committed first)' : ' (not processed)'}`
    : f.kind === 'unavailable' || f.kind === 'pending_review'
      ? `${f.kind} → ${f.resolution ?? 'pending'}`
      : f.kind === 'provider_rate_limited'
        ? 'provider_rate_limited (503 + Retry-After)'
        : f.kind;

/** How the tally labels the sandbox's own 503 while its database restarts, apart from injected faults. */
export const DATABASE_DOWN = ' (database down)';
const MAX_CALLS_PER_PAYMENT = 30;
const MAX_LATER_ROUNDS = 6;
const MAX_REVIEW_ROUNDS = 10;
/** Virtual time between a give-up of the client and the harness's next try with the same key. */
const LATER_MS = 30 * 60_000;
const REVIEW_POLL_MS = 5 * 60_000;
const REVIEW_TURNAROUND_MS = 60 * 60_000;
const LIVE = new Set(['pending', 'completed']);
const CLOSED = new Set(['failed', 'cancelled']);

/** A small seeded PRNG (mulberry32): the fault schedule and the client's jitter repeat for one seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T extends { weight: number }>(items: readonly T[], random: () => number): T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  let r = random() * total;
  for (const item of items) {
    r -= item.weight;
    if (r < 0) return item;
  }
  return items[items.length - 1]!;
}

interface Step {
  key: string;
  attempt: number;
  kind: TransferOutcome['kind'];
  /** Requests the client sent for this call. */
  sends: number;
  status?: number;
  code?: string;
  body?: Transfer;
}

/** Whether a fault left one of the payment's attempts open: its retry resolves it as scheduled, whatever the amount. */
const attemptLeftOpen = (p: Payment) => p.answers.some((a) => a === '503 temporarily_unavailable' || a === '409 banking_transfer_attempt_pending_review');

interface Payment {
  index: number;
  invoice: string;
  amount: string;
  recipientId: string;
  expectReject: boolean;
  keys: string[];
  steps: Step[];
  final?: { kind: 'resolved' | 'closed' | 'rejected' | 'undecided'; transfer?: Transfer; code?: string; why?: string };
  // the payment's own virtual clock and what the client did on it
  virtualMs: number;
  /** Every answer its attempts got, in order (for the report of a payment that went wrong). */
  answers: string[];
  lastResponse?: { status: number; retryAfter: string | null } | undefined;
}

export interface ChaosReport {
  payments: number;
  concurrency: number;
  seed: number;
  instances: number;
  store: string;
  /** scheduledOverReject: invoices of the rejected test amount a fault's open attempt resolved as scheduled instead (section 3). */
  outcomes: { resolved: number; resolvedAfterClosed: number; closed: number; rejected: number; undecided: number; scheduledOverReject: number };
  transfers: { total: number; byStatus: Record<string, number> };
  /** HTTP requests to createTransfer. */
  attempts: number;
  faults: { scheduled: number; batches: number; injected: number; share: number; byKind: Record<string, number> };
  retries: { client: number; later: number; afterUnresolved: number; afterReview: number };
  newKeys: number;
  reviews: { heldForSupport: number; resolvedByAdmin: number; alreadyResolved: number };
  /** The client's waits checked against the contract: after a temporary 503 (≥ the minimum), after Retry-After (equal). */
  waitChecks: { afterUnavailable: number; afterRetryAfter: number; minAfterUnavailableMs: number };
  /** What the client received, by status and code (per attempt). */
  responses: Record<string, number>;
  virtualWait: { totalMs: number; maxPerPaymentMs: number };
  duplicates: number;
  orphans: number;
  lost: number;
  violationCount: number;
  /** The first violations, as messages. */
  violations: string[];
  durationMs: number;
}

const ROLLBACK = new Error('read only: rolled back');

export async function runChaos(target: ChaosTarget, options: ChaosOptions): Promise<ChaosReport> {
  const started = performance.now();
  const n = options.payments;
  const concurrency = options.concurrency ?? 32;
  const seed = options.seed ?? 1;
  const faultShare = options.faultShare ?? 0.3;
  const feedEvery = options.feedEvery ?? 20;
  const paymentsPerKey = options.paymentsPerKey ?? 40;
  const maxAttempts = options.maxAttemptsPerInvoice ?? 3;
  const rejectEvery = options.rejectEvery ?? 97;
  const progress = options.progress ?? (() => {});
  const random = rng(seed);
  const spec = loadSpec() as any;
  const minUnavailableWaitMs = Number(spec.paths['/v1/banking/transfers'].post['x-retry'].temporaryUnavailable.minDelaySeconds) * 1000;
  const rejectAmount = testValue('pix_payout_rejected').value;

  const violations: string[] = [];
  let violationCount = 0;
  const violation = (message: string) => {
    violationCount++;
    if (violations.length < 25) violations.push(message);
  };

  const adminUrl = target.urls[0]!;
  const admin = surviveCrashes(adminApi({ url: adminUrl, adminToken: target.adminToken }), adminUrl, target.crashes);
  const orgId = (await admin.req('POST', '/organizations', { name: 'Chaos run', banking: true })).id as string;
  const setupKey = (await admin.req('POST', `/organizations/${orgId}/api-keys`)).key as string;

  // Two recipients (PIX and ACH), through the client, with derived keys.
  const setup = createPaymentsClient({ apiKey: setupKey, baseUrl: adminUrl });
  const pix = await setup.POST('/v1/banking/recipients', {
    body: { rail: 'brl_pix', nickname: 'Chaos PIX supplier', pixKey: 'chaos.supplier@example.com' },
    idempotencyKey: await deriveIdempotencyKey('createRecipient', 'chaos-pix'),
  });
  const ach = await setup.POST('/v1/banking/recipients', {
    body: { rail: 'usd_ach', nickname: 'Chaos ACH supplier' },
    idempotencyKey: await deriveIdempotencyKey('createRecipient', 'chaos-ach'),
  });

  const payments: Payment[] = Array.from({ length: n }, (_, i) => {
    const expectReject = rejectEvery > 0 && i % rejectEvery === rejectEvery - 1;
    let cents = 100 + ((i * 7919) % 99_000);
    if (cents === Number(rejectAmount.replace('.', ''))) cents++;
    const amount = expectReject ? rejectAmount : `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    return { index: i, invoice: `invoice-${i}`, amount, recipientId: expectReject || i % 2 === 0 ? pix.data.id : ach.data.id, expectReject, keys: [], steps: [], virtualMs: 0, answers: [] };
  });

  // ---- the client, with virtual time per payment --------------------------------------------------------
  const current = new AsyncLocalStorage<Payment>();
  const epoch = Date.now();
  const responses: Record<string, number> = {};
  const count = (label: string) => void (responses[label] = (responses[label] ?? 0) + 1);
  let attempts = 0;

  const observe = async (request: Request, init: { signal: AbortSignal }): Promise<Response> => {
    const payment = current.getStore();
    // Backpressure: while the fault feeder is more than a few batches behind, attempts wait for it, so the
    // share of faulted attempts holds and no batch grows into a burst.
    while (feeding && attempts - fedAt >= 3 * feedEvery) await feeding;
    attempts++;
    feedIfDue();
    if (payment) payment.lastResponse = undefined;
    let res: Response;
    const origin = new URL(request.url).origin;
    const crashesBefore = target.crashes?.count(origin);
    const downBefore = target.crashes?.down(origin);
    try {
      res = await globalThis.fetch(request, init);
    } catch (err) {
      const crashed = target.crashes && (downBefore || target.crashes.down(origin) || target.crashes.count(origin) !== crashesBefore);
      const label = crashed ? CRASHED : init.signal.aborted ? 'timeout (no answer in time)' : 'network error (connection closed)';
      count(label);
      payment?.answers.push(label);
      if (crashed) await target.crashes!.whenUp(origin);
      throw err;
    }
    if (payment) payment.lastResponse = { status: res.status, retryAfter: res.headers.get('retry-after') };
    let code = '';
    if (res.status >= 400) {
      const body = (await res.clone().json().catch(() => undefined)) as { code?: string; error?: string } | undefined;
      code = body?.code ? ` ${body.code}` : ' (no JSON body)';
      // The sandbox's 503 while its database restarts (not an injected fault, counted apart): the payer
      // waits (real time) until the database is back, as for a killed sandbox, then retries with its key.
      if (res.status === 503 && body?.error?.includes('database') && target.crashes?.databaseRestarted()) {
        code += DATABASE_DOWN;
        await target.crashes.whenDatabaseUp().then(() => new Promise((r) => setTimeout(r, 100)));
      }
    }
    count(`${res.status}${code}`);
    payment?.answers.push(`${res.status}${code}`);
    return res;
  };

  const waitChecks = { afterUnavailable: 0, afterRetryAfter: 0, minAfterUnavailableMs: minUnavailableWaitMs };
  const onRetry = (event: RetryEvent) => {
    const payment = current.getStore();
    if (!payment) return;
    const seen = payment.lastResponse;
    if (event.reason === 503 && event.code === 'temporarily_unavailable') {
      waitChecks.afterUnavailable++;
      if (event.delayMs < minUnavailableWaitMs) violation(`${payment.invoice}: waited ${event.delayMs} ms after a temporary 503 (minimum ${minUnavailableWaitMs} ms)`);
    }
    if (event.code === 'provider_rate_limited' || event.reason === 429) {
      waitChecks.afterRetryAfter++;
      if (!seen?.retryAfter || event.delayMs !== Number(seen.retryAfter) * 1000) {
        violation(`${payment.invoice}: waited ${event.delayMs} ms after ${event.reason} ${event.code} with Retry-After ${seen?.retryAfter}`);
      }
    }
  };

  const clients = new Map<number, Promise<PaymentsClient>>();
  const clientFor = (i: number): Promise<PaymentsClient> => {
    const group = Math.floor(i / paymentsPerKey);
    let client = clients.get(group);
    if (!client) {
      client = (async () => {
        const key = await admin.req('POST', `/organizations/${orgId}/api-keys`);
        return createPaymentsClient({
          apiKey: key.key as string,
          baseUrl: target.urls[group % target.urls.length]!,
          timeoutMs: options.timeoutMs ?? 15_000,
          fetch: observe,
          onRetry,
          retry: options.retry ?? { operations: { createTransfer: { maxAttempts: 4 } } },
          random,
          sleep: async (ms) => {
            const payment = current.getStore();
            if (!payment) throw new Error('a client wait outside a payment');
            payment.virtualMs += ms;
          },
          now: () => epoch + (current.getStore()?.virtualMs ?? 0),
        });
      })();
      clients.set(group, client);
    }
    return client;
  };

  // ---- faults, scheduled in batches ------------------------------------------------------------------
  // Faults are taken first come, first served by the organization's requests. A batch scheduled per N
  // payments would be eaten in a burst by the next requests (every request faulted until the batch is used
  // up) and, at the end of the run, by the last few payments alone. So batches follow the traffic instead:
  // after every `feedEvery` attempts, `faultShare` of them in new faults. The backlog stays a few faults
  // deep, and each attempt meets one with about the same chance, however many payments are still in flight.
  const scheduled = new Map<string, { label: string; count: number }>();
  let scheduledUses = 0;
  let batches = 0;
  let fedAt = 0;
  let owed = 0;
  let feeding: Promise<void> | undefined;
  let feedError: unknown;
  function feedIfDue(): void {
    if (feeding || attempts - fedAt < feedEvery) return;
    owed += (attempts - fedAt) * faultShare;
    fedAt = attempts;
    const uses = Math.floor(owed);
    owed -= uses;
    feeding = scheduleBatch(uses)
      .catch((err: unknown) => void (feedError ??= err))
      .finally(() => (feeding = undefined));
  }
  async function scheduleBatch(uses: number): Promise<void> {
    batches++;
    const records: { fault: FaultPlan; body: Record<string, unknown>; uses: number }[] = [];
    while (uses > 0) {
      const { fault } = pick(FAULT_MIX, random);
      const recordUses = Math.min(uses, 1 + Math.floor(random() * 2));
      uses -= recordUses;
      const body: Record<string, unknown> = { operationId: 'createTransfer', kind: fault.kind, count: recordUses, organizationId: orgId };
      if (fault.commit !== undefined) body.commit = fault.commit;
      if (fault.resolution) body.resolution = fault.resolution;
      if (fault.kind === 'provider_rate_limited') body.retryAfterSeconds = 1 + Math.floor(random() * 30);
      records.push({ fault, body, uses: recordUses });
    }
    // One round trip per batch: the records of a batch are added together (their order among themselves is
    // no matter; they are all of this batch).
    await Promise.all(
      records.map(async ({ fault, body, uses: recordUses }) => {
        const created = await admin.req('POST', '/faults', body);
        scheduled.set(created.id as string, { label: faultLabel(fault), count: recordUses });
        scheduledUses += recordUses;
      }),
    );
  }

  // ---- the review desk: support resolves held attempts through the admin API ---------------------------
  const reviews = { heldForSupport: 0, resolvedByAdmin: 0, alreadyResolved: 0 };
  const desk: { key: string; done: () => void }[] = [];
  let flushing = false;
  const flush = async () => {
    if (flushing || desk.length === 0) return;
    flushing = true;
    try {
      for (const item of desk.splice(0)) {
        const { resolution } = pick(REVIEW_RESOLUTIONS, random);
        try {
          const reply = await admin.raw('POST', `/organizations/${orgId}/transfer-attempts/resolve`, { idempotencyKey: item.key, resolution });
          if (reply.status === 200) reviews.resolvedByAdmin++;
          else if (reply.status === 404) reviews.alreadyResolved++; // a fault's resolution, or a replayed 201, got there first
          else violation(`review desk: resolve ${item.key} → ${reply.status} ${reply.text}`);
        } catch (err) {
          violation(`review desk: resolve ${item.key} failed: ${String(err)}`);
        }
        item.done(); // the payment goes on either way (its retry, bounded, says what became of it)
      }
    } finally {
      flushing = false;
    }
  };
  const deskTimer = setInterval(() => void flush(), 20);
  const review = (key: string) => new Promise<void>((done) => desk.push({ key, done }));

  // ---- one payment ------------------------------------------------------------------------------------
  const keyOf = (p: Payment, attempt: number) => deriveIdempotencyKey('createTransfer', attempt === 1 ? p.invoice : `${p.invoice}:attempt-${attempt}`);

  async function sendOnce(p: Payment, client: PaymentsClient, key: string, attempt: number): Promise<Step> {
    return current.run(p, async () => {
      try {
        const result = await client.POST('/v1/banking/transfers', { body: { recipientId: p.recipientId, amount: p.amount }, idempotencyKey: key });
        const outcome = classifyTransfer(result);
        return { key, attempt, kind: outcome.kind, sends: result.attempts, status: result.response.status, body: result.data as Transfer };
      } catch (err) {
        const outcome = classifyTransfer(err); // rethrows anything that is not a PaymentsError: a harness bug
        const error = outcome.kind === 'resolved' || outcome.kind === 'closed' ? undefined : outcome.error;
        return {
          key,
          attempt,
          kind: outcome.kind,
          sends: error?.attempts ?? 0,
          ...(error instanceof ApiError ? { status: error.status, code: error.code } : {}),
        };
      }
    });
  }

  async function pay(p: Payment): Promise<void> {
    const client = await clientFor(p.index);
    let attempt = 1;
    let key = await keyOf(p, attempt);
    p.keys.push(key);
    let later = 0;
    let reviewRounds = 0;
    let lookedAgain = false;
    for (let calls = 0; calls < MAX_CALLS_PER_PAYMENT; calls++) {
      const step = await sendOnce(p, client, key, attempt);
      p.steps.push(step);
      switch (step.kind) {
        case 'resolved':
          p.final = { kind: 'resolved', transfer: step.body! };
          return;
        case 'closed':
          if (attempt >= maxAttempts) {
            p.final = { kind: 'closed', transfer: step.body! };
            return;
          }
          attempt++;
          key = await keyOf(p, attempt);
          p.keys.push(key);
          lookedAgain = false;
          continue;
        case 'pending_review':
          if (++reviewRounds > MAX_REVIEW_ROUNDS) {
            p.final = { kind: 'undecided', why: `still pending review after ${MAX_REVIEW_ROUNDS} rounds` };
            return;
          }
          if (!lookedAgain) {
            lookedAgain = true; // surfaced; look again later, same key
            p.virtualMs += REVIEW_POLL_MS;
          } else {
            reviews.heldForSupport++;
            await review(key); // support resolves it; then the same key again
            p.virtualMs += REVIEW_TURNAROUND_MS;
          }
          continue;
        case 'unresolved':
          if (options.sabotage === 'new-key-after-unresolved' && attempt < maxAttempts) {
            attempt++;
            key = await keyOf(p, attempt);
            p.keys.push(key);
            continue;
          }
          if (++later > MAX_LATER_ROUNDS) {
            p.final = { kind: 'undecided', why: `unresolved after ${MAX_LATER_ROUNDS} later rounds` };
            return;
          }
          p.virtualMs += LATER_MS;
          continue;
        case 'rejected':
          p.final = { kind: 'rejected', ...(step.code ? { code: step.code } : {}) };
          return;
      }
    }
    p.final = { kind: 'undecided', why: `no definite outcome in ${MAX_CALLS_PER_PAYMENT} calls` };
  }

  // ---- the load -----------------------------------------------------------------------------------------
  await scheduleBatch(Math.round(feedEvery * faultShare)); // the first batch, before any attempt
  let next = 0;
  let finished = 0;
  const tick = Math.max(1, Math.round(n / 10));
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await pay(payments[i]!);
      if (++finished % tick === 0) progress(`  ${finished}/${n} payments (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  } finally {
    clearInterval(deskTimer);
    await feeding;
  }
  if (feedError) throw feedError;
  await flush();

  // ---- faults actually injected: the admin's list, count - remaining (leftovers stay, scoped to this org) ----
  const listed = (await admin.req('GET', '/faults')).faults as { id: string; remaining: number }[];
  const byKind: Record<string, number> = {};
  for (const { label } of FAULT_MIX.map((m) => ({ label: faultLabel(m.fault) }))) byKind[label] = 0;
  let injected = 0;
  for (const f of listed) {
    const plan = scheduled.get(f.id);
    if (!plan) continue; // not ours
    const used = plan.count - f.remaining;
    byKind[plan.label] = (byKind[plan.label] ?? 0) + used;
    injected += used;
  }

  // The sandbox's answers must match the faults it says it injected (a sandbox bug answering 503 would
  // otherwise pass for an injected fault).
  const used = (prefix: string) => Object.entries(byKind).filter(([label]) => label.startsWith(prefix)).reduce((s, [, v]) => s + v, 0);
  const seen = (label: string) => responses[label] ?? 0;
  // A request killed with its instance after its fault was taken (and committed) was never answered.
  const crashSlack = seen(CRASHED);
  const tally = (saw: number, injected: number) => (crashSlack ? saw <= injected && injected - saw <= crashSlack : saw === injected);
  if (!tally(seen('503 temporarily_unavailable'), used('unavailable'))) {
    violation(`the client saw ${seen('503 temporarily_unavailable')} temporary 503s, the sandbox injected ${used('unavailable')}`);
  }
  if (!tally(seen('503 provider_rate_limited'), used('provider_rate_limited'))) {
    violation(`the client saw ${seen('503 provider_rate_limited')} provider_rate_limited, the sandbox injected ${used('provider_rate_limited')}`);
  }
  // Never more edge answers or cut connections than injected. Fewer is possible: a fault that processes the
  // request first (edge_50x with commit, drop_after_commit) answers the operation's own refusal instead when
  // processing fails (the 422 of the rejected test amount; the 409 of an attempt held for review).
  const edgeLike = used('edge_502') + used('edge_504') + used('drop_after_commit');
  const edgeSeen = seen('502 (no JSON body)') + seen('504 (no JSON body)') + seen('network error (connection closed)');
  if (edgeSeen > edgeLike || edgeLike - edgeSeen > seen('422 pix_payout_rejected') + seen('409 banking_transfer_attempt_pending_review') + crashSlack) {
    violation(`the client saw ${edgeSeen} edge answers or cut connections, the sandbox injected ${edgeLike}`);
  }
  for (const label of Object.keys(responses)) {
    const expected = /^(201|409 banking_transfer_attempt_pending_review|503 temporarily_unavailable|503 provider_rate_limited|502 \(no JSON body\)|504 \(no JSON body\)|network error|timeout|422 pix_payout_rejected)/;
    if (!expected.test(label)) violation(`unexpected answer from the sandbox: ${label} (×${responses[label]})`);
  }

  // ---- verification from the store ------------------------------------------------------------------
  const store = target.store;
  const records = new Map<string, { record: IdempotencyRecord | undefined; transfer: TransferRecord | undefined }>();
  const allKeys = payments.flatMap((p) => p.keys);
  for (let from = 0; from < allKeys.length; from += 250) {
    const chunk = allKeys.slice(from, from + 250);
    try {
      await store.transaction(async (tx) => {
        for (const key of chunk) {
          // The only read of an idempotency record the Store offers is a claim; this transaction is rolled
          // back, so a probe of a key never sent leaves nothing behind (the admin's resolve does the same).
          const record = await tx.claimIdempotency({
            organizationId: orgId, operationId: 'createTransfer', key, fingerprint: '', state: 'unresolved', status: null, body: null, resolution: null, createdAt: new Date().toISOString(),
          });
          const id = record?.state === 'done' && record.status === 201 ? (record.body as Transfer).id : undefined;
          records.set(key, { record, transfer: id ? await tx.getTransfer(orgId, id) : undefined });
        }
        throw ROLLBACK;
      });
    } catch (err) {
      if (err !== ROLLBACK) throw err;
    }
  }
  const total = await store.transaction((tx) => tx.countTransfers(orgId));

  let duplicates = 0;
  let lost = 0;
  let linked = 0;
  const byStatus: Record<string, number> = {};
  const outcomes = { resolved: 0, resolvedAfterClosed: 0, closed: 0, rejected: 0, undecided: 0, scheduledOverReject: 0 };
  let clientRetries = 0;
  let laterRetries = 0;
  let afterUnresolved = 0;
  let afterReview = 0;
  let newKeys = 0;
  let totalVirtual = 0;
  let maxVirtual = 0;
  for (const p of payments) {
    totalVirtual += p.virtualMs;
    maxVirtual = Math.max(maxVirtual, p.virtualMs);
    const final = p.final ?? { kind: 'undecided' as const, why: 'never finished' };
    outcomes[final.kind]++;

    // The trace follows the table: a new key only right after a closed attempt, and it is the next derived one.
    for (let j = 0; j < p.steps.length; j++) {
      const step = p.steps[j]!;
      clientRetries += Math.max(0, step.sends - 1);
      const prev = p.steps[j - 1];
      if (!prev) continue;
      if (prev.kind === 'resolved' || prev.kind === 'rejected') violation(`${p.invoice}: sent again after a ${prev.kind} outcome`);
      if (step.key === prev.key) {
        laterRetries++;
        if (prev.kind === 'unresolved') afterUnresolved++;
        if (prev.kind === 'pending_review') afterReview++;
        if (prev.kind === 'closed') violation(`${p.invoice}: the same key sent again after a closed attempt`);
      } else {
        newKeys++;
        if (prev.kind !== 'closed') violation(`${p.invoice}: a new key after the outcome ${prev.kind} (only a closed attempt allows one)`);
        if (step.key !== p.keys[step.attempt - 1] || step.attempt !== prev.attempt + 1) violation(`${p.invoice}: attempt ${step.attempt} did not use its derived key`);
      }
    }

    // Every 201 the client saw (replays included) is in the store, with the same body.
    let live: TransferRecord[] = [];
    for (const key of p.keys) {
      const { record, transfer } = records.get(key)!;
      const bodies = p.steps.filter((s) => s.key === key && s.body).map((s) => s.body!);
      for (const body of bodies) {
        if (!transfer || !isDeepStrictEqual(record?.body, body) || !isDeepStrictEqual(transferView(transfer), body)) {
          lost++;
          violation(`${p.invoice}: a 201 the client saw (${body.id}) is not in the store as it was answered`);
        }
        if (body.amount !== p.amount || body.recipientId !== p.recipientId || body.idempotencyKey !== key) violation(`${p.invoice}: 201 for another request: ${JSON.stringify(body)}`);
      }
      if (!transfer) continue;
      linked++;
      byStatus[transfer.status] = (byStatus[transfer.status] ?? 0) + 1;
      if (transfer.idempotencyKey !== key) violation(`${p.invoice}: transfer ${transfer.id} carries another key`);
      if (bodies.length === 0 && final.kind !== 'undecided') violation(`${p.invoice}: transfer ${transfer.id} exists but the client never saw it`);
      if (LIVE.has(transfer.status)) live.push(transfer);
    }
    if (live.length > 1) {
      duplicates += live.length - 1;
      violation(`${p.invoice}: ${live.length} live transfers (${live.map((t) => t.id).join(', ')})`);
    }

    // Each outcome as the table says.
    const expectRejected = (payment: Payment) => {
      if (!payment.expectReject) return;
      if (!attemptLeftOpen(payment)) violation(`${payment.invoice}: ${final.kind} paying ${payment.amount}, which the sandbox must reject`);
      outcomes.scheduledOverReject++;
    };
    switch (final.kind) {
      case 'resolved':
        if (!LIVE.has(final.transfer!.status)) violation(`${p.invoice}: resolved with status ${final.transfer!.status}`);
        if (live.length !== 1 || live[0]!.id !== final.transfer!.id) violation(`${p.invoice}: resolved, but the store's live transfer is not the one answered`);
        if (p.keys.length > 1) outcomes.resolvedAfterClosed++;
        expectRejected(p);
        break;
      case 'closed':
        if (live.length !== 0 || p.keys.length !== maxAttempts) violation(`${p.invoice}: closed, but ${live.length} live transfers / ${p.keys.length} attempts`);
        for (const key of p.keys) {
          const status = records.get(key)!.transfer?.status;
          if (!status || !CLOSED.has(status)) violation(`${p.invoice}: closed, but attempt ${key} is ${status ?? 'without a transfer'}`);
        }
        expectRejected(p);
        break;
      case 'rejected':
        if (!p.expectReject || final.code !== 'pix_payout_rejected') violation(`${p.invoice}: rejected (${final.code}) unexpectedly`);
        // Nothing paid. An earlier attempt's transfer is one a fault left open and its retry closed as scheduled.
        for (const key of p.keys) {
          const status = records.get(key)!.transfer?.status;
          if (status && !(CLOSED.has(status) && attemptLeftOpen(p))) violation(`${p.invoice}: rejected, yet attempt ${key} has a ${status} transfer`);
        }
        break;
      case 'undecided':
        violation(`${p.invoice}: no definite outcome: ${final.why}; its calls: ${p.steps.map((st) => `${st.kind}×${st.sends}`).join(', ')}; its answers: ${p.answers.join(', ')}`);
        break;
    }
  }
  const orphans = total - linked;
  if (orphans !== 0) violation(`the store holds ${total} transfers for the organization, the payments account for ${linked}`);

  return {
    payments: n,
    concurrency,
    seed,
    instances: target.urls.length,
    store: store.kind,
    outcomes,
    transfers: { total, byStatus },
    attempts,
    faults: { scheduled: scheduledUses, batches, injected, share: attempts ? injected / attempts : 0, byKind },
    retries: { client: clientRetries, later: laterRetries, afterUnresolved, afterReview },
    newKeys,
    reviews,
    waitChecks,
    responses,
    virtualWait: { totalMs: totalVirtual, maxPerPaymentMs: maxVirtual },
    duplicates,
    orphans,
    lost,
    violationCount,
    violations,
    durationMs: performance.now() - started,
  };
}

const int = (v: number) => v.toLocaleString('en-US');
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const hours = (ms: number) => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : `${(ms / 60_000).toFixed(1)} min`);

/** The summary table, one row per line (printed by the test and by `node tools/launch.mjs chaos`). */
export function formatSummary(r: ChaosReport): string {
  const rows: [string, string][] = [
    ['payments', `${int(r.payments)} (concurrency ${r.concurrency}, seed ${r.seed}, ${r.instances} instance${r.instances > 1 ? 's' : ''}, ${r.store})`],
    ['  resolved: one live transfer', `${int(r.outcomes.resolved)} (${int(r.outcomes.resolvedAfterClosed)} after a closed attempt, with a new key)`],
    ['  closed: every attempt failed/cancelled', int(r.outcomes.closed)],
    ['  rejected: 422 pix_payout_rejected (test amount)', `${int(r.outcomes.rejected)} (and ${int(r.outcomes.scheduledOverReject)} of that amount whose attempt a fault left open: resolved as scheduled)`],
    ['  no definite outcome', int(r.outcomes.undecided)],
    ['transfers in the store', `${int(r.transfers.total)} (${Object.entries(r.transfers.byStatus).sort().map(([s, v]) => `${s} ${int(v)}`).join(', ')})`],
    ['transfer attempts (HTTP requests)', int(r.attempts)],
    ['faults injected', `${int(r.faults.injected)} = ${pct(r.faults.share)} of attempts (${int(r.faults.scheduled)} scheduled in ${int(r.faults.batches)} batches)`],
    ...Object.entries(r.faults.byKind).map(([label, v]): [string, string] => [`  ${label}`, int(v)]),
    ['retries, same key', `${int(r.retries.client + r.retries.later)} (by the client: ${int(r.retries.client)}; later, by the harness: ${int(r.retries.later)}, of which ${int(r.retries.afterUnresolved)} after an unresolved call, ${int(r.retries.afterReview)} after a pending review)`],
    ['new keys after a closed attempt', int(r.newKeys)],
    ['pending reviews resolved by the admin', `${int(r.reviews.resolvedByAdmin)} (held for support: ${int(r.reviews.heldForSupport)}; already resolved: ${int(r.reviews.alreadyResolved)})`],
    ['client waits checked', `${int(r.waitChecks.afterUnavailable)} after a temporary 503 (each ≥ ${r.waitChecks.minAfterUnavailableMs / 1000} s), ${int(r.waitChecks.afterRetryAfter)} after Retry-After (each equal to it)`],
    ['virtual time waited', `${hours(r.virtualWait.totalMs)} in all, at most ${hours(r.virtualWait.maxPerPaymentMs)} for one payment`],
    ['duplicates (2+ live transfers per invoice)', int(r.duplicates)],
    ['transfers without a payment', int(r.orphans)],
    ['lost (201 seen, not in the store as answered)', int(r.lost)],
    ['violations', int(r.violationCount)],
    ['duration', `${(r.durationMs / 1000).toFixed(1)} s`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
  if (r.violations.length) {
    lines.push('', 'answers the client received:', ...Object.entries(r.responses).sort().map(([label, v]) => `  ${label}: ${int(v)}`));
    lines.push('', 'first violations:', ...r.violations.map((v) => `  - ${v}`));
  }
  return lines.join('\n');
}

/** The label of a request whose instance was killed while it was in flight (or that found it down). */
const CRASHED = 'network error (sandbox killed)';

/** The admin API, retried (bounded) after a network error while the instance is killed and restarted. */
function surviveCrashes(admin: ReturnType<typeof adminApi>, origin: string, crashes: Crashes | undefined): ReturnType<typeof adminApi> {
  if (!crashes) return admin;
  const retried =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      for (let attempt = 1; ; attempt++) {
        const before = crashes.count(origin);
        const downBefore = crashes.down(origin);
        try {
          return await call(...args);
        } catch (err) {
          const crashed = downBefore || crashes.down(origin) || crashes.count(origin) !== before;
          const databaseDown = crashes.databaseRestarted() && / → 5\d\d /.test(String(err));
          if (attempt >= 5 || !(crashed || databaseDown)) throw err;
          await crashes.whenUp(origin);
          if (databaseDown) await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
        }
      }
    };
  // An answer of 503 while the database restarted (its transaction met a closed connection) is thrown to be
  // retried like a cut connection; any other answer is the caller's.
  const raw = async (...args: Parameters<typeof admin.raw>) => {
    const reply = await admin.raw(...args);
    if (reply.status === 503 && crashes.databaseRestarted()) throw new Error(`admin ${args[0]} ${args[1]} → ${reply.status} ${reply.text}`);
    return reply;
  };
  return { raw: retried(raw), req: retried(admin.req) };
}
