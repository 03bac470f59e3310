// The command line: argv (and two environment fallbacks) → RunOptions, or a usage error (exit code 2).
import { parseArgs } from 'node:util';
import { UsageError } from './run.ts';
import type { RunOptions } from './types.ts';

export const DEFAULT_RUNS = 25;
export const DEFAULT_TIMEOUT_MS = 10_000;

export const HELP = `Contract tests of a Payments API server against the bundled OpenAPI spec.

Usage:
  payments-contract-kit --base-url URL --api-key KEY [options]   (pnpm exec payments-contract-kit …)
  node packages/contract-kit/src/cli.ts --base-url URL --api-key KEY [options]

Checks every response (documented status, content type, body schema, headers; x-assumed mismatches are
warnings with their reason), fast-check generated VALID and MUTATED requests per operation (failures shrink
to a minimal curl), auth probes (no key, malformed, unknown, Bearer; a revoked key with --admin-token),
and stateful probes (idempotent replay, transfer idempotency conflict). Works against Prism's mock
(detected; stateful probes are then skipped with a warning), the sandbox or a real server.

Contract tests of a client (does it follow the payment rules under faults?):
  payments-contract-kit client [options] -- <command>    (see client --help)

Options:
  --base-url URL        the server, e.g. http://127.0.0.1:8080 (required)
  --api-key KEY         an API key of an organization with the products enabled
                        (default: $PAYMENTS_API_KEY, which keeps it out of \`ps\`)
  --admin-token T       the sandbox admin token: enables the revoked-key probe
                        (default: $SANDBOX_ADMIN_TOKEN)
  --seed N              replay a run: the same generated requests in the same order
                        (Idempotency-Keys and unique names stay fresh). Default: random, printed
  --runs N              generated requests per property (valid, invalid) and operation (default ${DEFAULT_RUNS})
  --operations a,b      only these operationIds (default: all)
  --json FILE           write the JSON report
  --junit FILE          write a JUnit XML report (one testcase per check)
  --timeout-ms N        per-request timeout (default ${DEFAULT_TIMEOUT_MS})
  --target T            auto (default: Prism is detected by Prefer: code=…), prism or server
  --strict-503          an inconclusive answer is a failure: a documented 503 (or the edge's 502/504),
                        where the kit cannot tell a transient outage from a server bug. Without it they are
                        warnings, counted per operation in the "inconclusive" column. Use it in CI
  -h, --help            this help

Exit code: 0 no failures, 1 failures, 2 usage error. A summary goes to stdout, progress to stderr.
The sandbox limits a key to 600 requests per 15 minutes (cards: 60): keep --runs moderate against it.
`;

export interface CliOptions extends RunOptions {
  json: string | undefined;
  junit: string | undefined;
}

export type Parsed = { help: true } | { help: false; options: CliOptions };

export function parseCli(argv: string[], env: Readonly<Record<string, string | undefined>> = process.env): Parsed {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'admin-token': { type: 'string' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        operations: { type: 'string' },
        json: { type: 'string' },
        junit: { type: 'string' },
        'timeout-ms': { type: 'string' },
        target: { type: 'string' },
        'strict-503': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return { help: true };
  const str = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const baseUrl = str('base-url');
  if (!baseUrl) throw new UsageError('--base-url is required');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url must be an absolute URL, got "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http(s), got "${baseUrl}"`);
  const apiKey = str('api-key') ?? env.PAYMENTS_API_KEY;
  if (!apiKey) throw new UsageError('--api-key is required (or set PAYMENTS_API_KEY)');
  const target = str('target') ?? 'auto';
  if (target !== 'auto' && target !== 'prism' && target !== 'server') throw new UsageError(`--target must be auto, prism or server, got "${target}"`);
  const seedText = str('seed');
  const seed = seedText === undefined ? randomSeed() : integer('--seed', seedText, -(2 ** 31), 2 ** 31 - 1);
  const operations = (str('operations') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (str('operations') !== undefined && operations.length === 0) throw new UsageError('--operations needs at least one operationId');
  return {
    help: false,
    options: {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      adminToken: str('admin-token') ?? env.SANDBOX_ADMIN_TOKEN,
      seed,
      runs: integer('--runs', str('runs'), 1, 10_000, DEFAULT_RUNS),
      operations,
      timeoutMs: integer('--timeout-ms', str('timeout-ms'), 100, 600_000, DEFAULT_TIMEOUT_MS),
      target,
      strict503: values['strict-503'] === true,
      json: str('json'),
      junit: str('junit'),
    },
  };
}

function integer(name: string, text: string | undefined, min: number, max: number, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new UsageError(`${name} is required`);
    return fallback;
  }
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`${name} must be an integer, got "${text}"`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

const randomSeed = () => crypto.getRandomValues(new Int32Array(1))[0]! & 0x7fffffff;
