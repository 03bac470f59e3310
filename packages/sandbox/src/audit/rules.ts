// What the audit judges a journal by, read from the bundled spec (no status, code, schema or wait typed
// here): per operation, whether it requires an Idempotency-Key and the key's and the body's validators
// (Ajv over the spec, @payments/spec), the edge's statuses (x-origin: edge), the temporary status and its
// minimum wait (x-retry), and each catalog code's status, x-retryable and x-assumed. And the provider's own
// words each finding cites (section and quote of the provider's document, checked verbatim by a test).
import { Assumptions, createValidator, deref, edgeStatuses, errorCatalog, isObject, operations, type Json, type OpenApiDocument } from '@payments/spec';
import type { ValidateFunction } from 'ajv';

export interface CodeRule {
  status: number;
  /** The catalog's x-retryable: whether a client repeats the request (same key) after it. */
  retryable: boolean;
  /** The catalog's x-assumed: a conventional choice, not the provider's words (never judged as a rule of theirs). */
  assumed: boolean;
  /** The catalog's description: what a client does after it. */
  action: string;
}

export interface OperationRules {
  operationId: string;
  method: string;
  path: string;
  /** The operation declares a required Idempotency-Key header. */
  keyRequired: boolean;
  validateKey: ValidateFunction | undefined;
  /** JSON pointer of the Idempotency-Key's schema, for the x-assumed rule. */
  keyPointer: string | undefined;
  validateBody: ValidateFunction | undefined;
  /** JSON pointer of the request body schema, for the evidence. */
  bodyPointer: string | undefined;
  edgeStatuses: ReadonlySet<number>;
  /** x-retry's temporary failure: its status and the minimum wait before the retry with the same key. */
  temporary: { status: number; minDelayMs: number } | undefined;
  codes: ReadonlyMap<string, CodeRule>;
}

export interface AuditRules {
  operations: ReadonlyMap<string, OperationRules>;
  /** The code that means "the key's attempt is pending review" (asked again with the same key, never a new one). */
  pendingReviewCode: string;
  /** The spec's x-assumed rule: whether a schema failure rests only on assumptions, and which (never a hand list). */
  assumptions: Assumptions;
}

/** The provider's code for an attempt pending review (section 3); the spec must carry it (checked below). */
const PENDING_REVIEW = 'banking_transfer_attempt_pending_review';

export function auditRules(doc: OpenApiDocument): AuditRules {
  const validator = createValidator(doc);
  const catalog = errorCatalog(doc);
  const edges = edgeStatuses(doc);
  for (const code of [PENDING_REVIEW, ...Object.keys(DEFINITE_5XX_WORDS)]) {
    if (!catalog.some((e) => e.code === code)) throw new Error(`the spec's error catalog has no ${code}`);
  }
  const result = new Map<string, OperationRules>();
  for (const { method, path, operationId, operation } of operations(doc)) {
    const sites = (operation.parameters ?? []) as Json[];
    const params = sites.map((p) => deref(doc, p)).filter(isObject);
    const key = params.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    const keySite = key ? sites[params.indexOf(key)] : undefined;
    const keyPointer = isObject(keySite) && typeof keySite.$ref === 'string' ? `${keySite.$ref}/schema` : key ? `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/parameters/${params.indexOf(key)}/schema` : undefined;
    const body = deref(doc, operation.requestBody ?? null);
    const media = isObject(body) && isObject(body.content) ? deref(doc, body.content['application/json'] ?? null) : undefined;
    const bodySchema = isObject(media) && isObject(media.schema) ? media.schema : undefined;
    const retry = isObject(operation['x-retry']) && isObject(operation['x-retry'].temporaryUnavailable) ? operation['x-retry'].temporaryUnavailable : undefined;
    result.set(operationId, {
      operationId,
      method: method.toUpperCase(),
      path,
      keyRequired: key?.required === true,
      validateKey: isObject(key?.schema) ? validator.compile(key.schema) : undefined,
      keyPointer,
      validateBody: bodySchema ? validator.compile(bodySchema) : undefined,
      bodyPointer: typeof bodySchema?.$ref === 'string' ? bodySchema.$ref : `#/paths/${path.replaceAll('/', '~1')}/${method}/requestBody`,
      edgeStatuses: new Set(edges.filter((e) => e.operationId === operationId).map((e) => e.status)),
      temporary: retry ? { status: Number(retry.status), minDelayMs: Number(retry.minDelaySeconds) * 1000 } : undefined,
      codes: new Map(
        catalog
          .filter((e) => e.operationId === operationId)
          .map((e) => [e.code, { status: e.status, retryable: e.retryable, assumed: e.assumed, action: e.action }]),
      ),
    });
  }
  return { operations: result, pendingReviewCode: PENDING_REVIEW, assumptions: new Assumptions(doc, validator) };
}

