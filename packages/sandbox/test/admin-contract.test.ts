// The sandbox's admin contract (openapi-admin/) and its CLI (src/cli.ts), without a running server:
// - the document passes the admin lint steps (Redocly, bundle, Spectral with .spectral-admin.yaml);
// - every example validates against its schema with Ajv 2020-12 (as test/contract/examples.test.ts does for the
//   public document);
// - the CLI's command table has exactly one command per admin operation, and each builds that operation's request;
// - argv parsing, help, the token and URL rules, and how answers and failures are printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createValidator, deref, errorCatalog, exampleCases, isObject, loadSpec, missingExamples, operations, type Json, type JsonObject, type OpenApiDocument } from '@payments/spec';
import { lintAdminSpec } from '../../../tools/lib/admin-contract.ts';
import { allowedFaultKinds } from '../src/admin/routes.ts';
import { loadContract } from '../src/contract.ts';
import { ATTEMPT_RESOLUTIONS, FAULT_KINDS, PUBLIC_OPERATIONS, TRANSFER_STATUSES } from '../src/cli-commands.ts';
import { COMMANDS, DEFAULT_URL, plan, run, type AdminRequest, type Io } from '../src/cli.ts';

// ---- lint (into a temporary folder: packages/sandbox/dist belongs to the build) ----

