// The admin surface: what the provider's dashboard does (organizations and their product flags, API keys,
// wallet recipients, card terms, checkout PIX, final transfer statuses) plus fault injection. Requests are
// validated against the admin OpenAPI document (openapi-admin/, bundled to dist/admin-openapi.json).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { createValidator, deref, isObject, operations, type JsonObject, type OpenApiDocument } from '@payments/spec';
import type { ValidateFunction } from 'ajv';
import { readBody, sendJson } from '../http.ts';
import { generateApiKey } from '../keys.ts';
import { recipientView, transferView } from '../operations/banking.ts';
import type { FaultRecord, Organization, Store, Transaction } from '../store/types.ts';

type Handler = (ctx: { tx: Transaction; params: Record<string, string>; body: JsonObject; now: string }) => Promise<{ status: number; body?: unknown }>;

class AdminFailure extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
const notFound = (what: string) => new AdminFailure(404, 'not_found', `No such ${what}.`);

const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;
const FLAGS = ['apiAccess', 'banking', 'cards', 'checkout', 'walletTransfers', 'cardTermsAccepted', 'checkoutPix'] as const;

const orgView = (o: Organization) => ({ ...o });
const faultView = (f: FaultRecord) =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== null && v !== undefined));

async function organization(tx: Transaction, id: string | undefined): Promise<Organization> {
  const org = id ? await tx.getOrganization(id) : undefined;
  if (!org) throw notFound('organization');
  return org;
}

/** Handlers by operationId of the admin spec. */
export const adminHandlers: Record<string, Handler> = {
  async getHealth() {
    return { status: 200, body: { ok: true } };
  },
  async createOrganization({ tx, body, now }) {
    const org: Organization = {
      id: newId('org'),
      name: typeof body.name === 'string' ? body.name : 'Sandbox organization',
      apiAccess: body.apiAccess !== false,
      banking: body.banking === true,
      cards: body.cards === true,
      checkout: body.checkout === true,
      walletTransfers: body.walletTransfers === true,
      cardTermsAccepted: body.cardTermsAccepted === true,
      checkoutPix: body.checkoutPix === true,
      funding: (isObject(body.funding) ? body.funding : {}) as Record<string, string>,
      createdAt: now,
    };
    await tx.insertOrganization(org);
    return { status: 201, body: orgView(org) };
  },
  async getOrganization({ tx, params }) {
    return { status: 200, body: orgView(await organization(tx, params.organizationId)) };
  },
  async updateOrganization({ tx, params, body }) {
    await organization(tx, params.organizationId);
    const patch: Partial<Organization> = {};
    for (const flag of FLAGS) if (typeof body[flag] === 'boolean') patch[flag] = body[flag];
    if (typeof body.name === 'string') patch.name = body.name;
    if (isObject(body.funding)) patch.funding = body.funding as Record<string, string>;
    return { status: 200, body: orgView((await tx.updateOrganization(params.organizationId!, patch))!) };
  },
  async createApiKey({ tx, params, now }) {
    const org = await organization(tx, params.organizationId);
    const { key, hash, prefix } = generateApiKey();
    const record = { id: newId('key'), organizationId: org.id, hash, prefix, createdAt: now, revokedAt: null };
    await tx.insertApiKey(record);
    return { status: 201, body: { id: record.id, organizationId: org.id, key, prefix, createdAt: now } };
  },
  async revokeApiKey({ tx, params, now }) {
    const record = await tx.revokeApiKey(params.apiKeyId!, now);
    if (!record) throw notFound('API key');
    return { status: 200, body: { id: record.id, organizationId: record.organizationId, prefix: record.prefix, createdAt: record.createdAt, revokedAt: record.revokedAt } };
  },
  async createWalletRecipient({ tx, params, body, now }) {
    const org = await organization(tx, params.organizationId);
    const recipient = {
      id: newId('rcp'),
      organizationId: org.id,
      nickname: String(body.nickname),
      rail: 'wallet' as const,
      pixKey: null,
      destinationAddress: String(body.destinationAddress),
      active: body.active === true,
      source: 'dashboard' as const,
      idempotencyKey: null,
      createdAt: now,
    };
    await tx.insertRecipient(recipient);
    return { status: 201, body: recipientView(recipient) };
  },
  async activateRecipient(ctx) {
    return setActive(ctx, true);
  },
  async deactivateRecipient(ctx) {
    return setActive(ctx, false);
  },
  async setTransferStatus({ tx, params, body }) {
    const transfer = await tx.updateTransferStatus(params.organizationId!, params.transferId!, body.status as never);
    if (!transfer) throw notFound('transfer');
    return { status: 200, body: transferView(transfer) };
  },
  async resolveTransferAttempt({ tx, params, body }) {
    await organization(tx, params.organizationId);
    const key = String(body.idempotencyKey);
    const existing = await tx.claimIdempotency({
      organizationId: params.organizationId!, operationId: 'createTransfer', key, fingerprint: '', state: 'unresolved', status: null, body: null, resolution: null, createdAt: new Date().toISOString(),
    });
    if (!existing || existing.state !== 'unresolved') throw new AdminFailure(404, 'not_found', 'No unresolved transfer attempt with that key.');
    await tx.updateIdempotency(existing.organizationId, existing.operationId, key, { state: 'unresolved', status: null, body: null, resolution: String(body.resolution) });
    return { status: 200, body: { idempotencyKey: key, resolution: body.resolution } };
  },
  async createFault({ tx, body, now }) {
    if (typeof body.organizationId === 'string') await organization(tx, body.organizationId);
    const fault: FaultRecord = {
      id: newId('flt'),
      organizationId: typeof body.organizationId === 'string' ? body.organizationId : null,
      operationId: String(body.operationId),
      kind: body.kind as FaultRecord['kind'],
      remaining: Number(body.count),
      commit: body.commit === true,
      retryAfterSeconds: typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : null,
      resolution: typeof body.resolution === 'string' ? body.resolution : null,
      createdAt: now,
    };
    await tx.insertFault(fault);
    return { status: 201, body: faultView(fault) };
  },
  async listFaults({ tx }) {
    return { status: 200, body: { faults: (await tx.listFaults()).map(faultView) } };
  },
  async clearFaults({ tx }) {
    await tx.clearFaults();
    return { status: 204 };
  },
};

