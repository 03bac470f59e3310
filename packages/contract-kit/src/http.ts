// One HTTP exchange as the wire shows it (status, headers, raw body text), and its curl reproduction with
// the API key replaced by $API_KEY.

export interface HttpRequest {
  method: string;
  /** Path and query, already encoded, e.g. `/v1/banking/transfers/abc`. */
  path: string;
  headers: Record<string, string>;
  /** The raw body text (JSON, or deliberately malformed JSON). */
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  ms: number;
}

export interface Exchange {
  request: HttpRequest;
  /** Undefined when no response came (network error, timeout); see `error`. */
  response: HttpResponse | undefined;
  error: string | undefined;
}

export interface Transport {
  baseUrl: string;
  timeoutMs: number;
  /** Called once per request sent (progress and counting). */
  onRequest?: () => void;
}

/**
 * Sends the request. A refused connection (ECONNREFUSED: nothing was sent, so nothing can have been
 * processed) is tried again twice after a short pause: under heavy connection churn on loopback a new
 * connection can hit a port still in the server's TIME_WAIT and be refused. Anything else is reported as is.
 */
export async function send(transport: Transport, request: HttpRequest): Promise<Exchange> {
  transport.onRequest?.();
  for (let attempt = 1; ; attempt++) {
    const ex = await sendOnce(transport, request);
    if (ex.response || !ex.error?.includes('ECONNREFUSED') || attempt >= 3) return ex;
    await new Promise((resolve) => setTimeout(resolve, 150 * attempt));
  }
}

async function sendOnce(transport: Transport, request: HttpRequest): Promise<Exchange> {
  const started = performance.now();
  try {
    const res = await fetch(`${transport.baseUrl}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
    const text = await res.text();
    return { request, response: { status: res.status, headers: res.headers, text, ms: performance.now() - started }, error: undefined };
  } catch (err) {
    return { request, response: undefined, error: describeError(err, transport.timeoutMs) };
  }
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no response within ${timeoutMs} ms`;
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : undefined;
  const code = cause && 'code' in cause ? ` (${String(cause.code)})` : '';
  return `${cause?.message ?? (err instanceof Error ? err.message : String(err))}${code}`;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command for the request; any header value containing the API key shows `$API_KEY` (or `$<placeholder>`) instead. */
export function toCurl(baseUrl: string, request: HttpRequest, apiKey: string, placeholder = 'API_KEY'): string {
  const parts = ['curl -sS -i', '-X', request.method];
  for (const [name, value] of Object.entries(request.headers)) {
    if (apiKey && value.includes(apiKey)) parts.push('-H', `"${name}: ${value.split(apiKey).map(escapeDouble).join(`$${placeholder}`)}"`);
    else parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (request.body !== undefined) parts.push('--data-raw', shellQuote(request.body));
  parts.push(shellQuote(`${baseUrl}${request.path}`));
  return parts.join(' ');
}

const escapeDouble = (s: string) => s.replace(/[\\"$`]/g, (c) => `\\${c}`);

export const contentTypeOf = (response: HttpResponse): string | null => response.headers.get('content-type');

/** The media type without parameters, lower case: `application/json; charset=utf-8` → `application/json`. */
export const essence = (contentType: string | null): string | null => (contentType ? contentType.split(';')[0]!.trim().toLowerCase() : null);

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
