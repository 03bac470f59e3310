// API keys as the provider describes them: `svc_live_<random>`, shown once, stored only as a SHA-256 hash
// and a short display prefix. A presented key is never compared with anything secret: its SHA-256 is the
// lookup key (an index in the store, a Map in the cache). What the lookup's timing could reveal is how
// much of the hash of the attacker's OWN guess matches a stored hash, which says nothing usable about a
// stored key (preimage resistance), so no constant-time comparison is needed or pretended.
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'svc_live_';
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9]{16,128}$`);
/** Anything starting like a key, in a longer text. */
const KEY_LIKE = new RegExp(`${KEY_PREFIX}[A-Za-z0-9]*`, 'g');

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url').replace(/[-_]/g, '').slice(0, 32).padEnd(32, '0')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, KEY_PREFIX.length + 4) };
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex'); // one call: no Hash object per request
}

/**
 * The text with anything shaped like an API key replaced, for the request log: a key pasted where an id was
 * expected (`admin key revoke svc_live_…`, a path) must not land there as a live secret (QA).
 */
export function redactApiKeys(text: string): string {
  return text.includes(KEY_PREFIX) ? text.replace(KEY_LIKE, '[redacted-api-key]') : text;
}

/** Whether a presented key looks like a key at all (a malformed one is rejected before any lookup). */
export function wellFormed(key: string | undefined): key is string {
  return typeof key === 'string' && KEY_SHAPE.test(key);
}
