// static-files.ts: content negotiation by Accept-Encoding, ETags and 304s, precompressed siblings used only
// when fresh, on a real loopback server.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaticFiles, negotiateEncoding, type Encoding } from '../src/static-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'static-files-'));
const page = Buffer.from('<!doctype html><title>docs</title>' + '<p>payments '.repeat(2000));
const tiny = '{"sandbox":true}';
let server: Server;
let base: string;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (a: Answer) =>
  a.headers['content-encoding'] === 'br' ? brotliDecompressSync(a.body) : a.headers['content-encoding'] === 'gzip' ? gunzipSync(a.body) : a.body;

beforeAll(async () => {
  writeFileSync(join(dir, 'index.html'), page);
  // A stale precompressed sibling (older than the page, and of other content) must be ignored.
  writeFileSync(join(dir, 'index.html.gz'), gzipSync('stale'));
  const old = new Date(Date.now() - 60_000);
  utimesSync(join(dir, 'index.html.gz'), old, old);
  writeFileSync(join(dir, 'fresh.txt'), page);
  writeFileSync(join(dir, 'fresh.txt.gz'), gzipSync('precompressed by the build'));
  // The published sandbox ships the docs page as index.html.br only (no raw file): its bytes come from the .br.
  writeFileSync(join(dir, 'shipped.html.br'), brotliCompressSync(page));
  const files = createStaticFiles({
    '/docs/': { file: join(dir, 'index.html'), type: 'text/html; charset=utf-8' },
    '/fresh.txt': { file: join(dir, 'fresh.txt'), type: 'text/plain' },
    '/shipped/': { file: join(dir, 'shipped.html'), type: 'text/html; charset=utf-8' },
    '/console.json': { body: tiny, type: 'application/json', cacheControl: 'no-store' },
    '/': { redirect: '/docs/', type: 'text/html' },
  });
  server = createServer((req, res) => {
    if (!files.serve(req, res)) res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('negotiateEncoding', () => {
  const all = new Set<Encoding>(['br', 'gzip', 'identity']);
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['identity;q=0, gzip;q=0', undefined],
    ['*;q=0', undefined],
    ['*;q=0, identity', 'identity'],
    ['BR', 'br'],
  ] as const)('Accept-Encoding %j → %s', (header, expected) => {
    expect(negotiateEncoding(header, all)).toBe(expected);
  });
  it('only picks what is available', () => {
    expect(negotiateEncoding('br, gzip', new Set<Encoding>(['identity']))).toBe('identity');
  });
});

describe('serving', () => {
  it('sends brotli, gzip or raw bytes by Accept-Encoding, each decoding to the file, with its own ETag', async () => {
    const answers = await Promise.all(['br', 'gzip', 'identity'].map((ae) => get('/docs/', { 'accept-encoding': ae })));
    expect(answers.map((a) => a.headers['content-encoding'])).toEqual(['br', 'gzip', undefined]);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(decoded(a).equals(page)).toBe(true); // the stale .gz sibling was not used
      expect(a.headers['vary']).toBe('Accept-Encoding');
      expect(a.headers['cache-control']).toBe('no-cache');
      expect(Number(a.headers['content-length'])).toBe(a.body.length);
    }
    expect(answers[0]!.body.length).toBeLessThan(page.length / 10);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(3);
  });

  it('uses a precompressed sibling as it is when it is at least as new as the file', async () => {
    const a = await get('/fresh.txt', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(a.body).toString()).toBe('precompressed by the build');
  });

  it('answers 304 without a body when If-None-Match names the content (weak or strong, in a list)', async () => {
    const first = await get('/docs/', { 'accept-encoding': 'br' });
    const etag = first.headers.etag!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get('/docs/', { 'accept-encoding': 'br', 'if-none-match': ifNoneMatch });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(etag);
    }
    expect((await get('/docs/', { 'accept-encoding': 'br', 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('answers HEAD with the headers only, 406 when no encoding is acceptable, and leaves other paths and methods alone', async () => {
    const head = await get('/docs/', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await get('/docs/', { 'accept-encoding': 'identity;q=0, *;q=0' })).status).toBe(406);
    expect((await get('/elsewhere')).status).toBe(418);
    expect((await get('/docs/', {}, 'POST')).status).toBe(418);
  });

  it('redirects a path to another (the site\'s root to its docs), GET and HEAD only', async () => {
    const root = await get('/');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/docs/');
    expect(root.body.length).toBe(0);
    expect((await get('/', {}, 'HEAD')).status).toBe(302);
    expect((await get('/', {}, 'POST')).status).toBe(418);
  });

  it('sends a small body raw, with its own Cache-Control', async () => {
    const a = await get('/console.json', { 'accept-encoding': 'br, gzip' });
    expect(a.headers['content-encoding']).toBeUndefined();
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.body.toString()).toBe(tiny);
  });

  it('serves a file shipped only as its .br sibling: raw bytes decompressed from it, the .br itself as br', async () => {
    const raw = await get('/shipped/');
    expect(raw.status).toBe(200);
    expect(raw.headers['content-encoding']).toBeUndefined();
    expect(raw.body.equals(page)).toBe(true);
    const br = await get('/shipped/', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(page)).toBe(true);
    const gz = await get('/shipped/', { 'accept-encoding': 'gzip' });
    expect(gunzipSync(gz.body).equals(page)).toBe(true);
  });

  it('refuses to start when a file cannot be read, naming it', () => {
    expect(() => createStaticFiles({ '/x': { file: join(dir, 'missing.html'), type: 'text/html' } })).toThrow(/\/x: cannot read .*missing\.html/);
  });
});
