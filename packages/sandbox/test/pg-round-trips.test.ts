// How often a request waits for PostgreSQL (issue 25, deliver 1): each round trip costs the sandbox and the
// database a socket write, a read and a wake-up, so the count is part of the store's design and held here.
// A lone request (each statement shared per event-loop turn is its own round trip here).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordRoundTrips, type Recording } from '../../../tools/lib/pg-round-trips.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../../tools/lib/postgres.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { adminOf, call } from './support.ts';

let pg: ThrowawayPostgres;
let sandbox: RunningSandbox;
let key: string;
let recipientId: string;

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  sandbox = await startSandbox({ databaseUrl: pg.url, adminToken: 'adm_round_trips_token_for_tests' });
  ({ key } = await adminOf(sandbox).org());
  const recipient = await call(sandbox.url, 'POST', '/v1/banking/recipients', { key, idem: 'rcp-trips', body: { rail: 'usd_ach', nickname: 'Trips' } });
  recipientId = String(recipient.body.id);
});
afterAll(async () => {
  await sandbox?.close();
  await pg?.stop();
});

const transfer = (idem: string) => call(sandbox.url, 'POST', '/v1/banking/transfers', { key, idem, body: { recipientId, amount: '1.00' } });
const tripOf = (recording: Recording, table: string) => recording.sent.find((s) => new RegExp(`^SELECT \\* FROM ${table}\\b`).test(s.text))?.roundTrip;

it('a POST transfer with a new key waits for PostgreSQL 4 times: caller, rate limit, the key with the recipient, the writes with COMMIT', async () => {
  const recording = await recordRoundTrips(pg.url, () => transfer('trips-new'));
  expect(recording.result.status).toBe(201);
  expect(recording.roundTrips).toBe(4);
  // The recipient is read ahead, beside the key (OperationHandler.readAhead), not after the key's answer.
  expect(tripOf(recording, 'recipients')).toBe(tripOf(recording, 'idempotency'));
  const last = recording.sent.filter((s) => s.roundTrip === 4).map((s) => s.text.trim().split(/\s+/).slice(0, 3).join(' '));
  expect(last).toEqual(['INSERT INTO transfers', 'INSERT INTO balances', 'INSERT INTO idempotency', 'INSERT INTO journal', 'COMMIT']);
  expect(recording.writes).toBe(4); // one socket write per round trip (the connection is corked)
});

it('its replay waits at most 4 times, and writes nothing but its journal entry', async () => {
  await transfer('trips-replay');
  const recording = await recordRoundTrips(pg.url, () => transfer('trips-replay'));
  expect(recording.result.status).toBe(201);
  // 4, or 3 when the recipient read ahead (unused by a replay) is still being answered as the journal row and
  // COMMIT go out: the recorder then counts them in its round trip (seen under load in CI).
  expect(recording.roundTrips).toBeGreaterThanOrEqual(3);
  expect(recording.roundTrips).toBeLessThanOrEqual(4);
  const writes = recording.sent.filter((s) => /^\s*(INSERT|UPDATE|DELETE)/.test(s.text) && !/rate_counters/.test(s.text));
  expect(writes.map((s) => s.text.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual(['INSERT INTO journal']);
});
