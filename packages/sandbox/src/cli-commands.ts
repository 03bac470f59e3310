// The admin CLI's command table: one row per operation of the admin document (openapi-admin/), each turning its
// positional arguments and options into the HTTP request. cli.ts parses argv against these rows, prints help
// from them and sends the request; admin-contract.test.ts checks the rows cover every admin operationId.
import { KEY_PREFIX } from './keys.ts';

export type OptionValue = string | boolean | string[] | undefined;
export type OptionValues = Record<string, OptionValue>;

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** A string option that may be given several times (values are collected). */
  multiple?: boolean;
  /** The value's placeholder in help, e.g. `NAME`. */
  value?: string;
  help: string;
  required?: boolean;
  /** The request body's field the option sets, when it is not the option's name (a refusal naming it names the option). */
  field?: string;
}

export interface AdminRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface Command {
  /** The words that name the command, e.g. ['org', 'create']. */
  words: readonly string[];
  operationId: string;
  summary: string;
  /** Positional arguments after the words, all required, e.g. ['ORG', 'RECIPIENT']. */
  args: readonly string[];
  options: Readonly<Record<string, OptionSpec>>;
  /** Extra help text after the options (allowed values, what the output is). */
  notes?: string;
  examples: readonly string[];
  /** Turns the checked arguments (exactly `args.length` of them) and options into the request. */
  build(args: readonly string[], values: OptionValues): AdminRequest;
}

/** A mistake in how the CLI was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

// Allowed values, listed in help (the server validates them; the test checks they match the admin document).
export const PUBLIC_OPERATIONS = ['getBankingBalance', 'createRecipient', 'createTransfer', 'getTransfer', 'issueCard', 'createCheckoutProduct', 'createCheckoutSession'] as const;
export const FAULT_KINDS = ['unavailable', 'pending_review', 'edge_502', 'edge_504', 'drop_after_commit', 'provider_rate_limited'] as const;
export const TRANSFER_STATUSES = ['pending', 'completed', 'failed', 'cancelled'] as const;
export const ATTEMPT_RESOLUTIONS = [...TRANSFER_STATUSES, 'pending_review'] as const;

const seg = (value: string) => encodeURIComponent(value);

function str(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

function int(values: OptionValues, name: string): number | undefined {
  const v = str(values, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
  return Number(v);
}

/** `BRL=1000.00,USD=50` (also repeated `--funding` options) → { BRL: '1000.00', USD: '50' }. */
export function parseFunding(specs: readonly string[]): Record<string, string> {
  const funding: Record<string, string> = {};
  for (const pair of specs.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([^=\s]+)=(\S+)$/.exec(pair);
    if (!m) throw new UsageError(`--funding takes CURRENCY=AMOUNT pairs separated by commas (e.g. BRL=1000.00,USD=50), got "${pair}"`);
    funding[m[1]!] = m[2]!;
  }
  return funding;
}

// The organization's switches: CLI flag → body field. Used by `org create` and `org update`.
const ORG_FLAGS = {
  'api-access': ['apiAccess', 'API access (on by default; --no-api-access turns it off)'],
  banking: ['banking', 'the Banking product'],
  cards: ['cards', 'the Cards product'],
  checkout: ['checkout', 'the Checkout product'],
  'wallet-transfers': ['walletTransfers', 'stablecoin wallet transfers'],
  'card-terms': ['cardTermsAccepted', 'the authorized-user card terms are accepted'],
  'checkout-pix': ['checkoutPix', 'checkout accepts PIX'],
} as const;

const ORG_OPTIONS: Record<string, OptionSpec> = {
  name: { type: 'string', value: 'NAME', help: 'display name' },
  ...Object.fromEntries(Object.entries(ORG_FLAGS).map(([flag, [field, help]]) => [flag, { type: 'boolean', help, field } satisfies OptionSpec])),
  funding: { type: 'string', multiple: true, value: 'CUR=AMOUNT,…', help: 'opening balance per currency, e.g. BRL=1000.00,USD=50' },
};

/** The organization fields given on the command line; the ones not given are left out. */
function orgBody(values: OptionValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const name = str(values, 'name');
  if (name !== undefined) body.name = name;
  for (const [flag, [field]] of Object.entries(ORG_FLAGS)) {
    const v = values[flag];
    if (typeof v === 'boolean') body[field] = v;
  }
  const funding = values.funding;
  if (Array.isArray(funding)) body.funding = parseFunding(funding);
  return body;
}

