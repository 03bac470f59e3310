// The sandbox's admin CLI: `node tools/launch.mjs packages/sandbox/src/cli.ts <command> [options]`, one command per admin
// operation (the table is cli-commands.ts). Node built-ins only. Prints the response's JSON on stdout (indented
// on a terminal, one line otherwise); a failure is one line on stderr and a non-zero exit code (2: the command
// line is wrong, 1: the request failed).
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { COMMANDS, UsageError, type AdminRequest, type Command, type OptionSpec, type OptionValues } from './cli-commands.ts';

export { COMMANDS, UsageError } from './cli-commands.ts';
export type { AdminRequest, Command } from './cli-commands.ts';

// How the help names this CLI: the repository's path, or `payments-sandbox admin` from the package (Io.prog).
let PROG = 'node tools/launch.mjs packages/sandbox/src/cli.ts';
export const DEFAULT_URL = 'http://127.0.0.1:8080';
const TIMEOUT_MS = 30_000;

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  url: { type: 'string', value: 'URL', help: `the sandbox (default: $SANDBOX_URL, else ${DEFAULT_URL})` },
  token: { type: 'string', value: 'TOKEN', help: 'the admin token (default: $SANDBOX_ADMIN_TOKEN, which keeps it out of `ps`)' },
  help: { type: 'boolean', help: 'show help (also after a command: `org create --help`)' },
};

export type Env = Readonly<Record<string, string | undefined>>;

export type Plan =
  | { kind: 'help'; text: string }
  | { kind: 'call'; command: Command; request: AdminRequest; url: string; token: string };

/** The request failed: unreachable, timed out, or answered with an error status. */
export class RequestError extends Error {}
/** The admin API refused the command's values (400): a wrong command line the server caught, exit 2 like one. */
class RefusedValues extends RequestError {}

// ---- argv → plan ----

const commandName = (c: Command) => c.words.join(' ');
const isGlobalValueOption = (t: string) => t === '--url' || t === '--token';

/** Indices of the leading bare words of argv (at most two), skipping global options and their values. */
function wordIndices(argv: readonly string[]): number[] {
  const found: number[] = [];
  for (let i = 0; i < argv.length && found.length < 2; i++) {
    const t = argv[i]!;
    if (isGlobalValueOption(t)) i++;
    else if (!t.startsWith('-')) found.push(i);
    else if (t !== '-h' && t !== '--help' && !/^--(url|token)=/.test(t)) break; // a command option: the words are over
  }
  return found;
}

/** `--flag=true|false` → `--flag` / `--no-flag`, which parseArgs reads (allowNegative) for boolean options. */
function normalizeBooleans(args: readonly string[], options: Record<string, OptionSpec>): string[] {
  return args.map((t) => {
    const m = /^--([^=]+)=(.*)$/.exec(t);
    if (!m || options[m[1]!]?.type !== 'boolean') return t;
    if (m[2] === 'true') return `--${m[1]}`;
    if (m[2] === 'false') return `--no-${m[1]}`;
    throw new UsageError(`--${m[1]} takes true or false, got "${m[2]}"`);
  });
}

function parseOptions(name: string, args: readonly string[], options: Record<string, OptionSpec>): { values: OptionValues; positionals: string[] } {
  const config: ParseArgsOptionsConfig = {};
  for (const [key, spec] of Object.entries(options)) {
    config[key] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(key === 'help' ? { short: 'h' } : {}) };
  }
  try {
    const parsed = parseArgs({ args: normalizeBooleans(args, options), options: config, allowPositionals: true, allowNegative: true, strict: true });
    return { values: parsed.values as OptionValues, positionals: parsed.positionals };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const message = err instanceof Error ? err.message.split('. ')[0]!.replace(/\.$/, '') : String(err);
    throw new UsageError(`${name}: ${message} (see ${name} --help)`);
  }
}

