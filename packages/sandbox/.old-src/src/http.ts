// HTTP plumbing: bounded body reading, JSON responses (never CORS headers), structured log lines.
import type { IncomingMessage, ServerResponse } from 'node:http';

export class BodyTooLarge extends Error {}

/** Reads the whole body, refusing more than `limit` bytes without buffering them. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume(); // drain the rest without keeping it
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** sendJson for a body already serialized. */
export function sendJsonText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const head = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  res.writeHead(status, headers ? { ...head, ...headers } : head);
  res.end(text);
}

/** Characters a request path may hold that Node's URL parser keeps as they are (no %-escapes, no dot segments). */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/**
 * The path of a request target, as `new URL(target, base).pathname` gives it; the parser runs only where it
 * would change something. A target the parser refuses (`/\\`, which it reads as `//` with no host) is
 * returned as it came: it names no operation, so it gets the 404 body instead of an exception.
 */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (PLAIN_PATH.test(path) && !path.includes('/.')) return path;
  try {
    return new URL(target, 'http://sandbox').pathname;
  } catch {
    return path;
  }
}

/** What the edge network answers with: a 502/504 without the JSON error body. */
export function sendEdge(res: ServerResponse, status: 502 | 504): void {
  const text = `<html><body><h1>${status} ${status === 502 ? 'Bad Gateway' : 'Gateway Timeout'}</h1></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export interface LogLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  operationId?: string;
  organizationId?: string;
  /** The API key's id (never the key, nor its prefix: a log scan for `svc_live_` must come back empty). */
  keyId?: string;
  code?: string;
  fault?: string;
}

export type Logger = (line: LogLine) => void;

export const jsonLogger =
  (write: (text: string) => void = (t) => process.stdout.write(t)): Logger =>
  (line) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level: line.status >= 500 ? 'error' : 'info', ...line })}\n`);
