// The demo organization of `npm start` and `payments-sandbox` (every product on, funded) and its API key,
// also used by the docs test.
import { randomUUID } from 'node:crypto';
import type { generateApiKey } from './keys.ts';
import type { RunningSandbox } from './sandbox.ts';
import type { Organization } from './records.ts';

export const DEMO_NAME = 'Demo organization (npm start)';

/** The demo organization (created once, every product on), with a new key: keys are shown only once. */
export async function demoOrganization(sandbox: Pick<RunningSandbox, 'store'>, { key, hash, prefix }: ReturnType<typeof generateApiKey>): Promise<string> {
  await sandbox.store.transaction(async (tx) => {
    const now = new Date().toISOString();
    let org: Organization | undefined = (await tx.listOrganizations()).find((o) => o.name === DEMO_NAME);
    if (!org) {
      org = {
        id: `org_${randomUUID().replace(/-/g, '')}`,
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
      await tx.insertOrganization(org);
    }
    await tx.insertApiKey({ id: `key_${randomUUID().replace(/-/g, '')}`, organizationId: org.id, hash, prefix, createdAt: now, revokedAt: null });
  });
  return key;
}
