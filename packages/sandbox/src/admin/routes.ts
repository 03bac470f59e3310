// The admin surface: what the provider's dashboard does (organizations and their product flags, API keys,
// wallet recipients, card terms, checkout PIX, final transfer statuses) plus fault injection. Requests are
// validated against the admin OpenAPI document (openapi-admin/, bundled to @payments/spec's dist/admin-openapi.json). The
// rules a saved recipient meets and what a fault may simulate on an operation come from the public contract.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { createValidator, deref, isObject, loadSpec, operations, type JsonObject, type OpenApiDocument } from '@payments/spec';
import type { ValidateFunction } from 'ajv';
import { loadContract, matchRoute, pathTemplate, type Contract, type OperationContract } from '../contract.ts';
import { validAddress } from '../eip55.ts';
import { BodyTooLarge, pathOf, readBody, sendJson, utf8Text } from '../http.ts';
import { generateApiKey } from '../keys.ts';
import { Failure } from '../failure.ts';
import { DEFAULT_JOURNAL_CAP } from '../pipeline/journal.ts';
import { activeNicknameTaken, recipientView, recipientWrite, transferView } from '../operations/banking.ts';
import { UnstorableText, type Store, type Transaction } from '../store/types.ts';
import type { ApiKeyRecord, FaultKind, FaultRecord, Organization } from '../records.ts';

type Handler = (ctx: { tx: Transaction; params: Record<string, string>; body: JsonObject; now: string; contract: Contract; journalCap: number }) => Promise<{ status: number; body?: unknown }>;

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
/** A rule the public API enforces too, refused with the public code and its status from the public catalog. */
const publicRule = (contract: Contract, code: string, message: string) => new AdminFailure(contract.error(code).status, code, message);

/** A recipient write as the public API's rules answer it when a unique index of the schema refuses it (a race the checks lost). */
async function publicWrite<T>(contract: Contract, write: () => Promise<T>): Promise<T> {
  try {
    return await recipientWrite(write);
  } catch (err) {
    if (err instanceof Failure) throw publicRule(contract, err.code, contract.error(err.code).meaning);
    throw err;
  }
}

/**
 * What each fault kind answers (app.ts `execute`): a documented error code, or an edge status without a JSON
 * body. A kind may be scheduled only on an operation whose spec documents that answer; `drop_after_commit`
 * answers nothing at all, so any operation may meet it.
 */
export const FAULT_ANSWERS: Readonly<Record<FaultKind, { code?: string; edgeStatus?: number }>> = {
  unavailable: { code: 'temporarily_unavailable' },
  pending_review: { code: 'banking_transfer_attempt_pending_review' },
  edge_502: { edgeStatus: 502 },
  edge_504: { edgeStatus: 504 },
  drop_after_commit: {},
  provider_rate_limited: { code: 'provider_rate_limited' },
};

/** The fault kinds whose answer the operation documents (read from the public spec through the contract). */
export function allowedFaultKinds(op: OperationContract): FaultKind[] {
  return (Object.keys(FAULT_ANSWERS) as FaultKind[]).filter((kind) => {
    const { code, edgeStatus } = FAULT_ANSWERS[kind];
    if (code !== undefined) return op.errorCodes.has(code);
    if (edgeStatus !== undefined) return op.edgeStatuses.has(edgeStatus);
    return true;
  });
}

function describeAnswer(contract: Contract, kind: FaultKind): string {
  const { code, edgeStatus } = FAULT_ANSWERS[kind];
  if (code !== undefined) return `${contract.error(code).status} ${code}`;
  if (edgeStatus !== undefined) return `the edge's ${edgeStatus}`;
  return 'no response';
}

const newId = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;
const FLAGS = ['apiAccess', 'banking', 'cards', 'checkout', 'walletTransfers', 'cardTermsAccepted', 'checkoutPix'] as const;