const work = mkdtempSync(join(tmpdir(), 'admin-contract-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const out = { yaml: join(work, 'admin-openapi.yaml'), json: join(work, 'admin-openapi.json') };
const lintError: unknown = await lintAdminSpec(out).then(
  () => undefined,
  (err: unknown) => err,
);

describe('the admin document', () => {
  it('passes Redocly, the bundle and Spectral (.spectral-admin.yaml)', () => {
    expect(lintError instanceof Error ? lintError.message : lintError).toBeUndefined();
  });
});

// Everything below reads the bundle the lint step just wrote.
const doc: OpenApiDocument = loadSpec(out.json);
const validator = createValidator(doc);

// ---- every example validates (exampleCases of @payments/spec, as test/contract/examples.test.ts) ----

const cases = exampleCases(doc);

describe('admin examples', () => {
  it('exist for every operation: a request example for each body, a response example for each JSON response', () => {
    expect(missingExamples(doc, cases)).toEqual([]);
  });

  it.each(cases.map((c) => [c.where, c] as const))('%s validates against its schema', (_where, c) => {
    const validate = validator.compile(c.schema);
    const ok = validate(c.value);
    expect(ok, JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('error examples carry the code of their status (invalid_request 400, unauthorized 401, not_found 404, payload_too_large 413; a public rule\'s code at its public status)', () => {
    const publicCatalog = errorCatalog(loadSpec());
    const own: Record<string, string> = { invalid_request: '400', unauthorized: '401', not_found: '404', payload_too_large: '413' };
    const statusOf = new Proxy(own, { get: (t, code: string) => t[code] ?? publicCatalog.find((e) => e.code === code)?.status.toString() });
    for (const { method, path, operation } of operations(doc)) {
      for (const [status, raw] of Object.entries((operation.responses ?? {}) as JsonObject)) {
        if (!/^[45]/.test(status)) continue;
        const response = deref(doc, raw);
        const media = isObject(response) && isObject(response.content) ? response.content['application/json'] : undefined;
        const examples = isObject(media) && isObject(media.examples) ? media.examples : {};
        expect(Object.keys(examples).length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const name of Object.keys(examples)) expect(statusOf[name], `${method.toUpperCase()} ${path} ${status} example ${name}`).toBe(status);
      }
    }
  });
});

describe('what the admin document promises', () => {
  const publicDoc = loadSpec();
  const publicCatalog = errorCatalog(publicDoc);
  const texts = (value: Json, at = ''): { at: string; text: string }[] =>
    typeof value === 'string'
      ? [{ at, text: value }]
      : Array.isArray(value)
        ? value.flatMap((v, i) => texts(v, `${at}/${i}`))
        : isObject(value)
          ? Object.entries(value).flatMap(([k, v]) => texts(v, `${at}/${k}`))
          : [];

  it('every "<status> <code>" it cites of a public code is the status the public catalog gives that code', () => {
    const codes = new Map(publicCatalog.map((e) => [e.code, e.status]));
    let cited = 0;
    for (const { at, text } of texts(doc)) {
      for (const [, status, code] of text.matchAll(/\b(\d{3}) ([a-z][a-z0-9_]+)\b/g)) {
        if (!codes.has(code!)) continue;
        cited++;
        expect(Number(status), `${at}: ${status} ${code}`).toBe(codes.get(code!));
      }
    }
    expect(cited).toBeGreaterThan(5);
  });

  it('says what the public API answers for an inactive recipient: wallet 409 wallet_recipient_required, other rails 404 recipient_not_found', () => {
    const opDescription = (operationId: string) => String(operations(doc).find((o) => o.operationId === operationId)!.operation.description);
    const active = ((doc.components.schemas as JsonObject).WalletRecipientCreate as JsonObject).properties as JsonObject;
    const activeText = String((active.active as JsonObject).description);
    expect(activeText).toContain('409 wallet_recipient_required');
    expect(activeText).not.toContain('recipient_not_found');
    expect(opDescription('createWalletRecipient')).toContain('409 wallet_recipient_required');
    expect(opDescription('createWalletRecipient')).not.toContain('recipient_not_found');
    const deactivate = opDescription('deactivateRecipient');
    expect(deactivate).toMatch(/wallet recipient gets `409 wallet_recipient_required`/);
    expect(deactivate).toMatch(/any other rail `404 recipient_not_found`/);
  });

  it('every operation that takes a body documents the 413 of the body limit; every operation with a path id documents a 404', () => {
    for (const { method, path, operation } of operations(doc)) {
      const responses = (operation.responses ?? {}) as JsonObject;
      if (operation.requestBody) expect(Object.keys(responses), `${method} ${path}`).toContain('413');
      else expect(Object.keys(responses), `${method} ${path} takes no body`).not.toContain('413');
      if (path.includes('{')) expect(Object.keys(responses), `${method} ${path}`).toContain('404');
    }
  });

  it('lists, for each fault kind, the public operations it is allowed on: those the public contract documents its answer for', () => {
    const contract = loadContract(publicDoc);
    const description = String(operations(doc).find((o) => o.operationId === 'createFault')!.operation.description);
    // The three-column table (kind | documented answer | today's operations), not the four-column one above it.
    const row = (kind: string) => description.split('\n').find((line) => line.split('|').length === 5 && line.split('|')[1]!.includes(`\`${kind}\``));
    for (const kind of FAULT_KINDS) {
      const allowedOn = contract.operations.filter((op) => allowedFaultKinds(op).includes(kind)).map((op) => op.operationId);
      const line = row(kind);
      expect(line, `${kind} has a row in createFault's table of allowed operations`).toBeDefined();
      const cell = line!.split('|')[3]!.trim();
      if (allowedOn.length === contract.operations.length) expect(cell, kind).toBe('every operation');
      else expect(cell.split(', ').map((c) => c.replace(/`/g, '')).sort(), kind).toEqual([...allowedOn].sort());
    }
  });
});

// ---- the CLI covers the document ----

/** The enum of a component schema of the admin document. */
function enumOf(name: string): unknown[] {
  const schema = deref(doc, (doc.components.schemas as JsonObject)[name] ?? null);
  return isObject(schema) && Array.isArray(schema.enum) ? schema.enum : [];
}

/** For each operationId: one command line, and the request it must build (checked against the document too). */
const SAMPLES: Record<string, { argv: string[]; request: AdminRequest }> = {
  getHealth: { argv: ['health'], request: { method: 'GET', path: '/admin/health' } },
  createOrganization: {
    argv: ['org', 'create', '--name', 'Acme Imports', '--banking', '--cards', '--checkout', '--wallet-transfers', '--card-terms', '--checkout-pix', '--no-api-access', '--funding', 'BRL=1000.00,USD=50'],
    request: {
      method: 'POST',
      path: '/admin/organizations',
      body: { name: 'Acme Imports', apiAccess: false, banking: true, cards: true, checkout: true, walletTransfers: true, cardTermsAccepted: true, checkoutPix: true, funding: { BRL: '1000.00', USD: '50' } },
    },
  },
  listOrganizations: { argv: ['org', 'list'], request: { method: 'GET', path: '/admin/organizations' } },
  getOrganization: { argv: ['org', 'get', 'org_1'], request: { method: 'GET', path: '/admin/organizations/org_1' } },
  listApiKeys: { argv: ['key', 'list', 'org_1'], request: { method: 'GET', path: '/admin/organizations/org_1/api-keys' } },
  updateOrganization: {
    argv: ['org', 'update', 'org_1', '--banking=false', '--cards=true', '--funding', 'BRL=5', '--funding', 'USD=7.50'],
    request: { method: 'PATCH', path: '/admin/organizations/org_1', body: { banking: false, cards: true, funding: { BRL: '5', USD: '7.50' } } },
  },
  createApiKey: { argv: ['key', 'create', 'org_1'], request: { method: 'POST', path: '/admin/organizations/org_1/api-keys' } },
  revokeApiKey: { argv: ['key', 'revoke', 'key_1'], request: { method: 'POST', path: '/admin/api-keys/key_1/revoke' } },
  createWalletRecipient: {
    argv: ['wallet-recipient', 'create', 'org_1', '--nickname', 'Treasury wallet', '--address', '0x52908400098527886E0F7030069857D2E4169EE7', '--active'],
    request: {
      method: 'POST',
      path: '/admin/organizations/org_1/wallet-recipients',
      body: { nickname: 'Treasury wallet', destinationAddress: '0x52908400098527886E0F7030069857D2E4169EE7', active: true },
    },
  },
  activateRecipient: { argv: ['recipient', 'activate', 'org_1', 'rcp_1'], request: { method: 'POST', path: '/admin/organizations/org_1/recipients/rcp_1/activate' } },
  deactivateRecipient: { argv: ['recipient', 'deactivate', 'org_1', 'rcp_1'], request: { method: 'POST', path: '/admin/organizations/org_1/recipients/rcp_1/deactivate' } },
  setTransferStatus: {
    argv: ['transfer', 'status', 'org_1', 'trf_1', 'completed'],
    request: { method: 'POST', path: '/admin/organizations/org_1/transfers/trf_1/status', body: { status: 'completed' } },
  },
  resolveTransferAttempt: {
    argv: ['attempt', 'resolve', 'org_1', '--key', 'order-8c1f2e:transfer', '--resolution', 'completed'],
    request: { method: 'POST', path: '/admin/organizations/org_1/transfer-attempts/resolve', body: { idempotencyKey: 'order-8c1f2e:transfer', resolution: 'completed' } },
  },
  createFault: {
    argv: ['fault', 'add', '--operation', 'createTransfer', '--kind', 'unavailable', '--count', '5', '--org', 'org_1', '--commit', '--retry-after', '3', '--resolution', 'pending'],
    request: {
      method: 'POST',
      path: '/admin/faults',
      body: { operationId: 'createTransfer', kind: 'unavailable', count: 5, organizationId: 'org_1', commit: true, retryAfterSeconds: 3, resolution: 'pending' },
    },
  },
  listFaults: { argv: ['fault', 'list'], request: { method: 'GET', path: '/admin/faults' } },
  clearFaults: { argv: ['fault', 'clear'], request: { method: 'DELETE', path: '/admin/faults' } },
  getClock: { argv: ['clock', 'show', 'org_1'], request: { method: 'GET', path: '/admin/organizations/org_1/clock' } },
  freezeClock: { argv: ['clock', 'freeze', 'org_1', '--at', '2025-05-14T12:30:00Z'], request: { method: 'POST', path: '/admin/organizations/org_1/clock/freeze', body: { at: '2025-05-14T12:30:00Z' } } },
  advanceClock: { argv: ['clock', 'advance', 'org_1', '--ms', '60000'], request: { method: 'POST', path: '/admin/organizations/org_1/clock/advance', body: { milliseconds: 60000 } } },
  useRealTime: { argv: ['clock', 'real', 'org_1'], request: { method: 'DELETE', path: '/admin/organizations/org_1/clock' } },
  getJournal: { argv: ['journal', 'show', 'org_1'], request: { method: 'GET', path: '/admin/organizations/org_1/journal' } },
};

const ENV = { SANDBOX_ADMIN_TOKEN: 'admin-token' };

function requestOf(argv: string[], env: Record<string, string> = ENV): AdminRequest {
  const planned = plan(argv, env);
  if (planned.kind !== 'call') throw new Error(`${argv.join(' ')} planned ${planned.kind}`);
  return planned.request;
}

describe('the CLI command table', () => {
  const adminOperations = operations(doc);

  it('has exactly one command per admin operationId', () => {
    const ids = COMMANDS.map((c) => c.operationId);
    expect(new Set(ids).size, 'a duplicated operationId').toBe(ids.length);
    expect([...ids].sort()).toEqual(adminOperations.map((o) => o.operationId).sort());
  });

  it('names every command differently', () => {
    const names = COMMANDS.map((c) => c.words.join(' '));
    expect(new Set(names).size).toBe(names.length);
  });

  it('lists the allowed values of the admin document (and the public operationIds)', () => {
    // A new public operation is added to both lists by hand (the admin document is a document of its own).
    const where = 'PUBLIC_OPERATIONS in packages/sandbox/src/cli-commands.ts and the enum of openapi-admin/components/schemas/PublicOperationId.yaml';
    expect([...PUBLIC_OPERATIONS], where).toEqual(enumOf('PublicOperationId'));
    expect([...PUBLIC_OPERATIONS].sort(), `${where} list every operationId of the public spec`).toEqual(operations(loadSpec()).map((o) => o.operationId).sort());
    expect([...FAULT_KINDS]).toEqual(enumOf('FaultKind'));
    expect([...TRANSFER_STATUSES]).toEqual(enumOf('TransferStatus'));
    expect([...ATTEMPT_RESOLUTIONS]).toEqual(enumOf('AttemptResolution'));
  });

  it('names, for every option that sets a body field, a property of the operation\'s request body (a refusal naming the field names the option)', () => {
    for (const command of COMMANDS) {
      const op = adminOperations.find((o) => o.operationId === command.operationId)!;
      const body = deref(doc, op.operation.requestBody ?? null);
      const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
      const schema = isObject(media) ? deref(doc, media.schema ?? null) : undefined;
      const properties = isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : [];
      for (const [name, spec] of Object.entries(command.options)) expect(properties, `${command.words.join(' ')} --${name}`).toContain(spec.field ?? name);
    }
  });

  it('has a sample for every command', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(COMMANDS.map((c) => c.operationId).sort());
  });

  it.each(COMMANDS.map((c) => [c.words.join(' '), c] as const))('%s builds its operation\'s request', (_name, command) => {
    const sample = SAMPLES[command.operationId]!;
    const request = requestOf(sample.argv);
    expect(request).toEqual(sample.request);

    const op = adminOperations.find((o) => o.operationId === command.operationId)!;
    expect(request.method).toBe(op.method.toUpperCase());
    expect(request.path).toMatch(new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`));
    const body = deref(doc, op.operation.requestBody ?? null);
    const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined;
    if (isObject(media) && isObject(media.schema)) {
      expect(request.body, 'the operation takes a body').toBeDefined();
      const validate = validator.compile(media.schema);
      expect(validate(request.body), JSON.stringify(validate.errors)).toBe(true);
    } else {
      expect(request.body, 'the operation takes no body').toBeUndefined();
    }
  });
});

// ---- argv parsing ----

describe('CLI argument parsing', () => {
  it('fails with a clear error when no token is given', () => {
    expect(() => plan(['health'], {})).toThrow(/no admin token: set SANDBOX_ADMIN_TOKEN or pass --token/);
    expect(() => plan(['org', 'get', 'org_1'], { SANDBOX_URL: 'http://127.0.0.1:9' })).toThrow(/no admin token/);
  });

  it('takes the URL and token from options before the environment, with a default URL', () => {
    const fromEnv = plan(['health'], { SANDBOX_ADMIN_TOKEN: 'env-token', SANDBOX_URL: 'http://sandbox.local:9000/' });
    expect(fromEnv).toMatchObject({ kind: 'call', url: 'http://sandbox.local:9000', token: 'env-token' });
    const fromFlags = plan(['--url', 'http://127.0.0.1:1234', 'health', '--token=flag-token'], { SANDBOX_ADMIN_TOKEN: 'env-token', SANDBOX_URL: 'http://x' });
    expect(fromFlags).toMatchObject({ kind: 'call', url: 'http://127.0.0.1:1234', token: 'flag-token' });
    expect(plan(['health'], ENV)).toMatchObject({ url: DEFAULT_URL });
    expect(() => plan(['health', '--url', 'not a url'], ENV)).toThrow(/is not a URL/);
  });

  it('sends only the organization fields given, so create gets the server defaults', () => {
    expect(requestOf(['org', 'create'])).toEqual({ method: 'POST', path: '/admin/organizations', body: {} });
    expect(requestOf(['org', 'create', '--banking', '--api-access=false'])).toEqual({ method: 'POST', path: '/admin/organizations', body: { banking: true, apiAccess: false } });
    expect(requestOf(['org', 'update', 'org_1', '--no-checkout-pix'])).toMatchObject({ body: { checkoutPix: false } });
  });

  it('encodes path arguments', () => {
    expect(requestOf(['org', 'get', 'a/b?c'])).toMatchObject({ path: '/admin/organizations/a%2Fb%3Fc' });
  });

  it.each([
    [['org', 'get'], /org get: missing ORG/],
    [['org', 'get', 'a', 'b'], /org get: unexpected argument "b"/],
    [['recipient', 'activate', 'org_1'], /recipient activate: missing RECIPIENT/],
    [['org', 'frobnicate'], /unknown command "org frobnicate"; org commands: create, list, get, update/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['org', 'create', '--bogus'], /org create: Unknown option '--bogus'/],
    [['org', 'create', '--banking=maybe'], /org create: --banking takes true or false, got "maybe"/],
    [['org', 'create', '--funding', 'BRL'], /org create: --funding takes CURRENCY=AMOUNT pairs/],
    [['org', 'update', 'org_1'], /org update: nothing to change/],
    [['wallet-recipient', 'create', 'org_1', '--nickname', 'x'], /wallet-recipient create: --address is required/],
    [['attempt', 'resolve', 'org_1', '--key', 'k'], /attempt resolve: --resolution is required/],
    [['fault', 'add', '--operation', 'createTransfer', '--kind', 'unavailable'], /fault add: --count is required/],
    [['fault', 'add', '--operation', 'createTransfer', '--kind', 'unavailable', '--count', 'five'], /fault add: --count must be a whole number, got "five"/],
  ] as const)('%j is refused: %s', (argv, message) => {
    expect(() => plan(argv, ENV)).toThrow(message);
  });

  it('gives help without a token: general, per group, per command (with its examples)', () => {
    const general = plan(['--help'], {});
    expect(general.kind).toBe('help');
    for (const c of COMMANDS) expect(general.kind === 'help' && general.text).toContain(c.words.join(' '));
    expect(plan([], {}).kind).toBe('help');
    expect(plan(['fault'], {})).toMatchObject({ kind: 'help', text: expect.stringContaining('fault add') });
    for (const c of COMMANDS) {
      const help = plan([...c.words, '--help'], {});
      expect(help.kind).toBe('help');
      for (const example of c.examples) expect(help.kind === 'help' && help.text).toContain(example);
      expect(plan(['help', ...c.words], {})).toEqual(help);
      expect(plan([...c.words, '-h'], {})).toEqual(help);
    }
  });
});

// ---- output and failures (a stub fetch: no server) ----

function io(respond: (url: string, init: RequestInit) => Response | Promise<Response>, tty = false) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const calls: { url: string; init: RequestInit }[] = [];
  const value: Io = {
    env: { SANDBOX_ADMIN_TOKEN: 'admin-token', SANDBOX_URL: 'http://127.0.0.1:8080' },
    stdout: { write: (s: string) => stdout.push(s), isTTY: tty },
    stderr: { write: (s: string) => stderr.push(s) },
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(input), init: init ?? {} });
      return respond(String(input), init ?? {});
    }) as typeof fetch,
  };
  return { io: value, stdout, stderr, calls };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('CLI output', () => {
  it('sends the bearer token and JSON body, and prints the answer as one JSON line', async () => {
    const t = io(() => json(201, { id: 'flt_1', remaining: 5 }));
    const code = await run(['fault', 'add', '--operation', 'createTransfer', '--kind', 'unavailable', '--count', '5'], t.io);
    expect(code).toBe(0);
    expect(t.stdout.join('')).toBe('{"id":"flt_1","remaining":5}\n');
    expect(t.stderr).toEqual([]);
    const [call] = t.calls;
    expect(call!.url).toBe('http://127.0.0.1:8080/admin/faults');
    expect(call!.init.method).toBe('POST');
    expect(call!.init.headers).toMatchObject({ authorization: 'Bearer admin-token', 'content-type': 'application/json' });
    expect(JSON.parse(String(call!.init.body))).toEqual({ operationId: 'createTransfer', kind: 'unavailable', count: 5 });
  });

  it('indents the JSON on a terminal, and prints nothing for a 204', async () => {
    const tty = io(() => json(200, { ok: true, store: 'sqlite' }), true);
    expect(await run(['health'], tty.io)).toBe(0);
    expect(tty.stdout.join('')).toBe('{\n  "ok": true,\n  "store": "sqlite"\n}\n');
    const empty = io(() => new Response(null, { status: 204 }));
    expect(await run(['fault', 'clear'], empty.io)).toBe(0);
    expect(empty.stdout).toEqual([]);
    expect(empty.calls[0]!.init.method).toBe('DELETE');
  });

  it('prints the server\'s error as one line: exit 1 for a failed request (401), 2 for values it refused (400, QA)', async () => {
    const unauthorized = io(() => json(401, { error: 'Admin token required.', code: 'unauthorized', requestId: 'r-1' }));
    expect(await run(['health'], unauthorized.io)).toBe(1);
    expect(unauthorized.stderr.join('')).toBe('error: 401 unauthorized: Admin token required. [requestId r-1] (check --token or SANDBOX_ADMIN_TOKEN)\n');
    expect(unauthorized.stdout).toEqual([]);

    const invalid = io(() => json(400, { error: 'Body /count must be <= 100000.', code: 'invalid_request', requestId: 'r-2' }));
    expect(await run(['fault', 'add', '--operation', 'createTransfer', '--kind', 'unavailable', '--count', '200000'], invalid.io)).toBe(2);
    expect(invalid.stderr.join('')).toBe('error: 400 invalid_request: --count must be <= 100000. [requestId r-2]\n');
    const nested = io(() => json(400, { error: 'Body /funding/BRL must match pattern "x". Body /other is unknown.', code: 'invalid_request', requestId: 'r-3' }));
    expect(await run(['org', 'create', '--funding', 'BRL=abc'], nested.io)).toBe(2);
    expect(nested.stderr.join('')).toBe('error: 400 invalid_request: --funding (at /BRL) must match pattern "x". Body /other is unknown. [requestId r-3]\n');
  });

  it('reports a non-JSON error, an unreachable server and a bad command line as one line each', async () => {
    const edge = io(() => new Response('<html>\n<body>Bad gateway</body>\n</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(await run(['health'], edge.io)).toBe(1);
    expect(edge.stderr.join('')).toBe('error: 502 Bad Gateway: <html> <body>Bad gateway</body> </html>\n');

    const refused = io(() => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' }) });
    });
    expect(await run(['health'], refused.io)).toBe(1);
    expect(refused.stderr.join('')).toBe('error: cannot reach the sandbox at http://127.0.0.1:8080 (ECONNREFUSED); is it running? (--url or SANDBOX_URL)\n');

    const usage = io(() => json(200, {}));
    expect(await run(['org', 'get'], usage.io)).toBe(2);
    expect(usage.calls).toEqual([]);
    expect(usage.stderr.join('')).toMatch(/^error: org get: missing ORG .*\n$/);
  });
});

describe('the CLI as a command', () => {
  const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const exec = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 });

  it('prints help and exits 0', () => {
    const result = exec(['--help'], {});
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: node tools/launch.mjs packages/sandbox/src/cli.ts <command>');
  });

  it('exits 2 with one line on stderr when there is no token', () => {
    const result = exec(['health'], {});
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: health: no admin token/)]);
  });
});