async function setActive({ tx, params }: Parameters<Handler>[0], active: boolean) {
  const recipient = await tx.updateRecipient(params.organizationId!, params.recipientId!, { active });
  if (!recipient) throw notFound('recipient');
  return { status: 200, body: recipientView(recipient) };
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  operationId: string;
  validateBody: ValidateFunction | undefined;
}

/** The admin request handler, routed and validated by the admin spec. */
export function createAdmin(options: { store: Store; spec: OpenApiDocument; token: string; bodyLimit?: number }) {
  const validator = createValidator(options.spec);
  const routes: Route[] = operations(options.spec).map(({ method, path, operationId, operation }) => {
    const body = deref(options.spec, operation.requestBody ?? null);
    const media = isObject(body) && isObject(body.content) ? deref(options.spec, body.content['application/json'] ?? null) : undefined;
    if (!adminHandlers[operationId]) throw new Error(`no admin handler for ${operationId}`);
    return {
      method: method.toUpperCase(),
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
      names: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      operationId,
      validateBody: isObject(media) && isObject(media.schema) ? validator.compile(media.schema) : undefined,
    };
  });
  const token = Buffer.from(options.token);

  return async (req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> => {
    const error = (status: number, code: string, message: string) => sendJson(res, status, { error: message, code, requestId });
    const header = String(req.headers.authorization ?? '');
    const presented = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    if (presented.length !== token.length || !timingSafeEqual(presented, token)) return error(401, 'unauthorized', 'Admin token required.');
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    let params: Record<string, string> = {};
    const route = routes.find((r) => {
      const m = r.method === req.method ? r.pattern.exec(path) : null;
      if (m) params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      return Boolean(m);
    });
    if (!route) return error(404, 'not_found', 'No such admin operation.');
    let body: JsonObject = {};
    const raw = (await readBody(req, options.bodyLimit ?? 64 * 1024)).toString('utf8');
    if (route.validateBody) {
      try {
        body = raw ? (JSON.parse(raw) as JsonObject) : {};
      } catch {
        return error(400, 'invalid_request', 'Body is not valid JSON.');
      }
      if (!route.validateBody(body)) {
        const first = route.validateBody.errors?.[0];
        return error(400, 'invalid_request', `Body ${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}.`);
      }
    }
    try {
      const result = await options.store.transaction((tx) => adminHandlers[route.operationId]!({ tx, params, body, now: new Date().toISOString() }));
      if (result.status === 204) {
        res.writeHead(204).end();
        return;
      }
      const payload = route.operationId === 'getHealth' ? { ok: true, store: options.store.kind } : result.body;
      sendJson(res, result.status, payload);
    } catch (err) {
      if (err instanceof AdminFailure) return error(err.status, err.code, err.message);
      throw err;
    }
  };
}
