// A tiny static file server for the rendered docs, on loopback only. No dependency: the docs are one
// self-contained HTML file, so this serves a folder with the few content types it holds.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface StaticServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves `dir` on 127.0.0.1 (port 0 = any free port); `routes` maps extra URL paths to files. */
export async function serveStatic(dir: string, opts: { port?: number; routes?: Record<string, string> } = {}): Promise<StaticServer> {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const file = opts.routes?.[path] ?? join(dir, normalize(path === '/' ? '/index.html' : path));
    if (!opts.routes?.[path] && !file.startsWith(dir + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
