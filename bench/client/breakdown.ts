// Where our layer's time goes, on the stub transport: bare openapi-fetch POSTs with one piece of our
// client's per-call work added at a time, measured in the same alternating rounds as the main table.
// Each piece mirrors packages/client/src (client.ts `call`, retry-fetch.ts first attempt, deadlines.ts); the modules
// are imported from dist/, so the checks are the shipped code, not copies.
import type { paths } from '@payments/types';
import createClient from '../../packages/client/node_modules/openapi-fetch/dist/index.mjs';
import { createPaymentsClient } from '@payments/client';
import { operationIds } from '../../packages/client/dist/generated/spec-rules.js';
import { deadlines } from '../../packages/client/dist/deadlines.js';
import { policyFor } from '../../packages/client/dist/policy.js';
import { checkBody, checkIdempotencyKey } from '../../packages/client/dist/validate.js';
import type { Contender } from '../lib/rounds.ts';
import type { Transport } from './contenders.ts';
import { API_KEY, TRANSFERS_PATH, nextKey, transferBody } from './fixtures.ts';

const TIMEOUT_MS = 30_000;

export function breakdownContenders(transport: Transport, baseUrl: string): Contender[] {
  const api = createClient<paths>({ baseUrl, headers: { 'x-api-key': API_KEY }, fetch: transport });
  const ours = createPaymentsClient({ apiKey: API_KEY, baseUrl, fetch: transport });
  const shared = deadlines(TIMEOUT_MS, undefined, Date.now);
  const post = (fetch?: (request: Request) => Promise<Response>, signal?: AbortSignal) =>
    api.POST(TRANSFERS_PATH, {
      params: { header: { 'Idempotency-Key': nextKey() } },
      body: transferBody,
      ...(fetch ? { fetch } : {}),
      ...(signal ? { signal } : {}),
    });

  /** client.ts `call` before it sends: key, operation, header copy, body check, retry policy. */
  const preSend = () => {
    const key = nextKey();
    const operationId = operationIds['POST /v1/banking/transfers'];
    const context = { operationId, idempotencyKey: key, attempts: 0 };
    const header: Record<string, string> = {};
    checkIdempotencyKey(operationId, key, context);
    header['Idempotency-Key'] = key;
    const body = checkBody(operationId, transferBody, context);
    policyFor(operationId, undefined);
    return { header, body };
  };

  const rows: [string, () => Promise<unknown>][] = [
    ['openapi-fetch (reference)', () => post()],
    ['+ pre-send checks only (validate, policy)', () => (preSend(), post())],
    ['+ per-call fetch option (pass-through)', () => post((r) => transport(r))],
    ['+ AbortSignal.timeout per call (unused)', () => post((r) => (AbortSignal.timeout(TIMEOUT_MS), transport(r)))],
    ['+ AbortSignal.any([caller, timeout]) (unused)', () => post((r) => (AbortSignal.any([r.signal, AbortSignal.timeout(TIMEOUT_MS)]), transport(r)))],
    ['+ request.clone() sent instead', () => post((r) => transport(r.clone()))],
    ['+ new Request(request, {signal: timeout})', () => post((r) => transport(new Request(r, { signal: AbortSignal.timeout(TIMEOUT_MS) })))],
    [
      '= retry loop 1st attempt: new Request(clone, {signal: any})',
      () => post((r) => transport(new Request(r.clone(), { signal: AbortSignal.any([r.signal, AbortSignal.timeout(TIMEOUT_MS)]) }))),
    ],
    // The pieces of our per-attempt guard (retry-fetch.ts attemptSignal), one at a time.
    ['+ per-attempt timer only (setTimeout, clearTimeout)', () => {
      const timer = setTimeout(() => {}, TIMEOUT_MS);
      return post().finally(() => clearTimeout(timer));
    }],
    // What our client does instead (since issue 25): a deadline on the client's one timer, armed once.
    ['+ per-attempt deadline on one shared timer (deadlines.ts)', () => {
      const expire = () => {};
      shared.watch(expire);
      return post().finally(() => shared.release(expire));
    }],
    ['+ per-attempt AbortController only', () => (new AbortController(), post())],
    ['+ a Promise around the call only (the body-read guard)', () => new Promise((resolve, reject) => void post().then(resolve, reject))],
    ['our client', () => ours.POST(TRANSFERS_PATH, { body: transferBody, idempotencyKey: nextKey() })],
    // Not our code: what any per-attempt timeout costs at the least (undici makes the Request follow the signal).
    ['+ init.signal = AbortSignal.timeout (a timeout, no copy)', () => post(undefined, AbortSignal.timeout(TIMEOUT_MS))],
  ];
  return rows.map(([name, call]) => ({
    name,
    call: async () => {
      const result = (await call()) as { data?: unknown };
      if (!result.data) throw new Error(`${name}: no data`);
    },
  }));
}