/** Turns argv (without `node cli.ts`) into help text or the request to send. Throws UsageError. */
export function plan(argv: readonly string[], env: Env = {}): Plan {
  const at = wordIndices(argv);
  const words = at.map((i) => argv[i]!);
  const rest = argv.filter((_, i) => !at.includes(i));

  if (words[0] === 'help') return helpFor(argv.filter((t) => !t.startsWith('-')).slice(1));
  const command =
    COMMANDS.find((c) => c.words.length === 2 && c.words[0] === words[0] && c.words[1] === words[1]) ??
    COMMANDS.find((c) => c.words.length === 1 && c.words[0] === words[0]);
  if (!command) {
    const wantsHelp = rest.includes('--help') || rest.includes('-h');
    if (words.length === 0) {
      if (wantsHelp || argv.length === 0) return { kind: 'help', text: generalHelp() };
      throw new UsageError(`no command given (see ${PROG} --help)`);
    }
    const group = COMMANDS.filter((c) => c.words[0] === words[0]);
    if (group.length === 0) throw new UsageError(`unknown command "${words[0]}" (see ${PROG} --help)`);
    if (words.length === 1 && (wantsHelp || rest.length === 0)) return { kind: 'help', text: groupHelp(words[0]!) };
    const sub = words[1] === undefined ? 'which one?' : `unknown command "${words.join(' ')}";`;
    throw new UsageError(`${sub} ${words[0]} commands: ${group.map((c) => c.words[1]).join(', ')}`);
  }
  // The command's words leave argv; what remains is options and positional arguments (for a one-word command,
  // a second bare word is its first positional argument).
  const used = at.slice(0, command.words.length);
  const optionArgs = argv.filter((_, i) => !used.includes(i));

  const name = commandName(command);
  try {
    return planCall(command, optionArgs, env);
  } catch (err) {
    if (err instanceof UsageError && !err.message.startsWith(`${name}: `)) throw new UsageError(`${name}: ${err.message}`);
    throw err;
  }
}

function planCall(command: Command, optionArgs: readonly string[], env: Env): Plan {
  const name = commandName(command);
  const options = { ...GLOBAL_OPTIONS, ...command.options };
  const { values, positionals } = parseOptions(name, optionArgs, options);
  if (values.help === true) return { kind: 'help', text: commandHelp(command) };

  if (positionals.length < command.args.length) {
    throw new UsageError(`${name}: missing ${command.args.slice(positionals.length).join(' ')} (usage: ${usage(command)})`);
  }
  if (positionals.length > command.args.length) {
    throw new UsageError(`${name}: unexpected argument "${positionals[command.args.length]}" (usage: ${usage(command)})`);
  }
  for (const [key, spec] of Object.entries(command.options)) {
    if (spec.required && values[key] === undefined) throw new UsageError(`${name}: --${key} is required (usage: ${usage(command)})`);
  }
  const request = command.build(positionals, values);

  const url = (typeof values.url === 'string' ? values.url : undefined) ?? env.SANDBOX_URL ?? DEFAULT_URL;
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    throw new UsageError(`"${url}" is not a URL (--url or SANDBOX_URL, e.g. ${DEFAULT_URL})`);
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') throw new UsageError(`"${url}" is not an http(s) URL`);
  const token = (typeof values.token === 'string' ? values.token : undefined) ?? env.SANDBOX_ADMIN_TOKEN;
  if (!token) {
    throw new UsageError('no admin token: set SANDBOX_ADMIN_TOKEN or pass --token (the sandbox prints its token at start-up when SANDBOX_ADMIN_TOKEN is not set)');
  }
  return { kind: 'call', command, request, url: url.replace(/\/+$/, ''), token };
}

// ---- help ----

function optionUsage(key: string, spec: OptionSpec): string {
  return spec.type === 'boolean' ? `--${key}` : `--${key} ${spec.value ?? 'VALUE'}`;
}

