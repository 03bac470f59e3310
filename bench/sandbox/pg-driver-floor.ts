// The floor under the shared mode: what node-postgres alone gets out of this machine's PostgreSQL with a
// POST's transaction, the statements the sandbox sends on the request's own connection (pg-ceiling.ts
// records them; those before, the caller and its rate limits, are one statement for all the requests of an
// event-loop turn under load). They are sent from this process through the driver the store uses, as the
// store uses it: a pool with `pipeline: true` and the store's session settings, one checked-out connection per client, a round trip's
// statements in one socket write, named statements, the balance slot the connection's own. No HTTP, no
// load generator, no sandbox code. A sandbox on node-postgres does all of this and more per request on the
// same two cores, so its share of pgbench's ceiling stays under this one's; the CPU per transaction, of this
// process and of PostgreSQL, shows what the driver and the database each cost.
//
// Measured once against another driver (postgres.js 3.4.9, reserved connections, pipelined, prepared): it
// spent 306–332 µs of Node.js CPU per POST transaction where node-postgres spent 226–237, so the floor is
// node-postgres's.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { BALANCE_SLOTS, SESSION_SETTINGS } from '../../packages/sandbox/src/store/postgres.ts';
import { corkUntilNextTick } from '../../packages/sandbox/src/store/postgres-transaction.ts';
import type { Sent } from '../../tools/lib/pg-round-trips.ts';
import { machineCpuMs } from '../lib/proc.ts';

/** A connection of node-postgres's pool, as the store checks it out. */
type PoolClient = Parameters<typeof corkUntilNextTick>[0];
// The `pg` the sandbox package depends on (the root workspace has none of its own, nor its types).
const { Pool } = createRequire(new URL('../../packages/sandbox/package.json', import.meta.url))('pg') as {
  Pool: new (config: { connectionString: string; max: number; pipeline: boolean; options: string }) => { connect(): Promise<PoolClient>; end(): Promise<void> };
};

export interface DriverFloor {
  tps: number;
  /** CPU time of this process (the driver and its event loop) per transaction, µs. */
  cpuUsPerRequest: number;
  /** CPU time the rest of the machine (PostgreSQL, on a quiet machine) used per transaction, µs. */
  othersUsPerRequest: number;
}

/** `value` with each of `ids` (a recording's own key, transfer id …) made new for transaction `n`, inside arrays too. */
function fresh(value: unknown, ids: readonly string[], n: string): unknown {
  if (Array.isArray(value)) return value.map((v) => fresh(v, ids, n));
  if (typeof value !== 'string') return value;
  return ids.reduce((text, id, i) => text.split(id).join(`r${i}_${n}`), value);
}

/**
 * Runs one recorded request's statements in a loop on `clients` connections for `seconds`: each client sends
 * a round trip's statements together, waits for their answers, then sends the next round trip's.
 * `slotParam(statement)`: which parameter of a statement is the balance slot (-1: none).
 */
export async function driverFloor(url: string, sent: readonly Sent[], ids: readonly string[], slotParam: (text: string) => number, options: { seconds: number; clients: number }): Promise<DriverFloor> {
  const names = new Map<string, string>();
  const nameOf = (text: string) => names.get(text) ?? (names.set(text, `floor_${names.size + 1}`), names.get(text)!);
  const trips = [...new Set(sent.map((s) => s.roundTrip))].map((trip) => sent.filter((s) => s.roundTrip === trip));
  const pool = new Pool({ connectionString: url, max: options.clients, pipeline: true, options: SESSION_SETTINGS });
  const clients: PoolClient[] = [];
  try {
    for (let c = 0; c < options.clients; c++) clients.push(await pool.connect());
    const run = randomUUID().slice(0, 8); // ids new to the database across runs too
    let next = 0;
    let done = 0;
    const send = (client: PoolClient, slot: number, { text, values }: Sent, n: string) => {
      if (values.length === 0) return client.query(text); // BEGIN, COMMIT (when sent): simple queries, as the store sends them
      const slotAt = slotParam(text);
      return client.query({ name: nameOf(text), text, values: values.map((v, i) => (i === slotAt ? slot : fresh(v, ids, n))) });
    };
    const loop = async (client: PoolClient, slot: number, until: number) => {
      while (performance.now() < until) {
        const n = `${run}_${next++}`;
        for (const trip of trips) {
          corkUntilNextTick(client);
          await Promise.all(trip.map((statement) => send(client, slot, statement, n)));
        }
        done++;
      }
    };
    // A warm-up (statements prepared on every connection), then the measured window.
    await Promise.all(clients.map((client, c) => loop(client, c % BALANCE_SLOTS, performance.now() + 500)));
    done = 0;
    const cpu = process.cpuUsage();
    const machine = machineCpuMs();
    const started = performance.now();
    await Promise.all(clients.map((client, c) => loop(client, c % BALANCE_SLOTS, started + options.seconds * 1000)));
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const busyMs = (machineCpuMs()?.busy ?? Number.NaN) - (machine?.busy ?? Number.NaN);
    const ownUs = used.user + used.system;
    return { tps: done / elapsed, cpuUsPerRequest: ownUs / done, othersUsPerRequest: (busyMs * 1000 - ownUs) / done };
  } finally {
    for (const client of clients) client.release();
    await pool.end();
  }
}
