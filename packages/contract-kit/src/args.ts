// The command line: argv (and two environment fallbacks) → RunOptions, or a usage error (exit code 2).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from './run.ts';
import type { RunOptions } from './types.ts';

/** Why a command-line URL is not an absolute http(s) URL, or undefined when it is (each option words its message). */
export function httpUrlProblem(value: string): 'not absolute' | 'not http(s)' | undefined {
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    return 'not absolute';
  }
  return protocol === 'http:' || protocol === 'https:' ? undefined : 'not http(s)';
}

export const DEFAULT_RUNS = 25;
export const DEFAULT_TIMEOUT_MS = 10_000;

export const HELP = `Contract tests of a Payments API server against the bundled OpenAPI spec.

Usage:
  payments-contract-kit --base-url URL --api-key KEY [options]   a server, against the spec (this help)
  payments-contract-kit client [options] -- <command> [args…]    a client's traffic, against the provider's
                                                                 rules (client --help)
  payments-contract-kit workflows [options]                      the provider's flows as Arazzo workflows,
                                                                 run by Redocly Respect (workflows --help)

Every response is checked (documented status, content type, body schema, headers, error codes at their
catalog status; x-assumed mismatches are warnings with their reason). The checks form a registry
(--list-checks): a deterministic coverage phase (every constraint broken once, every boundary hit), fast-check
VALID and MUTATED requests (failures shrink to a minimal curl), auth probes, idempotent replay, conflict and
concurrent same-key probes, the spec's links followed and read back, organization isolation, CORS, and with
--admin-token the provider and organization states (faults, 403s, card terms, checkout PIX) and the limits.
A check the target cannot answer (Prism's stateless mock) is listed as not applicable.

Contract tests of a client (does it follow the payment rules under faults?):
  payments-contract-kit client [options] -- <command>    (see client --help)

Options:
  --base-url URL        the server, e.g. http://127.0.0.1:8080 (required)
  --api-key KEY         an API key of an organization with the products enabled
                        (default: $PAYMENTS_API_KEY, which keeps it out of \`ps\`)
  --admin-token T       the sandbox admin token (default: $SANDBOX_ADMIN_TOKEN): the kit makes its own
                        organization and as many keys as the rate limit needs, and runs the checks that
                        need the admin API (revoked key, isolation, faults, organization states, rate limit)
  --other-api-key KEY   a key of a second organization with the same products (default:
                        $PAYMENTS_OTHER_API_KEY): the isolation check without the admin API (a staging server)
  --seed N              replay a run: the same generated requests in the same order
                        (Idempotency-Keys and unique names stay fresh). Default: random, printed
  --runs N              generated requests per property (valid, invalid) and operation (default ${DEFAULT_RUNS})
  --operations a,b      only these operationIds (default: all)
  --json FILE           write the JSON report
  --junit FILE          write a JUnit XML report (one testcase per check)
  --timeout-ms N        per-request timeout (default ${DEFAULT_TIMEOUT_MS})
  --target T            auto (default: Prism is detected by Prefer: code=…), prism or server
  --checks a,b          only these checks (ids: --list-checks); default: all that apply
  --exclude-checks a,b  leave these checks out
  --config FILE         a JSON file with any of these options by their long names (the command line wins)
  --allow-skips         a skipped check (a 429, a setup the server refused) does not fail the run
  --max-wait-s N        without --admin-token the run paces itself within the spec's x-rate-limit and
                        waits at most N s in total (default 900); past that, 429s are reported
  --list-checks         every check: id, what it needs, the rule it corresponds to
  --strict-503          an inconclusive answer is a failure: a documented 503 (or the edge's 502/504),
                        where the kit cannot tell a transient outage from a server bug. Without it they are
                        warnings, counted per operation in the "inconclusive" column. Use it in CI
  -h, --help            this help
  -v, --version         the package version (alone)

Exit code: 0 passed, 1 a check failed (or was skipped, without --allow-skips), 2 usage error (a --json or
--junit file that cannot be written included, checked before the run). A summary
goes to stdout, progress to stderr. With --admin-token the kit provisions its own organization and as many
keys as the rate limit needs; without it, it paces one key (600 requests per 15 minutes, cards 60).
`;

export interface CliOptions extends RunOptions {
  json: string | undefined;
  junit: string | undefined;
}

