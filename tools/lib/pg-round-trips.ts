// Which statements the sandbox's PostgreSQL store sends for one request, in how many round trips and socket
// writes: what a request costs both processes most of. Used by bench-pg-ceiling (to replay them through
// pgbench) and by the store's tests (to hold the round trips a request takes).
//
// It wraps, in this process, the `pg` the sandbox package depends on (the Client its pool uses) and
// net.Socket's writes: a sandbox started in this process (startSandbox) is recorded, one in another is not.
import { createRequire } from 'node:module';
import { Socket } from 'node:net';

/**
 * A statement sent while recording, with its values, and the round trip it went in: a statement sent while
 * none of the recorded ones is awaiting its answer starts a new one (the request waited for the database
 * before it); one sent while another is in flight (pipelined) joins it.
 */
export interface Sent {
  text: string;
  values: unknown[];
  roundTrip: number;
}

export interface Recording {
  sent: Sent[];
  /** Round trips: the last statement's. */
  roundTrips: number;
  /** Socket writes to the database (each a write(2) or writev(2)): fewer than the statements when a round trip's leave in one. */
  writes: number;
}

let recording: Sent[] | undefined;
let inFlight = 0;
let roundTrips = 0;
let socketWrites = 0;
let databasePort = 0;

const pg = createRequire(new URL('../../packages/sandbox/package.json', import.meta.url))('pg') as { Client: { prototype: { query: (...a: unknown[]) => unknown } } };
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...a: unknown[]) {
  const [config, values] = a as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
  if (!recording) return query.apply(this, a);
  if (inFlight++ === 0) roundTrips++;
  recording.push({ ...(typeof config === 'string' ? { text: config, values: values ?? [] } : { text: config.text, values: config.values ?? [] }), roundTrip: roundTrips });
  const done = () => void inFlight--;
  const callback = a.findIndex((arg) => typeof arg === 'function');
  if (callback >= 0) {
    const answer = a[callback] as (...r: unknown[]) => unknown;
    a[callback] = (...r: unknown[]) => (done(), answer(...r));
    return query.apply(this, a);
  }
  const result = query.apply(this, a) as Promise<unknown>;
  result.then(done, done);
  return result;
};

const socket = Socket.prototype as unknown as { _writeGeneric: (this: Socket, ...a: unknown[]) => unknown };
const writeGeneric = socket._writeGeneric;
socket._writeGeneric = function (this: Socket, ...a: unknown[]) {
  if (recording && this.remotePort === databasePort) socketWrites++;
  return writeGeneric.apply(this, a);
};

/** Records what the store sends to the database at `url` while `request` runs (one at a time). */
export async function recordRoundTrips<T>(url: string, request: () => Promise<T>): Promise<Recording & { result: T }> {
  if (recording) throw new Error('recordRoundTrips: one recording at a time');
  databasePort = Number(new URL(url).port);
  recording = [];
  roundTrips = 0;
  socketWrites = 0;
  try {
    const result = await request();
    return { sent: recording, roundTrips: recording.at(-1)?.roundTrip ?? 0, writes: socketWrites, result };
  } finally {
    recording = undefined;
  }
}
