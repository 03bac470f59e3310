// HTTP plumbing: bounded body reading, JSON responses (never CORS headers), structured log lines.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { OperationContract } from './contract.ts';
import { Failure } from './failure.ts';
import { jsonLine } from './problems.ts';

export class BodyTooLarge extends Error {}

/**
 * The connection ended before the request's body was complete: the client went away, or sent bytes that are
 * not HTTP (Node's 'clientError' answered those). Not a failure of the sandbox, and no one left to answer.
 */
export class RequestAborted extends Error {}

const EMPTY_BODY: Buffer = Buffer.alloc(0);

/**
 * The body of an operation that takes one (or documents a size limit), refused over `limit` bytes with the
 * operation's documented 413 (else invalid_request); any other operation ignores a body, unread: never a
 * 413 the spec does not document.
 */
export async function readRequestBody(req: IncomingMessage, res: ServerResponse, op: OperationContract, limit: number): Promise<Buffer> {
  if (!op.hasBody && !op.bodyLimited) {
    req.resume();
    return EMPTY_BODY;
  }
  try {
    return await readBody(req, limit);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    throw new Failure(op.payloadTooLargeCode ?? 'invalid_request', op.payloadTooLargeCode ? undefined : `Request body larger than ${limit} bytes.`);
  }
}

/**
 * How much of a refused body is read and thrown away, and for how long, so that a client still sending it hears
 * the 413 (nginx's lingering close): a connection closed with unread bytes is reset, and the reset discards
 * the answer the client had not read yet (the kit's 1 MiB probe met EPIPE under load). Read to its end, the
 * body leaves the connection usable; beyond either bound it is cut.
 */
const DISCARD_BYTES = 16 * 1024 * 1024;
const DISCARD_MS = 10_000;

/** Reads the rest of a refused body without keeping it (`seen`: bytes already read), within the bounds above. */
function discardRest(req: IncomingMessage, seen: number): void {
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, DISCARD_MS).unref();
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARD_BYTES) cut();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/** Reads the whole body, refusing more than `limit` bytes without buffering them (the rest is discarded). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      discardRest(req, 0);
      return reject(new BodyTooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        discardRest(req, size);
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', (err: Error & { code?: string }) => {
      reject(err.code === 'ECONNRESET' ? new RequestAborted('the connection ended before the request body was complete', { cause: err }) : err);
    });
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
  /** The status answered; 0 when no answer was sent (the connection was dropped, by a fault or by the client). */
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

/**
 * One JSON line per request. A 5xx answer, and no answer at all (status 0: a connection dropped by a fault or
 * by the client; QA), is a `warn` (a client has to handle it), never an `error`: that level
 * is what the sandbox reports about itself (problems.ts), so that a CI step failing on it is not set off by every
 * 503 a test injected (QA). A bug's 500 has its own `error` line too.
 */
export const jsonLogger =
  (write: (text: string) => void = (t) => process.stdout.write(t)): Logger =>
  (line) =>
    write(jsonLine(line.status >= 500 || line.status === 0 ? 'warn' : 'info', line));

/** Node's refusals before any handler runs ('clientError'), by error code: status, reason, code, message. */
const CLIENT_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request_headers_too_large', 'Request headers are larger than the server accepts (16 KiB).'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'The request did not arrive completely within the server\'s time limit.'],
};
const NOT_HTTP: [number, string, string, string] = [400, 'Bad Request', 'invalid_request', 'The request is not valid HTTP.'];

/**
 * Node's answer to a request it refuses before any handler runs (server 'clientError'), in the shared error
 * body instead of Node's bare one: headers over its limit get 431, a request too slow to arrive 408, anything
 * else that is not HTTP 400. A connection already reset gets nothing. Answers leave in the order of the
 * requests (RFC 9112, 9.3.2): when the bad bytes follow a request still being served on the connection, its
 * answer goes first (QA: a transfer was made and its 201 lost to this 400, which tells a client nothing was done).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  // The answer Node is writing to this socket, if any (pipelined answers after it are attached in turn). Its
  // request read whole, the bad bytes came after it; otherwise they are that request's (a body cut short).
  const serving = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (serving && !serving.writableFinished && serving.req.complete) return void serving.once('finish', () => setImmediate(() => answerClientError(err, socket)));
  const [status, reason, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? NOT_HTTP;
  const body = JSON.stringify({ error: message, code, requestId: randomUUID() });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112, 3.2). Node's own refusal of a request without one is a bare 400
 * (the server is created with `requireHostHeader: false`): this one answers with the shared body instead.
 */
export function refusedWithoutHost(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return false;
  req.resume();
  sendJson(res, 400, { error: 'An HTTP/1.1 request must carry a Host header.', code: 'invalid_request', requestId: randomUUID() }, { connection: 'close' });
  return true;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a body, or undefined when its bytes are not UTF-8 (never U+FFFD in place of them). */
export function utf8Text(raw: Buffer): string | undefined {
  try {
    return strictUtf8.decode(raw);
  } catch {
    return undefined;
  }
}
