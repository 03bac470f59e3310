// Stopping the HTTP server without waiting on sockets that carry no request. A browser opens connections
// before it has a request for them (Chromium's preconnect, a docs tab left open); Node counts such a socket
// as busy until its first request ends, so `server.close()` plus `closeIdleConnections()` waited for it up
// to `headersTimeout` (60 s): Ctrl-C on `npm start` with the docs open hung a minute before the store closed.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long requests already being answered get to finish before their connections are cut. */
export const CLOSE_GRACE_MS = 5_000;

/** Counts the requests in progress on each connection; `close()` stops the server (see above). */
export function trackConnections(server: Server): { close(): Promise<void> } {
  const inProgress = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    inProgress.set(socket, 0);
    socket.once('close', () => inProgress.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inProgress.get(socket) ?? 1) - 1;
      if (!server.listening && left === 0) socket.destroy(); // closing: no next request on this socket
      else if (inProgress.has(socket)) inProgress.set(socket, left);
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
        for (const [socket, requests] of inProgress) if (requests === 0) socket.destroy();
        // Requests in progress finish (their sockets are cut as they end), within a bounded grace.
        const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        grace.unref();
      }),
  };
}
