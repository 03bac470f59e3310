// The embedded store's answers to findCaller (a key, its organization, whether a fault awaits the
// operation), kept between requests: the lookup is a join every request makes, and its rows change rarely.
// The cache knows nothing of SQL; sqlite.ts empties it whenever those rows may have changed (see
// `watchCallerRows` there), so it never answers what the database would not.
import type { Caller } from './types.ts';

/** Callers kept at most; a full cache starts over (its entries are cheap to read again). */
const CAPACITY = 4096;

export class CallerCache {
  /** operationId → key hash → caller */
  private readonly byOperation = new Map<string, Map<string, Caller>>();
  private size = 0;

  get(hash: string, operationId: string): Caller | undefined {
    return this.byOperation.get(operationId)?.get(hash);
  }

  /** Keeps a caller, frozen: every request that gets it shares the one object. */
  set(hash: string, operationId: string, caller: Caller): void {
    if (this.size >= CAPACITY) this.clear();
    let byHash = this.byOperation.get(operationId);
    if (!byHash) this.byOperation.set(operationId, (byHash = new Map()));
    Object.freeze(caller.key);
    Object.freeze(caller.organization.funding);
    Object.freeze(caller.organization);
    if (!byHash.has(hash)) this.size++;
    byHash.set(hash, Object.freeze(caller));
  }

  clear(): void {
    this.byOperation.clear();
    this.size = 0;
  }
}
