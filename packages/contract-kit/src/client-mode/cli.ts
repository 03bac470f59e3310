// `payments-contract-kit client [options] -- <command> [args…]`: contract-tests a CLIENT. Starts a sandbox
// (or uses --base-url and --admin-token), runs each named fault scenario in an organization of its own,
// runs the command once per scenario with the URL, key and scenario in its environment, audits what it
// sent (the sandbox's traffic journal) and reports. Exit 0: no finding; 1: a finding or a scenario that
// could not be judged; 2: usage.
import { parseArgs } from 'node:util';
import { startSandbox } from '@payments/sandbox';
import { unwritableReport, writeReports } from '../report/write.ts';
import { commandDrive, commandFound } from './command.ts';
import { renderClientSummary, stderrClientProgress, toClientJson, toClientJunit } from './report.ts';
import { admin, AdminError, type SandboxAccess } from './provision.ts';
import { runClientMode } from './run.ts';
import { pickScenarios, SCENARIOS } from './scenarios.ts';

export const CLIENT_HELP = `Contract tests of a CLIENT: does it follow the provider's payment rules when the outcome is unknown?

Usage:
  payments-contract-kit client [options] -- <command> [args…]

For each scenario the kit provisions an organization (every product on, funded), an API key, a clock and
(transfers) a PIX recipient, arms the scenario's faults for that organization, runs <command> once with:
  PAYMENTS_BASE_URL, PAYMENTS_API_KEY      where and as whom to call the API
  PAYMENTS_SCENARIO, PAYMENTS_OPERATION    the scenario, and the one payment to make: createTransfer
                                           (to PAYMENTS_RECIPIENT_ID), issueCard or createCheckoutSession (PIX)
  PAYMENTS_RECIPIENT_ID                    transfer scenarios
  with --test-clock also PAYMENTS_ORGANIZATION_ID, SANDBOX_URL, SANDBOX_ADMIN_TOKEN: the client's sleep may
  advance the organization's clock instead (POST $SANDBOX_URL/admin/organizations/$PAYMENTS_ORGANIZATION_ID/clock/advance
  {"milliseconds": N}, header authorization: Bearer $SANDBOX_ADMIN_TOKEN), so a 60-second wait takes milliseconds
then audits the organization's traffic journal: every finding names the rule (section and words of the
provider's document), the requests as evidence and what the client should have done.

Scenarios (default: all):
${SCENARIOS.map((s) => `  ${s.name.padEnd(32)} ${s.title}`).join('\n')}

Options:
  --base-url URL      a running sandbox (default: start one in memory on 127.0.0.1)
  --admin-token T     its admin token (default: $SANDBOX_ADMIN_TOKEN); required with --base-url
  --scenario a,b      only these scenarios (repeatable)
  --test-clock        freeze each scenario's clock (the client must advance it to wait); default: real time,
                      about a minute per 503 scenario
  --repeat N          run each scenario N times (default 1); with 2 or more, identical increased delays in
                      every run are reported (no jitter: "increase the delay with jitter", section 3)
  --timeout-ms N      stop a command after N ms per scenario (default 600000): a failure (client_timed_out)
  --json FILE         write the JSON report
  --junit FILE        write a JUnit XML report (a testcase per scenario, a failure per finding)
  -h, --help          this help

Exit code: 0 no finding, 1 findings (or a scenario the client sent nothing for), 2 usage error (a sandbox
at --base-url that does not answer, a report file that cannot be written included).
`;

class UsageError extends Error {}

interface ClientCliOptions {
  baseUrl: string | undefined;
  adminToken: string | undefined;
  scenarios: string[];
  testClock: boolean;
  timeoutMs: number;
  repeat: number;
  json: string | undefined;
  junit: string | undefined;
  command: string[];
}