function usage(c: Command): string {
  const required = Object.entries(c.options).filter(([, s]) => s.required).map(([k, s]) => optionUsage(k, s));
  const optional = Object.keys(c.options).length > required.length ? ['[options]'] : [];
  return [commandName(c), ...c.args, ...required, ...optional].join(' ');
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([key, spec]) => {
    const left = spec.type === 'boolean' && key !== 'help' ? `--[no-]${key}` : optionUsage(key, spec);
    return [key === 'help' ? `-h, ${left}` : left, spec.help + (spec.required ? ' (required)' : '') + (spec.multiple ? ' (repeatable)' : '')] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

function commandHelp(c: Command): string {
  return [
    `usage: ${PROG} ${usage(c)}`,
    '',
    c.summary,
    `(admin operation ${c.operationId})`,
    ...(Object.keys(c.options).length > 0 ? ['', 'options:', ...optionLines({ ...c.options })] : []),
    ...(c.notes ? ['', c.notes] : []),
    '',
    'global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'examples:',
    ...c.examples.map((e) => `  ${PROG} ${e}`),
    '',
  ].join('\n');
}

function commandList(commands: readonly Command[]): string[] {
  const head = (c: Command) => [commandName(c), ...c.args].join(' ');
  const width = Math.max(...commands.map((c) => head(c).length));
  return commands.map((c) => `  ${head(c).padEnd(width)}  ${c.summary}`);
}

function groupHelp(group: string): string {
  return [`usage: ${PROG} ${group} <command> [options]`, '', 'commands:', ...commandList(COMMANDS.filter((c) => c.words[0] === group)), '', `${PROG} ${group} <command> --help shows a command's options and examples.`, ''].join('\n');
}

function generalHelp(): string {
  return [
    `usage: ${PROG} <command> [options]`,
    '',
    'The Payments API sandbox admin CLI: one command per admin operation (openapi-admin/). Prints the response',
    'as JSON on stdout; a failure is one line on stderr (exit code 2: wrong command line, values the admin API refused (400) included; 1: the request failed).',
    '',
    'commands:',
    ...commandList(COMMANDS),
    '',
    'global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'environment:',
    `  SANDBOX_URL          the sandbox (default ${DEFAULT_URL})`,
    '  SANDBOX_ADMIN_TOKEN  the admin token (sent as authorization: Bearer <token>)',
    '',
    'example:',
    `  ORG=$(${PROG} org create --banking --funding BRL=1000.00 | jq -r .id)`,
    `  ${PROG} key create "$ORG"`,
    `  ${PROG} fault add --operation createTransfer --kind unavailable --count 1 --org "$ORG"`,
    '',
    `${PROG} <command> --help shows a command's options and examples.`,
    '',
  ].join('\n');
}

function helpFor(words: readonly string[]): Plan {
  if (words.length === 0) return { kind: 'help', text: generalHelp() };
  const command = COMMANDS.find((c) => c.words.join(' ') === words.slice(0, c.words.length).join(' '));
  if (command) return { kind: 'help', text: commandHelp(command) };
  if (COMMANDS.some((c) => c.words[0] === words[0])) return { kind: 'help', text: groupHelp(words[0]!) };
  throw new UsageError(`unknown command "${words.join(' ')}" (see ${PROG} --help)`);
}

// ---- sending ----

const oneLine = (s: string, max = 300) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

function networkFailure(err: unknown, url: string): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer from the sandbox at ${url} within ${TIMEOUT_MS / 1000} s`;
  }
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
  return `cannot reach the sandbox at ${url} (${oneLine(detail, 120)}); is it running? (--url or SANDBOX_URL)`;
}

function httpFailure(status: number, statusText: string, text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string') {
    const { error, code, requestId } = body as { error?: unknown; code: string; requestId?: unknown };
    const hint = status === 401 ? ' (check --token or SANDBOX_ADMIN_TOKEN)' : '';
    return `${status} ${code}: ${oneLine(String(error ?? ''))}${typeof requestId === 'string' ? ` [requestId ${requestId}]` : ''}${hint}`;
  }
  return `${status}${statusText ? ` ${statusText}` : ''}${text ? `: ${oneLine(text, 200)}` : ' (no body)'}`;
}

/** A refusal's `Body /field…` (the admin API names the request body's fields) as the option that set it. */
export function namingOptions(message: string, command: Command): string {
  const optionOf = (field: string) => Object.entries(command.options).find(([name, spec]) => (spec.field ?? name) === field)?.[0];
  return message.replace(/\bBody \/([A-Za-z]+)(\/\S*)?/g, (whole, field: string, rest: string | undefined) => {
    const option = optionOf(field);
    return option === undefined ? whole : `--${option}${rest ? ` (at ${rest})` : ''}`;
  });
}

/** Sends the planned request; resolves with the parsed JSON body (undefined for an empty 2xx), or throws RequestError. */
export async function send(call: Extract<Plan, { kind: 'call' }>, fetchImpl: typeof fetch = fetch): Promise<unknown> {
  const { request } = call;
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}`, accept: 'application/json' };
  const init: RequestInit = { method: request.method, headers, signal: AbortSignal.timeout(TIMEOUT_MS) };
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(request.body);
  }
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(`${call.url}${request.path}`, init);
    text = await response.text();
  } catch (err) {
    throw new RequestError(networkFailure(err, call.url));
  }
  if (!response.ok) throw new (response.status === 400 ? RefusedValues : RequestError)(httpFailure(response.status, response.statusText, text));
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new RequestError(`${response.status}: the answer is not JSON: ${oneLine(text, 200)}`);
  }
}

// ---- main ----

export interface Io {
  env: Env;
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown };
  fetch: typeof fetch;
  /** The command as the user typed it, for the help and the messages (default: the repository's path). */
  prog?: string;
}

/** Runs one command; resolves with the exit code. Never throws. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  if (io.prog) PROG = io.prog;
  try {
    const planned = plan(argv, io.env);
    if (planned.kind === 'help') {
      io.stdout.write(planned.text);
      return 0;
    }
    const result = await send(planned, io.fetch).catch((err: unknown) => {
      if (!(err instanceof RequestError)) throw err;
      throw new (err instanceof RefusedValues ? RefusedValues : RequestError)(namingOptions(err.message, planned.command));
    });
    if (result !== undefined) io.stdout.write(`${io.stdout.isTTY ? JSON.stringify(result, null, 2) : JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return err instanceof UsageError || err instanceof RefusedValues ? 2 : 1;
  }
}

if (import.meta.main) {
  process.exitCode = await run(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr, fetch: globalThis.fetch });
}
