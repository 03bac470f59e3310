// Idempotency keys: the caller's own, one derived from the caller's stable id for the operation, or a
// random one for a single call. A derived key is deterministic, so a restarted process that pays the same
// invoice sends the same key and the service returns the original result instead of paying twice.

/** This library's UUIDv5 namespace (a fixed random UUID). Pass your own to keep keys apart per system. */
export const KEY_NAMESPACE = '3a8f7c52-9d1e-4b6a-8f2c-5e7d9a1b3c40';

export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/**
 * UUIDv5 (RFC 9562, SHA-1 via Web Crypto, so it runs on Node, Deno, Bun and edge runtimes) in `namespace`
 * of the name `<length of operation>:<operation>:<stableId>`, the length in UTF-8 bytes, so that no two
 * pairs share a name (`createTransfer`, `a:b` and `createTransfer:a`, `b` did before 1.0). Use the id of
 * the thing being paid (`invoice-42`), never a hash of the payload.
 */
export async function deriveIdempotencyKey(operation: string, stableId: string, namespace = KEY_NAMESPACE): Promise<string> {
  const ns = namespace.replace(/-/g, '');
  if (!operation || !stableId || !/^[0-9a-f]{32}$/i.test(ns)) throw new TypeError('deriveIdempotencyKey: operation, stableId and a UUID namespace required');
  const utf8 = new TextEncoder();
  const name = `${utf8.encode(operation).length}:${operation}:${stableId}`;
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-1', new Uint8Array([...ns.match(/../g)!.map((byte) => parseInt(byte, 16)), ...utf8.encode(name)])));
  hash[6] = (hash[6]! & 0x0f) | 0x50; // version 5
  hash[8] = (hash[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = [...hash].map((b) => (b | 256).toString(16).slice(1)).join(''); // 40 digits: the UUID takes the first 32
  return hex.replace(/(.{8})(.{4})(.{4})(.{4})(.{12}).*/, '$1-$2-$3-$4-$5');
}
