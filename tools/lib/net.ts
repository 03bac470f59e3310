// Whether a TCP server listens: how the tools tell that a server they started (PostgreSQL, Prism) is up.
import { connect } from 'node:net';

/** True when `host:port` accepts a connection within 2 s; the connection is closed at once. */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