const BOOLEAN_NOTE = 'Every switch takes --flag, --no-flag, --flag=true or --flag=false.';

export const COMMANDS: readonly Command[] = [
  {
    words: ['health'],
    operationId: 'getHealth',
    summary: 'Check that the sandbox is up, and which store it runs on.',
    args: [],
    options: {},
    examples: ['health'],
    build: () => ({ method: 'GET', path: '/admin/health' }),
  },
  {
    words: ['org', 'create'],
    operationId: 'createOrganization',
    summary: 'Create an organization (API access on and every product off unless flags say otherwise).',
    args: [],
    options: ORG_OPTIONS,
    notes: BOOLEAN_NOTE,
    examples: [
      'org create --name "Acme Imports" --banking --cards --checkout --wallet-transfers --card-terms --checkout-pix --funding BRL=1000.00,USD=50',
      'org create --no-api-access',
    ],
    build: (_args, values) => ({ method: 'POST', path: '/admin/organizations', body: orgBody(values) }),
  },
  {
    words: ['org', 'list'],
    operationId: 'listOrganizations',
    summary: 'List every organization, oldest first.',
    args: [],
    options: {},
    examples: ['org list'],
    build: () => ({ method: 'GET', path: '/admin/organizations' }),
  },
  {
    words: ['org', 'get'],
    operationId: 'getOrganization',
    summary: 'Show an organization.',
    args: ['ORG'],
    options: {},
    examples: ['org get $ORG'],
    build: ([org]) => ({ method: 'GET', path: `/admin/organizations/${seg(org!)}` }),
  },
  {
    words: ['org', 'update'],
    operationId: 'updateOrganization',
    summary: 'Change an organization: only the options given change. --funding replaces the whole funding map.',
    args: ['ORG'],
    options: ORG_OPTIONS,
    notes: BOOLEAN_NOTE,
    examples: ['org update $ORG --banking=false', 'org update $ORG --cards --card-terms --funding BRL=250000.00'],
    build: ([org], values) => {
      const body = orgBody(values);
      if (Object.keys(body).length === 0) throw new UsageError('org update: nothing to change; give at least one option (see org update --help)');
      return { method: 'PATCH', path: `/admin/organizations/${seg(org!)}`, body };
    },
  },
  {
    words: ['key', 'create'],
    operationId: 'createApiKey',
    summary: 'Create an API key for an organization. The output holds the full svc_live_ key: it is shown this once.',
    args: ['ORG'],
    options: {},
    examples: ['key create $ORG'],
    build: ([org]) => ({ method: 'POST', path: `/admin/organizations/${seg(org!)}/api-keys` }),
  },
  {
    words: ['key', 'list'],
    operationId: 'listApiKeys',
    summary: 'List an organization\'s API keys (ids and prefixes, revoked ones included; never the keys).',
    args: ['ORG'],
    options: {},
    examples: ['key list $ORG'],
    build: ([org]) => ({ method: 'GET', path: `/admin/organizations/${seg(org!)}/api-keys` }),
  },
  {
    words: ['key', 'revoke'],
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key, by its id (the "id" printed by key create, not the key).',
    args: ['KEY_ID'],
    options: {},
    examples: ['key revoke $KEY_ID'],
    build: ([keyId]) => {
      // The key itself in the URL would be logged by every proxy on the way: it is refused before it leaves.
      if (keyId!.startsWith(KEY_PREFIX)) throw new UsageError('key revoke: give the key\'s id (the "id" key create printed, or key list ORG shows by its prefix: key_…), not the key itself; nothing was sent');
      return { method: 'POST', path: `/admin/api-keys/${seg(keyId!)}/revoke` };
    },
  },
  {
    words: ['wallet-recipient', 'create'],
    operationId: 'createWalletRecipient',
    summary: 'Save a wallet recipient for an organization (inactive unless --active).',
    args: ['ORG'],
    options: {
      nickname: { type: 'string', value: 'NICKNAME', help: 'the recipient\'s nickname', required: true },
      address: { type: 'string', value: '0x…', help: 'destination wallet address, 0x and 40 hex digits', required: true, field: 'destinationAddress' },
      active: { type: 'boolean', help: 'activate it at once' },
    },
    examples: ['wallet-recipient create $ORG --nickname "Treasury wallet" --address 0x52908400098527886E0F7030069857D2E4169EE7 --active'],
    build: ([org], values) => {
      const body: Record<string, unknown> = { nickname: str(values, 'nickname'), destinationAddress: str(values, 'address') };
      if (typeof values.active === 'boolean') body.active = values.active;
      return { method: 'POST', path: `/admin/organizations/${seg(org!)}/wallet-recipients`, body };
    },
  },
  {
    words: ['recipient', 'activate'],
    operationId: 'activateRecipient',
    summary: 'Activate a recipient (of any rail) of an organization.',
    args: ['ORG', 'RECIPIENT'],
    options: {},
    examples: ['recipient activate $ORG $RECIPIENT'],
    build: ([org, rcp]) => ({ method: 'POST', path: `/admin/organizations/${seg(org!)}/recipients/${seg(rcp!)}/activate` }),
  },
  {
    words: ['recipient', 'deactivate'],
    operationId: 'deactivateRecipient',
    summary: 'Deactivate a recipient (of any rail) of an organization.',
    args: ['ORG', 'RECIPIENT'],
    options: {},
    examples: ['recipient deactivate $ORG $RECIPIENT'],
    build: ([org, rcp]) => ({ method: 'POST', path: `/admin/organizations/${seg(org!)}/recipients/${seg(rcp!)}/deactivate` }),
  },
  {
    words: ['transfer', 'status'],
    operationId: 'setTransferStatus',
    summary: 'Set a transfer\'s status, as the provider would.',
    args: ['ORG', 'TRANSFER', 'STATUS'],
    options: {},
    notes: `STATUS is one of: ${TRANSFER_STATUSES.join(', ')}.`,
    examples: ['transfer status $ORG $TRANSFER completed'],
    build: ([org, trf, status]) => ({
      method: 'POST',
      path: `/admin/organizations/${seg(org!)}/transfers/${seg(trf!)}/status`,
      body: { status },
    }),
  },
  {
    words: ['attempt', 'resolve'],
    operationId: 'resolveTransferAttempt',
    summary: 'Decide what the next createTransfer with an unresolved attempt\'s Idempotency-Key gets.',
    args: ['ORG'],
    options: {
      key: { type: 'string', value: 'IDEMPOTENCY_KEY', help: 'the attempt\'s Idempotency-Key', required: true, field: 'idempotencyKey' },
      resolution: { type: 'string', value: 'RESOLUTION', help: 'what the retry gets', required: true },
    },
    notes: `RESOLUTION is one of: ${ATTEMPT_RESOLUTIONS.join(', ')} (pending_review: 409 banking_transfer_attempt_pending_review again).`,
    examples: ['attempt resolve $ORG --key order-8c1f2e:transfer --resolution completed'],
    build: ([org], values) => ({
      method: 'POST',
      path: `/admin/organizations/${seg(org!)}/transfer-attempts/resolve`,
      body: { idempotencyKey: str(values, 'key'), resolution: str(values, 'resolution') },
    }),
  },
  {
    words: ['fault', 'add'],
    operationId: 'createFault',
    summary: 'Make the next COUNT requests to a public operation meet a fault.',
    args: [],
    options: {
      operation: { type: 'string', value: 'OPERATION_ID', help: 'the public operation', required: true, field: 'operationId' },
      kind: { type: 'string', value: 'KIND', help: 'what the requests meet', required: true },
      count: { type: 'string', value: 'COUNT', help: 'how many requests meet it (1–100000)', required: true },
      org: { type: 'string', value: 'ORG', help: 'only this organization\'s requests (default: every organization\'s)', field: 'organizationId' },
      commit: { type: 'boolean', help: 'edge_502/edge_504: do and commit the action before answering' },
      'retry-after': { type: 'string', value: 'SECONDS', help: 'provider_rate_limited: the Retry-After value (0–3600, default 1)', field: 'retryAfterSeconds' },
      resolution: { type: 'string', value: 'RESOLUTION', help: 'unavailable/pending_review on createTransfer: what the retry with the same key yields (default pending)' },
    },
    notes: [
      `OPERATION_ID is one of: ${PUBLIC_OPERATIONS.join(', ')}.`,
      'KIND is one of:',
      '  unavailable            503 temporarily_unavailable, nothing done (createTransfer: the attempt stays unresolved)',
      '  pending_review         createTransfer only: 409 banking_transfer_attempt_pending_review',
      '  edge_502, edge_504     502/504 without a JSON body, as from the edge (--commit: the action was done)',
      '  drop_after_commit      the action is done, then the connection is closed without a response',
      '  provider_rate_limited  issueCard only: 503 provider_rate_limited with Retry-After (--retry-after)',
      'A kind is refused on an operation whose spec does not document the answer it produces.',
      `RESOLUTION is one of: ${ATTEMPT_RESOLUTIONS.join(', ')}.`,
    ].join('\n'),
    examples: [
      'fault add --operation createTransfer --kind unavailable --count 5 --org $ORG --resolution completed',
      'fault add --operation issueCard --kind edge_504 --count 1 --commit',
      'fault add --operation issueCard --kind provider_rate_limited --count 2 --retry-after 3',
    ],
    build: (_args, values) => {
      const body: Record<string, unknown> = { operationId: str(values, 'operation'), kind: str(values, 'kind'), count: int(values, 'count') };
      const org = str(values, 'org');
      if (org !== undefined) body.organizationId = org;
      if (typeof values.commit === 'boolean') body.commit = values.commit;
      const retryAfter = int(values, 'retry-after');
      if (retryAfter !== undefined) body.retryAfterSeconds = retryAfter;
      const resolution = str(values, 'resolution');
      if (resolution !== undefined) body.resolution = resolution;
      return { method: 'POST', path: '/admin/faults', body };
    },
  },
  {
    words: ['fault', 'list'],
    operationId: 'listFaults',
    summary: 'List every fault since the last clear (used-up ones show remaining 0).',
    args: [],
    options: {},
    examples: ['fault list'],
    build: () => ({ method: 'GET', path: '/admin/faults' }),
  },
  {
    words: ['fault', 'clear'],
    operationId: 'clearFaults',
    summary: 'Remove every fault. Prints nothing on success.',
    args: [],
    options: {},
    examples: ['fault clear'],
    build: () => ({ method: 'DELETE', path: '/admin/faults' }),
  },
  {
    words: ['clock', 'show'],
    operationId: 'getClock',
    summary: "Show an organization's test clock: real time, or frozen at a time.",
    args: ['ORG'],
    options: {},
    examples: ['clock show $ORG'],
    build: ([org]) => ({ method: 'GET', path: `/admin/organizations/${seg(org!)}/clock` }),
  },
  {
    words: ['clock', 'freeze'],
    operationId: 'freezeClock',
    summary: "Freeze an organization's clock (its requests, rate-limit windows and journal times follow it).",
    args: ['ORG'],
    options: { at: { type: 'string', value: 'TIME', help: 'an RFC 3339 date-time (default: now)' } },
    examples: ['clock freeze $ORG', 'clock freeze $ORG --at 2025-05-14T12:30:00Z'],
    build: ([org], values) => ({ method: 'POST', path: `/admin/organizations/${seg(org!)}/clock/freeze`, body: str(values, 'at') === undefined ? {} : { at: str(values, 'at') } }),
  },
  {
    words: ['clock', 'advance'],
    operationId: 'advanceClock',
    summary: "Move an organization's clock forward (a clock on real time is frozen at now first).",
    args: ['ORG'],
    options: { ms: { type: 'string', value: 'MILLISECONDS', help: 'how far (0–31536000000)', required: true, field: 'milliseconds' } },
    examples: ['clock advance $ORG --ms 60000'],
    build: ([org], values) => ({ method: 'POST', path: `/admin/organizations/${seg(org!)}/clock/advance`, body: { milliseconds: int(values, 'ms') } }),
  },
  {
    words: ['clock', 'real'],
    operationId: 'useRealTime',
    summary: "Return an organization's clock to real time.",
    args: ['ORG'],
    options: {},
    examples: ['clock real $ORG'],
    build: ([org]) => ({ method: 'DELETE', path: `/admin/organizations/${seg(org!)}/clock` }),
  },
  {
    words: ['journal', 'show'],
    operationId: 'getJournal',
    summary: "Print an organization's traffic journal (oldest first; never the API key).",
    args: ['ORG'],
    options: {},
    notes: 'Each entry: at (ms, the organization\'s clock), time, operationId, idempotencyKey, identity, body, status, code, resourceStatus, retryAfterSeconds, fault, answered. `dropped` counts entries over the cap.',
    examples: ['journal show $ORG'],
    build: ([org]) => ({ method: 'GET', path: `/admin/organizations/${seg(org!)}/journal` }),
  },
];
