// The bench's open loop (--open-loop): requests are due on a schedule, and one that leaves late because the
// connection was busy counts its latency from when it was due. A server that stalls once shows the difference:
// in a closed loop the stall is one slow request among hundreds; in the open loop every request that fell due
// during it waited for it, and says so (no coordinated omission).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkService, type Service } from '../../bench/lib/service.ts';
import type { LoadResult, LoadSpec } from '../../bench/sandbox/ops.ts';

const STALL_MS = 400;
let server: Server;
let loadgen: Service<{ type: 'ready' }>;
let served = 0;

beforeAll(async () => {
  // Every 200th request is answered STALL_MS late; the others at once.
  server = createServer((_req, res) => {
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (++served % 200 === 20) setTimeout(answer, STALL_MS);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  loadgen = await forkService(join(import.meta.dirname, '..', '..', 'bench', 'sandbox', 'loadgen.ts'));
});

afterAll(async () => {
  await loadgen?.stop();
  await new Promise((resolve) => server?.close(resolve));
});

const run = async (ratePerSecond?: number): Promise<LoadResult> => {
  served = 0;
  const spec: LoadSpec = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    method: 'GET',
    path: '/',
    keys: ['k'],
    budgets: [1_000_000],
    concurrency: 1,
    client: 'raw',
    warmupMs: 0,
    durationMs: 1500,
    expectStatus: 200,
    requestTimeoutMs: 5000,
    serverPids: [],
    ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
  };
  return (await loadgen.request<{ result: LoadResult }>('run', { spec }, 30_000)).result;
};

describe('the load generator, open loop', () => {
  it('sends at the asked rate and counts the requests a stall held back from when they were due', async () => {
    const open = await run(100);
    // 1.5 s at 100 a second; the ones held back by the stall leave late, then catch up.
    expect(open.measured).toBeGreaterThanOrEqual(100);
    expect(open.measured).toBeLessThanOrEqual(151);
    // The ~40 requests due during the stall each waited for it (400, 390, … ms): more than a tenth of them.
    expect(open.p90).toBeGreaterThan(100);
    expect(open.max).toBeGreaterThanOrEqual(STALL_MS - 20);
  }, 40_000);

  it('in a closed loop, the same stall is one slow request', async () => {
    const closed = await run();
    expect(closed.measured).toBeGreaterThan(300);
    expect(closed.max).toBeGreaterThanOrEqual(STALL_MS - 20);
    expect(closed.p90).toBeLessThan(100);
  }, 40_000);
});