/** A rule of the provider's document: its section and its words, quoted verbatim. */
export interface ProviderRule {
  section: string;
  words: string;
}

/** The provider's words each finding cites (test/audit checks each is verbatim in payments-api.md). */
export const PROVIDER = {
  neverNewKeyOn5xx: {
    section: '7. Errors, Idempotency, rule 8',
    words: 'A client must never switch to a new key only because of a 503, 502 or 504, since that could create a duplicate payment.',
  },
  edgeIsATimeout: {
    section: '7. Errors',
    words: 'the request may or may not have been processed, so treat it as a timeout and retry with the same `Idempotency-Key`.',
  },
  sameKeyAfterTimeout: {
    section: '7. Errors, Idempotency, rule 3',
    words: 'The client generates the key, unique per new request, and reuses it only when retrying the same request after a timeout or network error.',
  },
  waitAfter503: {
    section: '7. Errors, Idempotency, rule 7',
    words: 'When transfer creation returns a temporary 503 without a transfer object, the client waits at least 60 seconds and retries with the same key.',
  },
  growingDelays: {
    section: '7. Errors, Idempotency, rule 7',
    words: 'If the error continues, the delays increase with jitter.',
  },
  waitRetryAfter: {
    section: '7. Errors, Resource and request errors (`provider_rate_limited`)',
    words: 'Wait the number of seconds in the `Retry-After` header, then repeat the same request',
  },
  jitter: {
    section: '3. States and transitions (retry outcome of transfer creation)',
    words: 'Keep the same key, increase the delay with jitter, retry later.',
  },
  resolvedKeepKey: {
    section: '3. States and transitions (retry outcome of transfer creation)',
    words: 'Keep the original key and track that transfer. Do not submit again.',
  },
  pendingReview: {
    section: '3. States and transitions',
    words: 'Do not use a new key. Contact support if it does not resolve.',
  },
  checkoutIdentity: {
    section: '4. Endpoints, further rule 3',
    words: 'Checkout session request identity consists of the normalized `amount`, `discountPercent` and the selected payment method. Changing any of them requires a new key.',
  },
  rateLimit: {
    section: '8. Limits',
    words: 'clients back off and retry after a short delay',
  },
  refusals: {
    section: '7. Errors',
    words: '`4xx` request rejected',
  },
  pixNotAvailable: {
    section: '7. Errors, Resource and request errors (`checkout_pix_not_available`)',
    words: 'The organization is not yet set up to accept PIX for checkout',
  },
  keyRequired: {
    section: '4. Endpoints',
    words: 'Endpoints marked "Idempotency-Key required" need that header.',
  },
  checkoutKey: {
    section: '7. Errors, Idempotency, rule 2',
    words: 'For the checkout endpoints the key is 8–200 characters drawn from letters, digits, dot, underscore, colon and hyphen.',
  },
  bodies: {
    section: '4. Endpoints',
    words: 'Bodies are JSON (`content-type: application/json`).',
  },
} as const satisfies Record<string, ProviderRule>;

/**
 * The provider's words for a definite 5xx, by code: the spec says it is not retried (x-retryable: false),
 * these say why. A code the spec lacks fails auditRules().
 */
const DEFINITE_5XX_WORDS: Readonly<Record<string, ProviderRule>> = {
  checkout_pix_not_available: PROVIDER.pixNotAvailable,
};
export const definite5xxWords = (code: string): ProviderRule | undefined => (Object.hasOwn(DEFINITE_5XX_WORDS, code) ? DEFINITE_5XX_WORDS[code] : undefined);