/** The organization as the admin API shows it: its clock and journal have their own operations. */
const orgView = ({ clockMs: _clock, ...o }: Organization) => o;
/** A key as the admin API shows it: never its hash. */
const keyView = ({ id, organizationId, prefix, createdAt, revokedAt }: ApiKeyRecord) => ({ id, organizationId, prefix, createdAt, revokedAt });
/** An organization's clock: `frozen` at `now`, or `real` time (`now` is then the moment of the answer). */
const clockView = (o: Organization) =>
  o.clockMs === null || o.clockMs === undefined
    ? { organizationId: o.id, mode: 'real', now: new Date().toISOString() }
    : { organizationId: o.id, mode: 'frozen', now: new Date(o.clockMs).toISOString(), nowMs: o.clockMs };
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
  async listOrganizations({ tx }) {
    return { status: 200, body: { organizations: (await tx.listOrganizations()).map(orgView) } };
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
  async listApiKeys({ tx, params }) {
    const org = await organization(tx, params.organizationId);
    return { status: 200, body: { apiKeys: (await tx.listApiKeys(org.id)).map(keyView) } };
  },
  async revokeApiKey({ tx, params, now }) {
    const record = await tx.revokeApiKey(params.apiKeyId!, now);
    if (!record) throw notFound('API key');
    return { status: 200, body: keyView(record) };
  },
  async createWalletRecipient({ tx, params, body, now, contract }) {
    const org = await organization(tx, params.organizationId);
    const nickname = String(body.nickname);
    const address = String(body.destinationAddress);
    // The public API's rule for a saved address: the EIP-55 checksum of a mixed-case one. Its nickname is
    // free: section 2 makes nicknames unique among active EXTERNAL recipients, which a wallet is not.
    if (!validAddress(address)) {
      throw publicRule(contract, 'invalid_destination_address', `destinationAddress ${address} is mixed-case but not its EIP-55 checksum form; send the checksummed address, or all lower case.`);
    }
    const active = body.active === true;
    const recipient = {
      id: newId('rcp'),
      organizationId: org.id,
      nickname,
      rail: 'wallet' as const,
      pixKey: null,
      destinationAddress: address,
      active,
      source: 'dashboard' as const,
      idempotencyKey: null,
      createdAt: now,
    };
    await publicWrite(contract, () => tx.insertRecipient(recipient));
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
    const existing = await tx.findIdempotency(params.organizationId!, 'createTransfer', key);
    if (!existing || existing.state !== 'unresolved') throw new AdminFailure(404, 'not_found', 'No unresolved transfer attempt with that key.');
    await tx.updateIdempotency(existing.organizationId, existing.operationId, key, { state: 'unresolved', status: null, body: null, resolution: String(body.resolution) });
    return { status: 200, body: { idempotencyKey: key, resolution: body.resolution } };
  },
  async createFault({ tx, body, now, contract }) {
    const operationId = String(body.operationId);
    const kind = body.kind as FaultKind;
    const op = contract.operations.find((o) => o.operationId === operationId);
    if (!op) throw new AdminFailure(400, 'invalid_request', `Body /operationId: no public operation ${operationId}.`);
    const allowed = allowedFaultKinds(op);
    if (!allowed.includes(kind)) {
      throw new AdminFailure(
        400,
        'invalid_request',
        `Body /kind: ${kind} answers ${describeAnswer(contract, kind)}, which ${operationId} does not document; allowed kinds for ${operationId}: ${allowed.join(', ')}.`,
      );
    }
    if (typeof body.organizationId === 'string') await organization(tx, body.organizationId);
    const fault: FaultRecord = {
      id: newId('flt'),
      organizationId: typeof body.organizationId === 'string' ? body.organizationId : null,
      operationId,
      kind,
      remaining: Number(body.count),
      commit: body.commit === true,
      retryAfterSeconds: typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : null,
      resolution: typeof body.resolution === 'string' ? body.resolution : null,
      createdAt: now,
    };
    await tx.insertFault(fault);
    return { status: 201, body: faultView(fault) };
  },
  async getClock({ tx, params }) {
    return { status: 200, body: clockView(await organization(tx, params.organizationId)) };
  },
  async freezeClock({ tx, params, body }) {
    await organization(tx, params.organizationId);
    const at = typeof body.at === 'string' ? Date.parse(body.at) : Date.now();
    if (!Number.isFinite(at)) throw new AdminFailure(400, 'invalid_request', `Body /at: ${String(body.at)} is not a date-time.`);
    return { status: 200, body: clockView((await tx.setClock(params.organizationId!, at))!) };
  },
  async advanceClock({ tx, params, body }) {
    const org = await organization(tx, params.organizationId);
    const ms = Number(body.milliseconds);
    // A clock on real time is frozen at the current time first, then advanced.
    const advanced = org.clockMs === null || org.clockMs === undefined ? await tx.setClock(org.id, Date.now() + ms) : await tx.advanceClock(org.id, ms);
    return { status: 200, body: clockView(advanced!) };
  },
  async useRealTime({ tx, params }) {
    await organization(tx, params.organizationId);
    return { status: 200, body: clockView((await tx.setClock(params.organizationId!, null))!) };
  },
  async getJournal({ tx, params, journalCap }) {
    await organization(tx, params.organizationId);
    const page = await tx.readJournal(params.organizationId!, journalCap);
    // Oldest first by time, as documented: entries are stored as their requests commit, and concurrent
    // requests commit in another order than they arrived (QA: times going back up to 8 ms). Ties keep that order.
    const entries = page.entries.toSorted((x, y) => x.at - y.at);
    return {
      status: 200,
      body: { organizationId: params.organizationId, cap: journalCap, dropped: page.dropped, entries: entries.map((e) => ({ ...e, time: new Date(e.at).toISOString() })) },
    };
  },
  async listFaults({ tx }) {
    return { status: 200, body: { faults: (await tx.listFaults()).map(faultView) } };
  },
  async clearFaults({ tx }) {
    await tx.clearFaults();
    return { status: 204 };
  },
};

