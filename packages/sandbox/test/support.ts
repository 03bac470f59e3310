// Test support: a running sandbox (embedded or PostgreSQL), an admin helper, and raw HTTP calls that keep
// status, headers and body, so tests assert exactly what a client would see on the wire.
import { request } from 'node:http';
import { startSandbox, type RunningSandbox, type StartOptions } from '../src/sandbox.ts';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function call(base: string, method: string, path: string, opts: { key?: string; idem?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.idem) headers['idempotency-key'] = opts.idem;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A request fetch refuses to send (a GET with a body): status and text only. */
export function rawCall(base: string, method: string, path: string, headers: Record<string, string | string[]>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

export function adminOf(sandbox: { url: string; adminToken: string }) {
  /** The admin reply as it is, refusals included. */
  const send = (method: string, path: string, opts: { body?: unknown; raw?: string } = {}) =>
    call(sandbox.url, method, `/admin${path}`, { ...opts, headers: { authorization: `Bearer ${sandbox.adminToken}`, ...(opts.raw === undefined ? {} : { 'content-type': 'application/json' }) } });
  const req = async (method: string, path: string, body?: unknown) => {
    const reply = await send(method, path, body === undefined ? {} : { body });
    if (reply.status >= 300) throw new Error(`admin ${method} ${path} → ${reply.status} ${reply.text}`);
    return reply.body;
  };
  return {
    req,
    send,
    async org(flags: Record<string, unknown> = {}) {
      const org = await req('POST', '/organizations', { banking: true, cards: true, checkout: true, funding: { BRL: '10000.00', USD: '5000.00' }, ...flags });
      const key = await req('POST', `/organizations/${org.id}/api-keys`);
      return { org, key: key.key as string, keyId: key.id as string };
    },
    update: (orgId: string, patch: Record<string, unknown>) => req('PATCH', `/organizations/${orgId}`, patch),
    fault: (fault: Record<string, unknown>) => req('POST', '/faults', fault),
  };
}

export type SandboxFactory = () => Promise<RunningSandbox & { cleanup?: () => Promise<void> }>;

export const embedded: SandboxFactory = () => startSandbox({});
export const withOptions = (options: StartOptions): SandboxFactory => () => startSandbox(options);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
