// Ids of the resources the sandbox creates: `<prefix>_` + 32 hex digits, the first 12 the creation time in
// milliseconds, the rest random. Opaque to clients (the spec promises no format), but time-ordered: new
// rows land at the end of the store's id indexes instead of on a random page, which keeps each commit's
// writes small (random ids made every insert dirty a page of its own).
import { randomUUID } from 'node:crypto';

export function newId(prefix: string, now: number = Date.now()): string {
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: its first 8 and last 12 digits are random
  return `${prefix}_${hexTime(now)}${uuid.slice(0, 8)}${uuid.slice(24)}`;
}

/**
 * `format` of a time in ms, remembered for the last time asked: requests under load share milliseconds,
 * and formatting a time is not free (toISOString, toString(16)).
 */
export function perMillisecond(format: (ms: number) => string): (ms: number) => string {
  let lastMs = Number.NaN;
  let last = '';
  return (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      last = format(ms);
    }
    return last;
  };
}

/** The 12 hex digits of a time in ms. */
const hexTime = perMillisecond((ms) => ms.toString(16).padStart(12, '0'));
