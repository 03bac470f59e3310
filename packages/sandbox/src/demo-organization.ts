// The demo organization of `npm start` and `payments-sandbox` (every product on, funded) and its API key,
// also used by the docs test.
import { createHash, randomUUID } from 'node:crypto';
import type { generateApiKey } from './keys.ts';
import type { RunningSandbox } from './sandbox.ts';
import type { Organization } from './records.ts';
import { ConstraintViolation } from './store/types.ts';

export const DEMO_NAME = 'Demo organization (npm start)';

/**
 * The demo organization's id: the same on every instance, so that of several starting together on one
 * database the unique id lets one create it, and the others find it (a lookup by name, then an insert, made
 * two). Shaped as any organization id.
 */
const DEMO_ID = `org_${createHash('sha256').update(DEMO_NAME).digest('hex').slice(0, 32)}`;

/** The demo organization (created once, every product on), with a new key: keys are shown only once. */
export async function demoOrganization(sandbox: Pick<RunningSandbox, 'store'>, { key, hash, prefix }: ReturnType<typeof generateApiKey>): Promise<string> {
  const now = new Date().toISOString();
  // A database of an earlier version may hold it under another id: found by name.
  const existing = await sandbox.store.transaction(async (tx) => (await tx.listOrganizations()).find((o) => o.name === DEMO_NAME), { readOnly: true });
  const organizationId = existing?.id ?? (await createOnce(sandbox, now));
  await sandbox.store.transaction((tx) => tx.insertApiKey({ id: `key_${randomUUID().replace(/-/g, '')}`, organizationId, hash, prefix, createdAt: now, revokedAt: null }));
  return key;
}

/** Inserts the demo organization under DEMO_ID; another instance's insert of it first is as good. */
async function createOnce(sandbox: Pick<RunningSandbox, 'store'>, now: string): Promise<string> {
  const org: Organization = {
    id: DEMO_ID,
    name: DEMO_NAME,
    apiAccess: true,
    banking: true,
    cards: true,
    checkout: true,
    walletTransfers: true,
    cardTermsAccepted: true,
    checkoutPix: true,
    funding: { BRL: '100000.00', USD: '50000.00' },
    createdAt: now,
  };
  await sandbox.store.transaction((tx) => tx.insertOrganization(org)).catch((err: unknown) => {
    if (!(err instanceof ConstraintViolation)) throw err;
  });
  return DEMO_ID;
}
