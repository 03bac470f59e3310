// The embedded store's index of idempotency keys, in the process's memory: (organization, operation, key) →
// the rowid of the key's row in the `idempotency` table. Why not a SQL index: clients send random keys
// (UUIDs), and each new key then lands on a random page of a B-tree index. That page is one more WAL frame
// at the COMMIT, one more page for the checkpoint to copy back, and a sub-journal copy for the savepoint:
// measured, random keys cost a third more per transfer than sequential ones, all of it in that index.
// The table itself is append-only (rows are never deleted), so the store keeps this index exact: it is
// built from the table on start, takes each row the store inserts (and gives it back when its scope rolls
// back), and reads the rows another process committed, which are the rows above the highest rowid
// it has seen, once the write lock is held (SQLite hands out rowids as max + 1, and no row is deleted).
// Uniqueness is the write lock's: a key is claimed by a lookup here under the batch's write lock, and
// inserted in the same transaction, so no other connection can claim it in between.
//
// Memory: a 32-bit hash of the three strings → rowid, about 30 bytes a key in a V8 Map (measured over
// 500,000 keys), rather than the strings themselves (over 100). Hashes collide now and then (about 30 pairs in a million keys): a hash
// holds a list of rowids then, and the store compares each candidate row's key with the one asked for.
// The hash is seeded per process, so keys cannot be chosen ahead to collide.
import { randomInt } from 'node:crypto';

export class KeyIndex {
  /** hash → rowid, or the rowids of every key with that hash (a collision), ascending. */
  private readonly rowids = new Map<number, number | number[]>();
  private readonly seed = randomInt(2 ** 32);
  /** The highest rowid indexed: rows above it were committed by another connection and are not yet here. */
  private highest = 0;
  /** Whatever is in the table, the index must be built again from it before it is used (see `invalidate`). */
  private stale = true;

  /** FNV-1a over the three strings (with separators), seeded, then mixed (murmur3's finalizer). */
  hash(organizationId: string, operationId: string, key: string): number {
    let h = this.seed;
    h = fnv(h, organizationId);
    h = Math.imul(h ^ 0xffff, 0x01000193);
    h = fnv(h, operationId);
    h = Math.imul(h ^ 0xffff, 0x01000193);
    h = fnv(h, key);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) | 0;
  }

  /** The rowids whose key has this hash: the key asked for is one of their rows, or none. */
  candidates(hash: number): readonly number[] {
    const found = this.rowids.get(hash);
    return found === undefined ? NONE : typeof found === 'number' ? [found] : found;
  }

  /**
   * Indexes a row just inserted. Returns what `remove` needs to take it back exactly (the highest rowid
   * before it), for when its scope rolls back.
   */
  add(hash: number, rowid: number): number {
    const before = this.highest;
    const found = this.rowids.get(hash);
    if (found === undefined) this.rowids.set(hash, rowid);
    else if (typeof found === 'number') {
      if (found !== rowid) this.rowids.set(hash, [found, rowid]);
    } else if (!found.includes(rowid)) found.push(rowid);
    if (rowid > this.highest) this.highest = rowid;
    return before;
  }

  /** Takes back an `add` (its row was rolled back); `highestBefore` is what that `add` returned. */
  remove(hash: number, rowid: number, highestBefore: number): void {
    const found = this.rowids.get(hash);
    if (found === rowid) this.rowids.delete(hash);
    else if (Array.isArray(found)) {
      const rest = found.filter((r) => r !== rowid);
      this.rowids.set(hash, rest.length === 1 ? rest[0]! : rest);
    }
    this.highest = highestBefore;
  }

  /**
   * Brings the index up to the table: `rowsAbove(n)` yields every row with a rowid above n, ascending.
   * Called when another connection may have committed (and after `invalidate`, from scratch).
   */
  catchUp(rowsAbove: (rowid: number) => Iterable<{ rowid: number; organizationId: string; operationId: string; key: string }>): void {
    if (this.stale) {
      this.rowids.clear();
      this.highest = 0;
      this.stale = false;
    }
    for (const row of rowsAbove(this.highest)) this.add(this.hash(row.organizationId, row.operationId, row.key), row.rowid);
  }

  /** The table lost rows this index holds (a rolled-back batch): build it again at the next `catchUp`. */
  invalidate(): void {
    this.stale = true;
  }

  /** Keys indexed (for tests and the memory bound). */
  get size(): number {
    let n = 0;
    for (const found of this.rowids.values()) n += typeof found === 'number' ? 1 : found.length;
    return n;
  }
}

const NONE: readonly number[] = Object.freeze([]);

function fnv(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}
