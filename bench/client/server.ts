// The HTTP transport's server, run in its own process by run.ts (bench/lib/child-server.ts): node:http on
// 127.0.0.1, a free port, the same JSON the stub answers. It checks what a real server would need (the
// API key, a POST's Idempotency-Key and JSON body) and answers 400 otherwise, so a contender that sends
// the wrong request fails its check instead of being measured. It exits when its parent goes away.
import { createServer } from 'node:http';
import { API_KEY, BALANCE_PATH, TRANSFERS_PATH, balance, transfer } from './fixtures.ts';

const transferJson = JSON.stringify(transfer);
const balanceJson = JSON.stringify(balance);
const stats = { type: 'stats', requests: 0, rejected: 0 };

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    stats.requests++;
    const ok = (status: number, json: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(json);
    const authorized = req.headers['x-api-key'] === API_KEY;
    if (authorized && req.method === 'POST' && req.url === TRANSFERS_PATH) {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.headers['idempotency-key'] && req.headers['content-type'] === 'application/json' && body.startsWith('{')) return ok(201, transferJson);
    } else if (authorized && req.method === 'GET' && req.url === BALANCE_PATH) {
      return ok(200, balanceJson);
    }
    stats.rejected++;
    ok(400, JSON.stringify({ error: 'bench server: unexpected request', code: 'invalid_request', requestId: '00000000-0000-4000-8000-000000000000' }));
  });
});
server.keepAliveTimeout = 65_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (message) => {
  if (message === 'stats') process.send?.(stats);
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
