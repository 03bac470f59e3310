// The contenders, each over a given transport (a `fetch(request)`): a hand-made Request handed straight
// to the transport (the floor), bare openapi-fetch, and our client with no retry happening. Every call
// checks its answer (a property read or two), so a contender that gets a 400 fails instead of looking fast.
import type { paths } from '@payments/types';
// The very module instance our client imports (packages/client's own dependency; pnpm does not hoist
// it to the root): the same path resolves to the same file, so both contenders share openapi-fetch.
import createClient from '../../packages/client/node_modules/openapi-fetch/dist/index.mjs';
import { createPaymentsClient } from '@payments/client';
import type { Contender } from '../lib/rounds.ts';
import { API_KEY, BALANCE_PATH, TRANSFERS_PATH, balance, nextKey, transfer, transferBody } from './fixtures.ts';

export type Transport = (request: Request, init?: { signal: AbortSignal }) => Promise<Response>;

export const kinds = ['bare fetch', 'openapi-fetch', 'our client', 'candidate'] as const;
export const ops = ['POST transfer', 'GET balance'] as const;
export type Kind = (typeof kinds)[number];
export type Op = (typeof ops)[number];

export interface ClientContender extends Contender {
  kind: Kind;
  op: Op;
  /** One call with a thorough check of what came back (run once before measuring). */
  verify: () => Promise<void>;
}

/** Answers every request at once with a fresh Response, without reading the request: pure client cost. */
export const stubTransport: Transport = async (request) => {
  const json = request.method === 'POST' ? transfer : balance;
  return new Response(JSON.stringify(json), { status: request.method === 'POST' ? 201 : 200, headers: { 'content-type': 'application/json' } });
};

/** The machine's fetch (undici), keep-alive to the bench server. */
export const httpTransport: Transport = (request, init) => globalThis.fetch(request, init);

function expect(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`contender check failed: ${what}`);
}

/** `--candidate path/to/index.ts`: another build of the client (e.g. a scratch copy with a fix), same rows. */
export type ClientFactory = typeof createPaymentsClient;

export function contenders(transport: Transport, baseUrl: string, candidate?: ClientFactory): ClientContender[] {
  const bare = createClient<paths>({ baseUrl, headers: { 'x-api-key': API_KEY }, fetch: transport });
  const list = [
    ...baselineRows(bare, transport, baseUrl),
    ...clientRows('our client', createPaymentsClient({ apiKey: API_KEY, baseUrl, fetch: transport })),
    ...(candidate ? clientRows('candidate', candidate({ apiKey: API_KEY, baseUrl, fetch: transport })) : []),
  ];
  // POSTs first, then GETs, each in the order of `kinds`.
  return ops.flatMap((op) => list.filter((c) => c.op === op)).map((c) => ({ ...c, name: `${c.kind} · ${c.op}` }));
}

const isTransfer = (data: { id?: unknown; status?: unknown } | undefined) => data?.id === transfer.id && data?.status === transfer.status;
const isBalance = (data: { balances?: unknown[] } | undefined) => data?.balances?.length === 2;
type Row = Omit<ClientContender, 'name'>;

function baselineRows(bare: ReturnType<typeof createClient<paths>>, transport: Transport, baseUrl: string): Row[] {
  const transfersUrl = `${baseUrl}${TRANSFERS_PATH}`;
  const balanceUrl = `${baseUrl}${BALANCE_PATH}`;

  const fetchTransfer = async () => {
    const body = JSON.stringify(transferBody);
    const headers = { 'content-type': 'application/json', 'x-api-key': API_KEY, 'Idempotency-Key': nextKey() };
    const response = await transport(new Request(transfersUrl, { method: 'POST', headers, body }));
    expect(response.status === 201, `bare fetch POST → ${response.status}`);
    return (await response.json()) as typeof transfer;
  };
  const fetchBalance = async () => {
    const response = await transport(new Request(balanceUrl, { headers: { 'x-api-key': API_KEY } }));
    expect(response.status === 200, `bare fetch GET → ${response.status}`);
    return (await response.json()) as { balances?: unknown[] };
  };
  const bareTransfer = async () => {
    const { data, response } = await bare.POST(TRANSFERS_PATH, { params: { header: { 'Idempotency-Key': nextKey() } }, body: transferBody });
    expect(data, `openapi-fetch POST → ${response.status}`);
    return data;
  };
  const bareBalance = async () => {
    const { data, response } = await bare.GET(BALANCE_PATH);
    expect(data, `openapi-fetch GET → ${response.status}`);
    return data;
  };
  return [
    { kind: 'bare fetch', op: 'POST transfer', call: fetchTransfer, verify: async () => expect(isTransfer(await fetchTransfer()), 'bare fetch POST body') },
    { kind: 'openapi-fetch', op: 'POST transfer', call: bareTransfer, verify: async () => expect(isTransfer(await bareTransfer()), 'openapi-fetch POST body') },
    { kind: 'bare fetch', op: 'GET balance', call: fetchBalance, verify: async () => expect(isBalance(await fetchBalance()), 'bare fetch GET body') },
    { kind: 'openapi-fetch', op: 'GET balance', call: bareBalance, verify: async () => expect(isBalance(await bareBalance()), 'openapi-fetch GET body') },
  ];
}

function clientRows(kind: Kind, client: ReturnType<ClientFactory>): Row[] {
  const postTransfer = () => client.POST(TRANSFERS_PATH, { body: transferBody, idempotencyKey: nextKey() });
  const getBalance = () => client.GET(BALANCE_PATH);
  return [
    {
      kind,
      op: 'POST transfer',
      call: postTransfer,
      verify: async () => {
        const result = await postTransfer();
        expect(isTransfer(result.data), `${kind} POST body`);
        expect(result.attempts === 1, `${kind} POST took ${result.attempts} attempts (a retry happened)`);
        expect(result.idempotencyKey?.startsWith('bench-key-'), `${kind} POST key is the caller’s`);
      },
    },
    {
      kind,
      op: 'GET balance',
      call: getBalance,
      verify: async () => {
        const result = await getBalance();
        expect(isBalance(result.data), `${kind} GET body`);
        expect(result.attempts === 1, `${kind} GET took ${result.attempts} attempts (a retry happened)`);
      },
    },
  ];
}
