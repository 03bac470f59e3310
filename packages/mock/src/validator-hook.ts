// Loaded into Prism's process (`node --import`, by payments-mock (cli.ts) and tools/lib/prism.ts), with its
// corrections (PATCHES). First, it gives Prism's request and response validator the `multipleOf` ours has
// (useExactMultipleOf, from @payments/spec), so `multipleOf: 0.01` means "at most two decimal places" there
// too. Without it Prism's Ajv divides doubles exactly (0.07 / 0.01 = 7.000000000000001) and refuses 1,363 of
// the 10,000 valid two-decimal amounts up to 100.00; with a fixed tolerance (Ajv's `multipleOfPrecision`, what this hook gave before) it still refused
// about one large amount in ten (114533670.82).
//
// Why a load hook and not a derived schema: no JSON Schema that Ajv evaluates with float division says
// "at most two decimal places" for every number (k/100 is not a binary fraction, so x / d is inexact for some
// k whatever the divisor d), and Prism exposes no Ajv options. Prism builds its Ajv instances in one function,
// `createAjvInstances`, in @stoplight/prism-http's validator/validators/utils.js: this hook wraps it as the
// module is loaded, and fails Prism's start when that text is not found (a Prism upgrade must revisit it;
// test/mock/prism.test.ts sends all 10,000 amounts up to 100.00 and large ones). Second, the proxy passes
// bodies on as they came, both ways: Prism parses a JSON body to validate it and sent it on re-serialized, which
// changed numbers (99999999999999.99 reached the server as 99999999999999.98, an answer's 1.10 came back as 1.1);
// now each parsed body's text is kept (RAW_JSON) and is what is sent, and a body that is not JSON is kept as its
// text, so the mock answers it, the proxy forwards it, and an answer that is not JSON is passed on and flagged
// instead of becoming Prism's 500. Third, an undocumented status is an error (test/mock/proxy.test.ts). Fourth,
// a request with two Idempotency-Key headers gets the 400 the spec says the API answers it, and a path or a body
// that ended Prism's process is made safe first (BEFORE_PRISM, RAW_JSON).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { registerHooks } from 'node:module';
import { useExactMultipleOf } from '@payments/spec/decimal';
import { nestedTooDeep } from '@payments/spec/json-depth';

const INSTALL = Symbol.for('@payments/mock: exact multipleOf');
(globalThis as Record<symbol, unknown>)[INSTALL] = useExactMultipleOf;

/** The text each parsed JSON body (an object or array) came as: what the proxy sends on, so no number changes. */
const RAW_JSON = Symbol.for('@payments/mock: raw JSON');
const texts = new WeakMap<object, string>();
(globalThis as Record<symbol, unknown>)[RAW_JSON] = {
  /**
   * `text` parsed when it is a JSON object or array (every body of the API is one); any other text stays text, a
   * JSON string or number included: the validator flags it as it would the value, and it is passed on as it came
   * (a string value would be sent without its quotes).
   */
  parse(text: string): unknown {
    // Too deep to parse safely (a 10 KB body of 5,000 levels ended Prism's process: edge QA): kept as text,
    // flagged by the validator, answered by the server (the sandbox's 400).
    if (nestedTooDeep(text)) return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return text;
    }
    if (value === null || typeof value !== 'object') return text;
    texts.set(value, text);
    return value;
  },
  /** The text a parsed body came as; undefined for a body Prism made (the mock's answers). */
  textOf: (value: unknown): string | undefined => (value !== null && typeof value === 'object' ? texts.get(value) : undefined),
};
/** Code in a patch that reaches RAW_JSON's functions. */
const raw = `globalThis[Symbol.for(${JSON.stringify(RAW_JSON.description)})]`;

/**
 * What happens to a request before Prism reads it (true: answered here).
 * - A path Prism cannot decode (`%ZZ`, or `%FF`: not percent-encoded UTF-8) ended its process with an uncaught
 *   URIError (edge QA). Its `%` signs become `%25`: Prism reads the path as the text it is, the mock answers it,
 *   and the proxy forwards it so (a server that decodes it gets that same text; no id holds it).
 * - A request with two Idempotency-Key headers is answered `400 invalid_request`, as the spec's Idempotency-Key
 *   parameters say the API answers it. Node joins repeated headers into one value ("a, b") before Prism sees
 *   them: the mock answered 201, and the proxy sent the joined value on as one key, which the client's plain
 *   retry would not match (QA). The proxy cannot send the two headers on as they came, so neither mode lets it through.
 */
const BEFORE_PRISM = Symbol.for('@payments/mock: before Prism');
(globalThis as Record<symbol, unknown>)[BEFORE_PRISM] = (request: IncomingMessage, reply: ServerResponse): boolean => {
  request.url = decodablePath(request.url ?? '/');
  if ((request.headersDistinct['idempotency-key']?.length ?? 0) < 2) return false;
  request.resume(); // the body is not read: drained, so the connection stays usable
  const body = JSON.stringify({ error: 'Idempotency-Key header must be sent once.', code: 'invalid_request', requestId: randomUUID() });
  reply.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  return true;
};

/** `url` with the `%` signs of a path that does not decode written `%25` (the query as it is). */
function decodablePath(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  try {
    decodeURIComponent(path);
    return url;
  } catch {
    return path.replace(/%/g, '%25') + (query === -1 ? '' : url.slice(query));
  }
}

