// A lean HTTP/1.1 keep-alive client for the load generator: one TCP socket, one request in flight (no
// pipelining: the same semantics as a node:http Agent socket), the request written as one prebuilt string,
// the answer framed by Content-Length (or chunked encoding) and read as text. It exists because node:http's
// client costs ~90 µs of CPU per request: on two cores the load generator would otherwise be the bottleneck
// for the fastest server (the bare node:http one) and flatter every ratio against it. Reconnects when the
// server closes the connection (or says `connection: close`); a request that outlives its deadline destroys
// the socket (the caller's sweep calls `expire`).
import { connect, type Socket } from 'node:net';

export interface Reply {
  status: number;
  text: string;
}

interface Parsed extends Reply {
  close: boolean;
}

const EMPTY = Buffer.alloc(0);

/** One complete response at the start of `buf`, or undefined while it is incomplete. Throws when malformed. */
function parse(buf: Buffer): Parsed | undefined {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = buf.toString('latin1', 0, headEnd).toLowerCase();
  if (!head.startsWith('http/1.')) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(head.slice(0, 40))}`);
  const status = Number(head.slice(9, 12));
  const close = /\r\nconnection:[ \t]*close/.test(head);
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:[ \t]*(\d+)/.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return buf.length < end ? undefined : { status, text: buf.toString('utf8', bodyStart, end), close };
  }
  if (/\r\ntransfer-encoding:[ \t]*chunked/.test(head)) {
    const parts: Buffer[] = [];
    let pos = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf('\r\n', pos);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(buf.toString('latin1', pos, lineEnd), 16);
      if (!Number.isInteger(size) || size < 0) throw new Error('malformed chunk size');
      if (size === 0) {
        // No trailers from our servers: the last chunk is `0\r\n\r\n`.
        return buf.length < lineEnd + 4 ? undefined : { status, text: Buffer.concat(parts).toString('utf8'), close };
      }
      const dataStart = lineEnd + 2;
      if (buf.length < dataStart + size + 2) return undefined;
      parts.push(buf.subarray(dataStart, dataStart + size));
      pos = dataStart + size + 2;
    }
  }
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { status, text: '', close };
  throw new Error(`response ${status} has neither content-length nor chunked encoding`);
}

export class RawHttpConnection {
  readonly host: string;
  readonly port: number;
  private socket: Socket | undefined;
  private buffer: Buffer = EMPTY;
  private waiter: { resolve: (reply: Reply) => void; reject: (err: Error) => void } | undefined;
  /** performance.now() when the request in flight was written; undefined when idle. */
  since: number | undefined;

  constructor(host: string, port: number) {
    this.host = host;
    this.port = port;
  }

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port });
      socket.setNoDelay(true);
      socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
      socket.on('error', (err) => this.fail(socket, err));
      socket.on('close', () => this.fail(socket, new Error('the server closed the connection')));
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
      this.socket = socket;
      this.buffer = EMPTY;
    });
  }

  private fail(socket: Socket, err: Error): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    socket.destroy();
    const waiter = this.waiter;
    this.waiter = undefined;
    this.since = undefined;
    waiter?.reject(err);
  }

  private onData(socket: Socket, chunk: Buffer): void {
    if (socket !== this.socket) return;
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let parsed: Parsed | undefined;
    try {
      parsed = parse(this.buffer);
    } catch (err) {
      this.fail(socket, err as Error);
      return;
    }
    if (!parsed) return;
    this.buffer = EMPTY;
    const waiter = this.waiter;
    this.waiter = undefined;
    this.since = undefined;
    if (parsed.close) {
      this.socket = undefined;
      socket.destroy();
    }
    if (waiter) waiter.resolve({ status: parsed.status, text: parsed.text });
    else this.fail(socket, new Error('an answer nobody asked for'));
  }

  /** Sends one request (`text`: head and body, complete) and resolves with the answer. */
  async request(text: string): Promise<Reply> {
    const socket = this.socket && !this.socket.destroyed ? this.socket : await this.open();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.since = performance.now();
      socket.write(text);
    });
  }

  /** Destroys the connection when its request has waited longer than `timeoutMs` (the caller sweeps). */
  expire(now: number, timeoutMs: number): void {
    if (this.since !== undefined && this.socket && now - this.since > timeoutMs) this.fail(this.socket, new Error(`no answer within ${timeoutMs} ms`));
  }

  close(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
  }
}
