// Stopping the HTTP server without waiting on sockets that carry no request. A browser opens connections
// before it has a request for them (Chromium's preconnect, a docs tab left open); Node counts such a socket
// as busy until its first request ends, so `server.close()` plus `closeIdleConnections()` waited for it up
// to `headersTimeout` (60 s): Ctrl-C on `npm start` with the docs open hung a minute before the store closed.
// Closing, a request a client already sent on a kept-alive connection may still sit unread in its socket: Node
// counts that socket idle, and `server.close()` cut it at once, so the client met a reset for a request it had
// sent (QA: 9 of 10 requests in flight at SIGTERM). So the listening socket is closed first, the connections get
// a short moment (DRAIN_MS) in which such requests are read and answered with `Connection: close`, and only
// then are the connections still without a request cut.
import { Server as NetServer } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long requests already being answered get to finish before their connections are cut. */
export const CLOSE_GRACE_MS = 5_000;
/** How long connections without a request are kept, closing, for a request already on its way to be read. */
export const DRAIN_MS = 250;

/** Counts the requests in progress on each connection; `close()` stops the server (see above). */
export function trackConnections(server: Server): { close(): Promise<void> } {
  const inProgress = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
    if (closing) res.setHeader('connection', 'close'); // Node ends the connection after this answer
    res.once('close', () => {
      const left = (inProgress.get(socket) ?? 1) - 1;
      // Closing: no next request on this socket. end(), not destroy(): the answer may still be in its buffer.
      if (closing && left === 0) socket.end();
      else if (inProgress.has(socket)) inProgress.set(socket, left);
    });
  });
  let cut = false;
  const cutIdle = () => {
    if (cut) return;
    cut = true;
    server.close(); // http's own close now: it cuts the idle connections and stops its timeout checks
    for (const [socket, requests] of inProgress) if (requests === 0) socket.destroy();
  };
  return {
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        // net's close: stops listening without http's closeIdleConnections(), which would cut them now.
        NetServer.prototype.close.call(server, () => {
          clearTimeout(drain);
          clearTimeout(grace);
          cutIdle(); // no connection is left: this only stops http's timeout checks
          resolve();
        });
        // setImmediate: after the timer, one more poll of the sockets (a loop late by more than DRAIN_MS, under
        // load, still reads what was sent before the cut).
        const drain = setTimeout(() => setImmediate(cutIdle), DRAIN_MS);
        // Requests in progress finish (their sockets are cut as they end), within a bounded grace.
        const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        grace.unref();
      }),
  };
}