/** A change to one of Prism's modules as it loads: `replace` where `anchor` is; a module without it fails the start. */
interface Patch {
  target: string;
  anchor: string;
  /** Text the replacement relies on, besides the anchor. */
  requires?: string;
  replace: string;
  /** What Prism does without it. */
  without: string;
}

const PATCHES: Patch[] = [
  {
    // Before Prism reads anything of the request.
    target: '/@stoplight/prism-http-server/dist/server.js',
    anchor: 'const { url, method, headers } = request;',
    replace: `if (globalThis[Symbol.for(${JSON.stringify(BEFORE_PRISM.description)})](request, reply)) return;\n        const { url, method, headers } = request;`,
    without: 'two Idempotency-Key headers become one key ("a, b"), and a path that does not decode ends the process',
  },
  {
    // Runs in utils.js, before its instances are made: each Ajv it creates gets the exact multipleOf.
    target: '/@stoplight/prism-http/dist/validator/validators/utils.js',
    anchor: 'const ajvInstances = {',
    requires: 'function createAjvInstances(Ajv)',
    replace: `{ const create = createAjvInstances, install = globalThis[Symbol.for(${JSON.stringify(INSTALL.description)})];
  createAjvInstances = (Ajv) => { const made = create(Ajv); install(made.coerce); install(made.noCoerce); return made; }; }
const ajvInstances = {`,
    without: 'the exact multipleOf is NOT applied',
  },
  {
    // A request's JSON body, parsed with its text kept. One that does not parse is kept as its text, as Prism keeps
    // a body of another media type: the validator then flags it (not an object), the mock answers it, and the
    // proxy forwards it as sent, so the server answers it. Prism itself never answered such a request (its parse
    // error was left unhandled).
    target: '/@stoplight/prism-http-server/dist/server.js',
    anchor: "return (0, micri_1.json)(request, { limit: '10mb' });",
    replace: `return (0, micri_1.text)(request, { limit: '10mb' }).then((text) => ${raw}.parse(text));`,
    without: 'a malformed JSON body is never answered',
  },
  {
    // The proxy forwards a request's body as its text, not re-serialized.
    target: '/@stoplight/prism-http/dist/forwarder/index.js',
    anchor: 'function serializeBody(body) {',
    replace: `function serializeBody(body) {\n    const text = ${raw}.textOf(body);\n    if (text !== undefined) return E.right(text);`,
    without: "a forwarded request's numbers may change (its body is re-serialized)",
  },
  {
    // The forwarded request's framing is node-fetch's (the body with its own Content-Length): a client's
    // Transfer-Encoding passed on beside it made a message the server must refuse (RFC 9112, 6.1; edge QA: every
    // chunked request through the proxy was the sandbox's 400).
    target: '/@stoplight/prism-http/dist/forwarder/index.js',
    anchor: "(0, lodash_1.omit)(input.headers, ['host'])",
    replace: "(0, lodash_1.omit)(input.headers, ['host', 'transfer-encoding', 'content-length'])",
    without: 'a chunked request is forwarded with Transfer-Encoding and Content-Length both, which the server refuses',
  },
  {
    // The server's answer, parsed with its text kept; one that is not JSON is kept as its text (then flagged).
    target: '/@stoplight/prism-http/dist/utils/parseResponse.js',
    anchor: '? response.json()',
    replace: `? response.text().then((text) => ${raw}.parse(text))`,
    without: "an answer's numbers may change, and one that is not JSON becomes Prism's 500",
  },
  {
    // An answer is sent as the text it came as; Prism's own (the mock's) are serialized as before. A JSON answer
    // that did not parse is that text too, as it came.
    target: '/@stoplight/prism-http-server/dist/serialize.js',
    anchor: 'serializer: JSON.stringify,',
    replace: `serializer: (value) => (typeof value === 'string' ? value : (${raw}.textOf(value) ?? JSON.stringify(value))),`,
    without: "an answer's numbers may change (it is re-serialized)",
  },
  {
    // A status the operation does not document is a violation (an Error) whatever its class: Prism rated only
    // an undocumented 2xx so, and let an undocumented 4xx or 5xx through --errors as a Warning.
    target: '/@stoplight/prism-http/dist/validator/index.js',
    anchor: 'severity: (0, lodash_1.inRange)(statusCode, 200, 300) ? types_1.DiagnosticSeverity.Error : types_1.DiagnosticSeverity.Warning,',
    replace: 'severity: types_1.DiagnosticSeverity.Error,',
    without: 'an undocumented 4xx or 5xx is only a warning',
  },
];

const applied = new Set<Patch>();
registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    const patches = PATCHES.filter((p) => url.endsWith(p.target));
    if (patches.length === 0) return result;
    let source = String(result.source);
    for (const patch of patches) {
      const missing = [patch.anchor, ...(patch.requires ? [patch.requires] : [])].find((text) => !source.includes(text));
      if (missing) {
        throw new Error(`prism-validator-hook: ${patch.target} no longer contains "${missing}"; Prism changed, revisit packages/mock/src/validator-hook.ts`);
      }
      applied.add(patch);
      source = source.replace(patch.anchor, patch.replace);
    }
    return { ...result, source };
  },
});

// Prism loads these modules while starting; if one never was, say so instead of running unpatched.
process.on('exit', () => {
  for (const patch of PATCHES) if (!applied.has(patch)) process.stderr.write(`prism-validator-hook: ${patch.target} was never loaded; ${patch.without}\n`);
});