async function setActive({ tx, params, contract }: Parameters<Handler>[0], active: boolean) {
  const current = await tx.getRecipient(params.organizationId!, params.recipientId!);
  if (!current) throw notFound('recipient');
  // Activating an external recipient must keep its nickname unique among the active external ones (a wallet's counts for none).
  if (active && !current.active && current.rail !== 'wallet' && (await activeNicknameTaken(tx, current.organizationId, current.nickname, current.id))) {
    throw publicRule(contract, 'recipient_nickname_already_exists', `Another active external recipient of the organization is named "${current.nickname}"; deactivate it first.`);
  }
  const recipient = await publicWrite(contract, () => tx.updateRecipient(params.organizationId!, params.recipientId!, { active }));
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

/**
 * The route a request names and its decoded path parameters (undefined when a segment is not valid
 * percent-encoding); `{ allow }` when a route has the path but not the method; undefined when none has it.
 */
function findRoute(routes: Route[], method: string, path: string): { route: Route; params: Record<string, string> | undefined } | { allow: string[] } | undefined {
  const found = matchRoute(routes, method, path);
  if (!found || 'samePath' in found) return found && { allow: found.samePath.map((route) => route.method) };
  const { route, segments } = found;
  if (segments.includes(undefined)) return { route, params: undefined };
  return { route, params: Object.fromEntries(route.names.map((name, i) => [name, segments[i]!])) };
}

/**
 * The admin request handler, routed and validated by the admin spec. `contract` is the public API's (by
 * default read from the bundled public spec): the recipient rules and the faults an operation documents.
 */
export function createAdmin(options: { store: Store; spec: OpenApiDocument; token: string; bodyLimit?: number; contract?: Contract; journalCap?: number }) {
  const contract = options.contract ?? loadContract(loadSpec());
  const bodyLimit = options.bodyLimit ?? 64 * 1024;
  const journalCap = options.journalCap ?? DEFAULT_JOURNAL_CAP;
  const validator = createValidator(options.spec);
  const routes: Route[] = operations(options.spec).map(({ method, path, operationId, operation }) => {
    const body = deref(options.spec, operation.requestBody ?? null);
    const media = isObject(body) && isObject(body.content) ? deref(options.spec, body.content['application/json'] ?? null) : undefined;
    if (!adminHandlers[operationId]) throw new Error(`no admin handler for ${operationId}`);
    return {
      method: method.toUpperCase(),
      ...pathTemplate(path),
      operationId,
      validateBody: isObject(media) && isObject(media.schema) ? validator.compile(media.schema) : undefined,
    };
  });
  const token = Buffer.from(options.token);

  return async (req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> => {
    const error = (status: number, code: string, message: string, headers?: Record<string, string>) => sendJson(res, status, { error: message, code, requestId }, headers);
    const header = String(req.headers.authorization ?? '');
    const presented = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    if (presented.length !== token.length || !timingSafeEqual(presented, token)) {
      // A wrong token is told apart from none (QA: "required" read as if none had been sent); neither says more.
      return error(401, 'unauthorized', presented.length ? "The admin token is not this sandbox's." : 'Admin token required (header authorization: Bearer <token>).');
    }
    const found = findRoute(routes, req.method ?? '', pathOf(req.url ?? '/'));
    if (!found) return error(404, 'not_found', 'No such admin operation.');
    if ('allow' in found) return error(405, 'method_not_allowed', 'Method not allowed.', { allow: found.allow.join(', ') });
    const { route, params } = found;
    // A path id that is not even valid percent-encoding names nothing: the operation's 404.
    if (!params) return error(404, 'not_found', 'No such resource: a path segment is not valid percent-encoding.');
    let body: JsonObject = {};
    if (!route.validateBody) req.resume(); // no body is documented: whatever was sent is discarded unread
    else {
      let raw: Buffer;
      try {
        raw = await readBody(req, bodyLimit);
      } catch (err) {
        if (!(err instanceof BodyTooLarge)) throw err;
        return error(413, 'payload_too_large', `The request body is larger than ${bodyLimit} bytes.`);
      }
      const text = utf8Text(raw); // refused, never stored with U+FFFD in place of the bytes
      if (text === undefined) return error(400, 'invalid_request', 'Body is not valid UTF-8.');
      try {
        body = text ? (JSON.parse(text) as JsonObject) : {};
      } catch {
        return error(400, 'invalid_request', 'Body is not valid JSON.');
      }
      if (!route.validateBody(body)) {
        const first = route.validateBody.errors?.[0];
        return error(400, 'invalid_request', `Body ${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}.`);
      }
    }
    try {
      const result = await options.store.transaction((tx) => adminHandlers[route.operationId]!({ tx, params, body, now: new Date().toISOString(), contract, journalCap }));
      if (result.status === 204) {
        res.writeHead(204).end();
        return;
      }
      const payload = route.operationId === 'getHealth' ? { ok: true, store: options.store.kind } : result.body;
      sendJson(res, result.status, payload);
    } catch (err) {
      if (err instanceof AdminFailure) return error(err.status, err.code, err.message);
      if (err instanceof UnstorableText) return error(400, 'invalid_request', err.message);
      throw err;
    }
  };
}
