// Makes test/fixtures/legacy-v4.sqlite with the sandbox as it was at f540a9f (schema version 4).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { startSandbox } from './src/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'legacy-'));
const file = join(dir, 'legacy.sqlite');
const sandbox = await startSandbox({ file, adminToken: 'adm_legacy' });
const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sandbox.url}/admin${path}`, { method, headers: { authorization: 'Bearer adm_legacy', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};
const api = async (key: string, method: string, path: string, idem?: string, body?: unknown) => {
  const headers: Record<string, string> = { 'x-api-key': key, 'content-type': 'application/json' };
  if (idem) headers['idempotency-key'] = idem;
  const res = await fetch(`${sandbox.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: JSON.parse(await res.text()) };
};
const org = await admin('POST', '/organizations', { name: 'Legacy Org', banking: true, cards: true, checkout: true, cardTermsAccepted: true, checkoutPix: true, walletTransfers: true, funding: { BRL: '5000.00', USD: '2500.00' } });
const other = await admin('POST', '/organizations', { name: 'Other Org', banking: true, funding: { BRL: '10.00' } });
const key = (await admin('POST', `/organizations/${org.id}/api-keys`)).key;
const revoked = await admin('POST', `/organizations/${org.id}/api-keys`);
await admin('POST', `/api-keys/${revoked.id}/revoke`).catch(async () => admin('DELETE', `/api-keys/${revoked.id}`)).catch(() => undefined);
const otherKey = (await admin('POST', `/organizations/${other.id}/api-keys`)).key;
const pix = await api(key, 'POST', '/v1/banking/recipients', 'rcp-pix', { rail: 'brl_pix', nickname: 'Maria', pixKey: 'maria@example.com' });
const ach = await api(key, 'POST', '/v1/banking/recipients', 'rcp-ach', { rail: 'usd_ach', nickname: 'Acme' });
await admin('POST', `/organizations/${org.id}/recipients/${ach.body.id}/deactivate`);
const ach2 = await api(key, 'POST', '/v1/banking/recipients', 'rcp-ach-2', { rail: 'usd_ach', nickname: 'Acme' });
const wallet = await admin('POST', `/organizations/${org.id}/wallet-recipients`, { nickname: 'Cold wallet', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7', active: true });
const transfers = [];
for (let i = 0; i < 12; i++) transfers.push(await api(key, 'POST', '/v1/banking/transfers', `order-${i}`, { recipientId: i % 2 ? pix.body.id : ach2.body.id, amount: `${10 + i}.${String(i * 7).padStart(2, '0').slice(0, 2)}` }));
await admin('POST', `/organizations/${org.id}/transfers/${transfers[1]!.body.id}/status`, { status: 'completed' }).catch(async () => admin('PATCH', `/organizations/${org.id}/transfers/${transfers[1]!.body.id}`, { status: 'completed' }));
await admin('POST', `/organizations/${org.id}/transfers/${transfers[2]!.body.id}/status`, { status: 'failed' }).catch(async () => admin('PATCH', `/organizations/${org.id}/transfers/${transfers[2]!.body.id}`, { status: 'failed' }));
await api(key, 'POST', '/v1/banking/transfers', `wallet-1`, { recipientId: wallet.id, amount: '1.00' });
await admin('POST', '/faults', { operationId: 'createTransfer', kind: 'unavailable', count: 1, organizationId: org.id, resolution: 'completed' });
const unresolved = await api(key, 'POST', '/v1/banking/transfers', 'order-503', { recipientId: pix.body.id, amount: '77.70' });
await admin('POST', '/faults', { operationId: 'createTransfer', kind: 'edge_502', count: 2, organizationId: org.id, commit: true });
const card = await api(key, 'POST', '/v1/cards', 'card-1', {});
const product = await api(key, 'POST', '/v1/checkout/products', 'product-0001', { name: 'T-shirt' });
const session = await api(key, 'POST', '/v1/checkout/sessions', 'session-0001', { amount: 37.45 });
await api(otherKey, 'GET', '/v1/banking/balance');
const balance = await api(key, 'GET', '/v1/banking/balance');
await sandbox.close();
const db = new DatabaseSync(file);
db.exec('PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE; VACUUM');
db.close();
const out = new URL('../test/fixtures/', import.meta.url);
copyFileSync(file, new URL('legacy-v4.sqlite', out));
writeFileSync(new URL('legacy-v4.json', out), `${JSON.stringify({
  madeBy: 'packages/sandbox at commit f540a9f (schema version 4), through its HTTP and admin APIs',
  organizationId: org.id, otherOrganizationId: other.id, key, revokedKeyId: revoked.id,
  recipients: { pix: pix.body, ach: ach.body, ach2: ach2.body, wallet },
  transfers: transfers.map((t) => t.body), unresolved: { key: 'order-503', status: unresolved.status },
  card: card.body, product: product.body, session: session.body, balance: balance.body,
}, null, 2)}\n`);
console.log('ok', balance.body, unresolved.status, transfers.map((t) => t.status).join(','));