export type Parsed = { help: true } | { listChecks: true; help: false } | { help: false; listChecks?: false; options: CliOptions };

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
        'other-api-key': { type: 'string' },
        seed: { type: 'string' },
        runs: { type: 'string' },
        operations: { type: 'string' },
        json: { type: 'string' },
        junit: { type: 'string' },
        'timeout-ms': { type: 'string' },
        target: { type: 'string' },
        'strict-503': { type: 'boolean' },
        checks: { type: 'string' },
        'exclude-checks': { type: 'string' },
        config: { type: 'string' },
        'allow-skips': { type: 'boolean' },
        'max-wait-s': { type: 'string' },
        'list-checks': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return { help: true };
  if (values['list-checks']) return { help: false, listChecks: true };
  const config = readConfig(typeof values.config === 'string' ? values.config : undefined);
  // The command line wins over the config file, which wins over the defaults.
  const str = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : typeof config[name] === 'string' ? (config[name] as string) : undefined);
  const flag = (name: string) => values[name] === true || config[name] === true;
  const baseUrl = str('base-url');
  if (!baseUrl) throw new UsageError('--base-url is required');
  const problem = httpUrlProblem(baseUrl);
  if (problem === 'not absolute') throw new UsageError(`--base-url must be an absolute URL, got "${baseUrl}"`);
  if (problem) throw new UsageError(`--base-url must be http(s), got "${baseUrl}"`);
  // A secret given on the command line must not be empty; an empty environment variable counts as unset
  // (`PAYMENTS_OTHER_API_KEY= npx payments-contract-kit …` is a run with one key, not a second organization).
  const secret = (option: string, variable: string): string | undefined => {
    const given = str(option);
    if (given !== undefined && given.trim() === '') throw new UsageError(`--${option} is empty: give a value, or leave the option out`);
    return given ?? (env[variable] || undefined);
  };
  const apiKey = secret('api-key', 'PAYMENTS_API_KEY');
  if (!apiKey) throw new UsageError('--api-key is required (or set PAYMENTS_API_KEY)');
  const otherApiKey = secret('other-api-key', 'PAYMENTS_OTHER_API_KEY');
  if (otherApiKey !== undefined && otherApiKey === apiKey) throw new UsageError('--other-api-key must be a key of ANOTHER organization than --api-key');
  const target = str('target') ?? 'auto';
  if (target !== 'auto' && target !== 'prism' && target !== 'server') throw new UsageError(`--target must be auto, prism or server, got "${target}"`);
  const seedText = str('seed');
  const seed = seedText === undefined ? randomSeed() : integer('--seed', seedText, -(2 ** 31), 2 ** 31 - 1);
  const list = (name: string) =>
    (str(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const operations = list('operations');
  if (str('operations') !== undefined && operations.length === 0) throw new UsageError('--operations needs at least one operationId');
  return {
    help: false,
    options: {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      apiKey,
      adminToken: secret('admin-token', 'SANDBOX_ADMIN_TOKEN'),
      otherApiKey,
      seed,
      runs: integer('--runs', str('runs'), 1, 10_000, DEFAULT_RUNS),
      operations,
      timeoutMs: integer('--timeout-ms', str('timeout-ms'), 100, 600_000, DEFAULT_TIMEOUT_MS),
      target,
      strict503: flag('strict-503'),
      checks: list('checks'),
      excludeChecks: list('exclude-checks'),
      allowSkips: flag('allow-skips'),
      maxWaitS: integer('--max-wait-s', str('max-wait-s'), 0, 86_400, 900),
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

/**
 * A JSON config file (--config): the long option names as keys, e.g. `{"checks": ["coverage", "valid"],
 * "runs": 50, "allow-skips": true}`. Lists may be arrays; numbers may be numbers. Secrets stay in the
 * environment.
 */
function readConfig(file: string | undefined): Record<string, string | boolean> {
  if (file === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--config ${file}: not a JSON object`);
  const allowed = new Set(['base-url', 'seed', 'runs', 'operations', 'timeout-ms', 'target', 'strict-503', 'checks', 'exclude-checks', 'allow-skips', 'max-wait-s', 'json', 'junit']);
  const out: Record<string, string | boolean> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!allowed.has(key)) throw new UsageError(`--config ${file}: unknown key "${key}" (allowed: ${[...allowed].join(', ')})`);
    out[key] = Array.isArray(value) ? value.map(String).join(',') : typeof value === 'boolean' ? value : String(value);
  }
  return out;
}
