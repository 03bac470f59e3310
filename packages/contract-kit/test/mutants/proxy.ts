// A mutant server: the real sandbox (startSandbox, its public and admin API untouched) behind a small
// in-process HTTP layer that injects ONE defect, as a mutant of registry.ts says: it may rewrite a request
// before forwarding it, alter the answer's status, headers or body, or answer by itself (with what it saw
// earlier). The kit runs against the layer's URL exactly as against a server.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox } from '../../../sandbox/src/sandbox.ts';

export interface Req {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface Res {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** What a mutant can use besides the request: the sandbox itself, and memory shared across requests. */
export interface MutantEnv {
  forward(req: Req): Promise<Res>;
  memory: Map<string, unknown>;
}

export interface Mutant {
  name: string;
  /** What the defect is, as a reviewer would describe the bug. */
  defect: string;
  /** Whether the spec makes the defect visible; when not, why (it is reported, and left out of the score). */
  visible: true | { no: string };
  /** An honest server with occasional documented 503s: what it leaves are inconclusive answers (warnings),
   *  not assumptions; its run passes at default settings (no --allow-skips). */
  warnsInconclusive?: boolean;
  /** The checks (ids of registry.ts) expected to catch it; the mutant test asserts one of them fails. */
  caughtBy?: string[];
  /** A visible defect the kit's checks do not catch yet, and why; a workflow must catch it instead (a row of
   *  workflows-mutants.test.ts). It counts against the kit's score. */
  kitMisses?: string;
  request?(req: Req, env: MutantEnv): Req | Promise<Req>;
  response?(res: Res, req: Req, env: MutantEnv): Res | Promise<Res>;
  /** Answers by itself (may call env.forward). */
  handle?(req: Req, env: MutantEnv): Promise<Res>;
}

export interface RunningMutant {
  url: string;
  adminToken: string;
  sandbox: RunningSandbox;
  /** The mutant's own crashes (a bug of the mutant, not a catch of the kit): must stay empty. */
  errors: string[];
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startMutant(mutant: Mutant | undefined): Promise<RunningMutant> {
  const sandbox = await startSandbox({});
  const memory = new Map<string, unknown>();
  const forward = async (req: Req): Promise<Res> => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k)));
    const res = await fetch(`${sandbox.url}${req.path}`, { method: req.method, headers, ...(req.body && req.method !== 'GET' && req.method !== 'HEAD' ? { body: req.body } : {}) });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!HOP.has(k)) out[k] = v;
    });
    return { status: res.status, headers: out, body: await res.text() };
  };
  const env: MutantEnv = { forward, memory };
  const errors: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      const req = await readReq(incoming);
      let res: Res;
      if (mutant?.handle) res = await mutant.handle(req, env);
      else {
        const sent = mutant?.request ? await mutant.request(req, env) : req;
        res = await forward(sent);
        if (mutant?.response) res = await mutant.response(res, sent, env);
      }
      outgoing.writeHead(res.status, { ...res.headers, 'content-length': Buffer.byteLength(res.body) }).end(res.body);
    })().catch((err: unknown) => {
      errors.push(err instanceof Error ? (err.stack ?? err.message) : String(err));
      outgoing.destroy();
    });
  });
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    adminToken: sandbox.adminToken,
    sandbox,
    errors,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sandbox.close();
    },
  };
}

async function readReq(incoming: IncomingMessage): Promise<Req> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(incoming.headers)) if (typeof v === 'string') headers[k.toLowerCase()] = v;
  return { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8') };
}
