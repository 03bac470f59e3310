// The static files the sandbox serves next to the API (by `npm start` and the docs test): the rendered docs,
// the bundled spec, a favicon and small generated bodies such as the docs console's settings. Everything is
// read and compressed ONCE, when the sandbox starts (or taken precompressed from the build: a fresh
// `<file>.br` / `<file>.gz` next to the file is used as it is), never per request. A request picks brotli,
// gzip or the raw bytes by `Accept-Encoding` (q-values honoured), and gets a strong ETag per encoding,
// `Cache-Control`, `Vary: Accept-Encoding`, and a 304 when its `If-None-Match` names the current content.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from 'node:zlib';
import { pathOf } from './http.ts';

export type Encoding = 'br' | 'gzip' | 'identity';

export interface StaticFile {
  /** Content type sent as `content-type`. */
  type: string;
  /** A file read at start … */
  file?: string;
  /** … or the body itself (e.g. a generated JSON). */
  body?: string | Buffer;
  /** Default `no-cache`: browsers keep it but revalidate (a cheap 304), since a rebuild changes it. */
  cacheControl?: string;
  /** Instead of a body: a 302 to this path (the site's root leads to the docs). */
  redirect?: string;
}

interface Prepared {
  redirect?: string | undefined;
  type: string;
  cacheControl: string;
  /** One body and ETag per encoding; compressed ones only when they are smaller than the raw bytes. */
  variants: Map<Encoding, { body: Buffer; etag: string }>;
}

/** Bodies below this size are sent raw: compressing them saves less than the headers cost. */
const MIN_COMPRESS_BYTES = 1024;
const PREFERENCE: Encoding[] = ['br', 'gzip', 'identity'];

/**
 * A precompressed sibling (`index.html.br`) counts when it is at least as new as the file it compresses, or
 * when that file is absent (the published sandbox ships the docs page only compressed: see readRaw).
 */
function precompressed(file: string, suffix: string): Buffer | undefined {
  const sibling = `${file}${suffix}`;
  if (!existsSync(sibling) || (existsSync(file) && statSync(sibling).mtimeMs < statSync(file).mtimeMs)) return undefined;
  return readFileSync(sibling);
}

/** A file's bytes; a file shipped only as its brotli sibling is decompressed once (2.6 MB less in the package). */
function readRaw(file: string): Buffer {
  if (!existsSync(file) && existsSync(`${file}.br`)) return brotliDecompressSync(readFileSync(`${file}.br`));
  return readFileSync(file);
}

function prepare(path: string, spec: StaticFile): Prepared {
  if (spec.redirect !== undefined) return { redirect: spec.redirect, type: spec.type, cacheControl: 'no-cache', variants: new Map() };
  if (spec.file === undefined && spec.body === undefined) throw new Error(`static file ${path}: give a file or a body`);
  let raw: Buffer;
  try {
    raw = spec.file !== undefined ? readRaw(spec.file) : Buffer.from(spec.body!);
  } catch (err) {
    throw new Error(`static file ${path}: cannot read ${spec.file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const hash = createHash('sha256').update(raw).digest('base64url').slice(0, 27);
  const variants: Prepared['variants'] = new Map([['identity', { body: raw, etag: `"${hash}"` }]]);
  if (raw.length >= MIN_COMPRESS_BYTES) {
    const br =
      (spec.file ? precompressed(spec.file, '.br') : undefined) ??
      brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gz = (spec.file ? precompressed(spec.file, '.gz') : undefined) ?? gzipSync(raw, { level: 9 });
    if (br.length < raw.length) variants.set('br', { body: br, etag: `"${hash}-br"` });
    if (gz.length < raw.length) variants.set('gzip', { body: gz, etag: `"${hash}-gz"` });
  }
  return { type: spec.type, cacheControl: spec.cacheControl ?? 'no-cache', variants };
}

/**
 * The encoding to send for an `Accept-Encoding` header, among those available: the preferred one (br, then
 * gzip) with the highest q-value above 0; identity unless the header refuses it (`identity;q=0` or `*;q=0`
 * without an identity entry), in which case undefined (406).
 */
export function negotiateEncoding(header: string | undefined, available: ReadonlySet<Encoding>): Encoding | undefined {
  const q = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (encoding: Encoding) => q.get(encoding) ?? q.get('*') ?? (encoding === 'identity' ? 1 : 0);
  let best: Encoding | undefined;
  for (const encoding of PREFERENCE) {
    if (!available.has(encoding) || weight(encoding) <= 0) continue;
    if (best === undefined || weight(encoding) > weight(best)) best = encoding;
  }
  return best;
}

/** Whether an `If-None-Match` header names one of the tags (weak comparison, as RFC 9110 asks for it). */
function matchesAny(header: string, etags: string[]): boolean {
  if (header.trim() === '*') return true;
  const wanted = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return wanted.some((t) => etags.includes(t));
}

export interface StaticFiles {
  /** Answers the request when its path is a static file and returns true; returns false otherwise. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** The paths served, for logs and tests. */
  paths(): string[];
}

/** Reads and compresses every file now; throws (naming the path) when one cannot be read. */
export function createStaticFiles(files: Record<string, StaticFile>): StaticFiles {
  const prepared = new Map(Object.entries(files).map(([path, spec]) => [path, prepare(path, spec)]));
  return {
    paths: () => [...prepared.keys()],
    serve(req, res) {
      if (prepared.size === 0 || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
      const file = prepared.get(pathOf(req.url ?? '/'));
      if (!file) return false;
      if (file.redirect !== undefined) {
        res.writeHead(302, { location: file.redirect, 'content-length': 0 }).end();
        return true;
      }
      const encoding = negotiateEncoding(req.headers['accept-encoding'], new Set(file.variants.keys()));
      const common = { vary: 'Accept-Encoding', 'cache-control': file.cacheControl };
      if (!encoding) {
        res.writeHead(406, { ...common, 'content-type': 'text/plain' }).end('No acceptable content encoding (br, gzip or identity).\n');
        return true;
      }
      const variant = file.variants.get(encoding)!;
      const headers = { ...common, etag: variant.etag };
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch && matchesAny(ifNoneMatch, [...file.variants.values()].map((v) => v.etag))) {
        res.writeHead(304, headers).end();
        return true;
      }
      res.writeHead(200, {
        ...headers,
        'content-type': file.type,
        'content-length': variant.body.length,
        ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
      });
      res.end(req.method === 'HEAD' ? undefined : variant.body);
      return true;
    },
  };
}
