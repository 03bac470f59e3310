// API keys as the provider describes them: `svc_live_<random>`, shown once, stored only as a SHA-256 hash
// and a short display prefix, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'svc_live_';
const KEY_SHAPE = /^svc_live_[A-Za-z0-9]{16,128}$/;

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url').replace(/[-_]/g, '').slice(0, 32).padEnd(32, '0')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, KEY_PREFIX.length + 4) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Whether a presented key looks like a key at all (a malformed one is rejected before any lookup). */
export function wellFormed(key: string | undefined): key is string {
  return typeof key === 'string' && KEY_SHAPE.test(key);
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
