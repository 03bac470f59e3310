// Hot reads of the embedded store, kept in memory: every request looks up its API key and organization,
// checks for scheduled faults, every transfer reads its recipient, and GET balance sums the organization's
// transfers. The SQLite store owns the invalidation rules (see sqlite.ts), which keep this exact rather
// than eventually right:
// - a write through the store drops the entries it affects (a transfer updates the sums that count it
//   instead), and the store marks the running logical transaction; if that transaction rolls back,
//   everything is dropped (its own reads may have cached its writes);
// - a batch whose COMMIT fails drops everything;
// - another connection's commit (another sandbox process on the same file) changes PRAGMA data_version,
//   checked when each batch opens (and again when it takes the write lock): then everything is dropped.
// Cached objects are frozen: a caller that tried to change one would change every later request's view.
import { fromCents, storedCents } from '../money.ts';
import type { ApiKeyRecord, Organization, RecipientRecord } from './types.ts';

/** Bounds the key and recipient maps (unknown ones are never cached): past it they start over. */
const MAX_KEYS = 50_000;

export class ReadCache {
  readonly keysByHash = new Map<string, ApiKeyRecord>();
  readonly organizations = new Map<string, Organization>();
  /** `${organizationId} ${recipientId}` → recipient. */
  readonly recipients = new Map<string, RecipientRecord>();
  /** organization → statuses joined by ',' → sums per currency. */
  readonly sums = new Map<string, Map<string, Readonly<Record<string, string>>>>();
  /** The statuses of each key of `sums`, split once. */
  private readonly statusLists = new Map<string, readonly string[]>();
  /** Whether any fault has uses left; undefined when not known. */
  faultsPending: boolean | undefined;

  key(hash: string, record: ApiKeyRecord): ApiKeyRecord {
    if (this.keysByHash.size >= MAX_KEYS) this.keysByHash.clear();
    const frozen = Object.freeze(record);
    this.keysByHash.set(hash, frozen);
    return frozen;
  }

  organization(org: Organization): Organization {
    const frozen = Object.freeze({ ...org, funding: Object.freeze({ ...org.funding }) });
    this.organizations.set(org.id, frozen);
    return frozen;
  }

  recipient(recipient: RecipientRecord): RecipientRecord {
    if (this.recipients.size >= MAX_KEYS) this.recipients.clear();
    const frozen = Object.freeze(recipient);
    this.recipients.set(`${recipient.organizationId} ${recipient.id}`, frozen);
    return frozen;
  }

  sum(organizationId: string, statuses: string, sums: Record<string, string>): Readonly<Record<string, string>> {
    let perOrg = this.sums.get(organizationId);
    if (!perOrg) this.sums.set(organizationId, (perOrg = new Map()));
    const frozen = Object.freeze(sums);
    perOrg.set(statuses, frozen);
    if (!this.statusLists.has(statuses)) this.statusLists.set(statuses, statuses.split(','));
    return frozen;
  }

  /**
   * A transfer was added: the organization's cached sums that count its status take its amount (new frozen
   * objects: a reader holding the old one keeps it), so a balance read after each transfer is not a new
   * SUM over all of them.
   */
  addToSums(organizationId: string, status: string, currency: string, cents: bigint): void {
    const perOrg = this.sums.get(organizationId);
    if (!perOrg) return;
    for (const [statuses, sums] of perOrg) {
      if (!this.statusLists.get(statuses)?.includes(status)) continue;
      const before = sums[currency];
      perOrg.set(statuses, Object.freeze({ ...sums, [currency]: fromCents((before === undefined ? 0n : storedCents(before)) + cents) }));
    }
  }

  clear(): void {
    this.keysByHash.clear();
    this.organizations.clear();
    this.recipients.clear();
    this.sums.clear();
    this.faultsPending = undefined;
  }
}
