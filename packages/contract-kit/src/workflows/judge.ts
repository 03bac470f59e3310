// Respect checks every response against the spec as written: its status, content type and schema. It does not
// read x-assumed, so a server that makes another honest choice where the provider's document is silent (a 200
// for a recipient it created, a longer id) failed the workflow. Respect runs those three checks as warnings
// here (so it goes on), and the kit's own response check, the one its contract tests use, judges each public
// API response instead: a breach of what the document states is a failure, a difference only from what the
// spec assumes is a warning with the assumption's reason. Admin API steps keep Respect's verdict.
import { isObject, type Json, type JsonObject } from '@payments/spec';
import { capabilitiesOf } from '../capabilities.ts';
import { checkResponse } from '../checks/response.ts';
import { createContext, type KitContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';
import { operationOf } from '../route.ts';
import { assumedReasonOf, documentedResponse, isJsonMedia, locate, type ApiModel } from '../spec-model.ts';
import type { RespectStep } from './respect.ts';

/** Respect's checks against the OpenAPI document (its `--severity` names), run as warnings and judged here. */
export const SPEC_CHECKS = ['STATUS_CODE_CHECK', 'SCHEMA_CHECK', 'CONTENT_TYPE_CHECK'] as const;
const SPEC_CHECK_NAMES = new Set(['status code check', 'schema check', 'content-type check']);

/** The kit's finding rules under the names Respect gives the same checks (the report reads the same either way). */
const RESPECT_NAME: Record<string, string> = { status: 'status code check', 'body-schema': 'schema check', 'content-type': 'content-type check' };

export interface Judged {
  name: string;
  message: string;
  assumedReason?: string;
}

export interface Verdict {
  failed: Judged[];
  warnings: Judged[];
  /** The x-assumed reason on the field at a place in the response body (`/id`), when the spec only assumes its name. */
  assumedAt(bodyPointer: string): string | undefined;
}

export const isSpecCheck = (name: string): boolean => SPEC_CHECK_NAMES.has(name);

/** Judges a step's response, or says undefined when it is not a public API response (Respect's verdict stands). */
export type ResponseJudge = (step: RespectStep) => Verdict | undefined;

export function responseJudge(api: ApiModel, server: string, target: 'server' | 'prism'): ResponseJudge {
  const ctx: KitContext = createContext(api, { baseUrl: server, timeoutMs: 0 }, '', target, capabilitiesOf(target, false));
  const prefix = new URL(server).pathname.replace(/\/$/, '');
  return (step) => {
    if (!step.request || !step.response) return undefined;
    // A body Respect did not keep (it stopped on the step with an error) is not an empty one: its own checks stand.
    if (step.response.body === undefined && (step.response.size ?? 0) > 0) return undefined;
    const url = new URL(step.request.url);
    if (url.origin !== new URL(server).origin || !url.pathname.startsWith(prefix)) return undefined;
    const op = operationOf(api, step.request.method, url.pathname.slice(prefix.length));
    if (!op) return undefined;
    const findings = checkResponse(ctx, op, asHttpResponse(step.response));
    const judged = (severity: 'failure' | 'warning') =>
      findings.filter((f) => f.severity === severity).map((f) => ({ name: RESPECT_NAME[f.rule] ?? `${f.rule} check`, message: f.message, ...(f.assumedReason ? { assumedReason: f.assumedReason } : {}) }));
    const schemaPointer = documentedResponse(op, step.response.statusCode)?.content.find((m) => isJsonMedia(m.type))?.schemaPointer;
    const assumedAt = (bodyPointer: string) => (schemaPointer ? assumedNameAt(api, schemaPointer, bodyPointer) : undefined);
    return { failed: judged('failure'), warnings: judged('warning'), assumedAt };
  };
}

/**
 * The x-assumed reason on the site of the property at `bodyPointer` (`/id`, `/balances/0/currency`) in the
 * schema at `schemaPointer`: the spec assumes that property's name (Recipient's `id`). Its value's own
 * assumptions (an id's format) are not about where the field is, so they are not read here.
 */
function assumedNameAt(api: ApiModel, schemaPointer: string, bodyPointer: string): string | undefined {
  let node = locate(api.doc, { $ref: schemaPointer }, schemaPointer)?.node;
  const segments = bodyPointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (const [i, segment] of segments.entries()) {
    if (!node) return undefined;
    const site = /^\d+$/.test(segment) ? node.items : propertySite(api, node, segment);
    if (i === segments.length - 1) return /^\d+$/.test(segment) ? undefined : assumedReasonOf(site);
    node = site === undefined ? undefined : locate(api.doc, site, '')?.node;
  }
  return undefined;
}

/** A property's site in an object schema or in the branches of its allOf/oneOf/anyOf. */
function propertySite(api: ApiModel, node: JsonObject, name: string): Json | undefined {
  if (isObject(node.properties) && name in node.properties) return node.properties[name];
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    for (const branch of Array.isArray(node[key]) ? node[key] : []) {
      const inner = locate(api.doc, branch, '')?.node;
      const site = inner && propertySite(api, inner, name);
      if (site !== undefined) return site;
    }
  }
  return undefined;
}

/** Respect's log keeps the body parsed (JSON) or as text; the kit's check reads the text. */
function asHttpResponse(response: NonNullable<RespectStep['response']>): HttpResponse {
  const body = response.body;
  const text = body === undefined || body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return { status: response.statusCode, headers: new Headers(response.headers ?? {}), text, ms: response.time ?? 0 };
}