export function parseClientCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): { help: true } | { help: false; options: ClientCliOptions } {
  const dashes = argv.indexOf('--');
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const command = dashes === -1 ? [] : argv.slice(dashes + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...own],
      options: {
        'base-url': { type: 'string' },
        'admin-token': { type: 'string' },
        scenario: { type: 'string', multiple: true },
        'test-clock': { type: 'boolean' },
        'timeout-ms': { type: 'string' },
        repeat: { type: 'string' },
        json: { type: 'string' },
        junit: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message.split('. ')[0]! : String(err));
  }
  if (values.help) return { help: true };
  if (!command.length) throw new UsageError('no command: give the client to test after `--` (e.g. -- node my-client.js)');
  const adminToken = values['admin-token'] || env.SANDBOX_ADMIN_TOKEN || undefined;
  if (values['base-url'] && !adminToken) throw new UsageError('--base-url needs --admin-token (or $SANDBOX_ADMIN_TOKEN): the kit provisions through the admin API');
  const timeoutMs = values['timeout-ms'] === undefined ? 600_000 : Number(values['timeout-ms']);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new UsageError(`--timeout-ms takes a positive whole number, got ${values['timeout-ms']}`);
  const repeat = values.repeat === undefined ? 1 : Number(values.repeat);
  if (!Number.isSafeInteger(repeat) || repeat < 1 || repeat > 100) throw new UsageError(`--repeat takes a whole number from 1 to 100, got ${values.repeat}`);
  const scenarios = (values.scenario ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  try {
    pickScenarios(scenarios);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return {
    help: false,
    options: { baseUrl: values['base-url']?.replace(/\/+$/, ''), adminToken, scenarios, testClock: values['test-clock'] === true, timeoutMs, repeat, json: values.json, junit: values.junit, command },
  };
}

export async function clientMain(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseClientCli(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`contract-kit client: ${err.message}\nRun with client --help for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(CLIENT_HELP);
    return 0;
  }
  const { options } = parsed;
  const unwritable = unwritableReport([['--json', options.json], ['--junit', options.junit]]);
  if (unwritable) {
    process.stderr.write(`contract-kit client: ${unwritable}; nothing was run.\nRun with client --help for usage.\n`);
    return 2;
  }
  if (!commandFound(options.command[0]!)) {
    process.stderr.write(`contract-kit client: cannot start the client command "${options.command[0]}": no such executable file${options.command[0]!.includes('/') ? '' : ' on PATH'}; nothing was run.\nRun with client --help for usage.\n`);
    return 2;
  }
  if (options.baseUrl) {
    // The token the user gave, checked once: refused, it would make every scenario an ERROR of its own.
    const stop = await adminRefusal({ baseUrl: options.baseUrl, adminToken: options.adminToken! });
    if (stop) {
      process.stderr.write(`contract-kit client: ${stop.message}\n`);
      return stop.code;
    }
  }
  // Our own sandbox's request log counts its 401s: a request without the scenario's key in x-api-key has no
  // organization, so no journal shows it (another sandbox's log is not ours to read).
  let refused401 = 0;
  const sandbox = options.baseUrl ? undefined : await startSandbox({ logger: (line) => void (line.status === 401 && !line.path.startsWith('/admin/') && refused401++) });
  if (sandbox) process.stderr.write(`contract-kit client: started a sandbox at ${sandbox.url} (in memory)\n`);
  try {
    // A sandbox of our own is provisioned with its own token (a $SANDBOX_ADMIN_TOKEN of another one is not used).
    const access = sandbox ? { baseUrl: sandbox.url, adminToken: sandbox.adminToken } : { baseUrl: options.baseUrl!, adminToken: options.adminToken! };
    const report = await runClientMode({
      ...access,
      scenarios: pickScenarios(options.scenarios),
      testClock: options.testClock,
      repeat: options.repeat,
      drive: commandDrive(options.command, { adminToken: access.adminToken, testClock: options.testClock, timeoutMs: options.timeoutMs }),
      ...(sandbox ? { refused401: () => refused401 } : {}),
      progress: stderrClientProgress(),
    });
    process.stdout.write(renderClientSummary(report));
    const written = writeReports(
      [
        [options.json, () => toClientJson(report)],
        [options.junit, () => toClientJunit(report)],
      ],
      'contract-kit client',
    );
    return !written ? 2 : report.totals.failed > 0 ? 1 : 0;
  } finally {
    await sandbox?.close();
  }
}

/**
 * GET /admin/health with the given token: a refusal (401/403) is a usage error (exit 2) naming the option, and
 * so is a sandbox that does not answer it, each said once instead of as an error per scenario.
 */
async function adminRefusal(access: SandboxAccess): Promise<{ code: number; message: string } | undefined> {
  try {
    await admin(access, 'GET', '/health');
    return undefined;
  } catch (err) {
    if (!(err instanceof AdminError)) throw err;
    if (err.status === 401 || err.status === 403) {
      return { code: 2, message: `the sandbox at ${access.baseUrl} refused the admin token (--admin-token or $SANDBOX_ADMIN_TOKEN): GET /admin/health answered ${err.message.replace(/^GET \/admin\/health: /, '').replace(/ \(check --admin-token\)$/, '')}; nothing was run. Check the token (payments-sandbox prints it)` };
    }
    // The sandbox is the run's equipment, not what is tested: a client is not at fault for it (QA: exit 1 read as findings).
    return { code: 2, message: `the admin API of ${access.baseUrl} is not usable (${err.message}); nothing was run` };
  }
}
