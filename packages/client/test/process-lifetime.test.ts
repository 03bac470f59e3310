// A process with nothing to do but one call must live until the call ends: the timer that guards an
// attempt (and a wait between attempts) keeps the event loop alive. An unref'd timer let Node exit in
// the middle of the call (exit code 13, "unsettled top-level await"), with no error to resume from.
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const entry = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href;

// Each fetch waits on nothing but the attempt's signal, as a stalled connection would look to Node.
const script = `
const { createPaymentsClient } = await import(${JSON.stringify(entry)});
const pending = (init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
const stalledBody = (init) => new ReadableStream({ start: (c) => init.signal.addEventListener('abort', () => c.error(init.signal.reason)) });
const make = (fetch, extra = {}) => createPaymentsClient({ apiKey: 'svc_live_lifetime', baseUrl: 'http://127.0.0.1:1', timeoutMs: 100, retry: { maxAttempts: 2, unavailableMinDelayMs: 50 }, fetch, ...extra });
const report = async (what, promise) => {
  try { console.log(what, 'ok', (await promise).attempts); } catch (err) { console.log(what, err.name, err.attempts); }
};
await report('no answer', make((_r, init) => pending(init)).GET('/v1/banking/balance'));
await report('stalled body', make(async (_r, init) => new Response(stalledBody(init), { status: 200 })).GET('/v1/banking/balance'));
let n = 0;
await report('wait', make(async () => (n++ ? Response.json({ balances: [] }) : Response.json({ code: 'temporarily_unavailable' }, { status: 503 }))).GET('/v1/banking/balance'));
`;

it('the call ends with its result or error, not with the process exiting', () => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(result.stderr.replace(/^.*ExperimentalWarning.*\n?|^.*--trace-warnings.*\n?/gm, '')).toBe('');
  expect(result.stdout.trim().split('\n')).toEqual(['no answer TimeoutError 2', 'stalled body TimeoutError 1', 'wait ok 2']);
  expect(result.status).toBe(0);
}, 60_000);

// The client keeps one timer armed between calls (src/deadlines.ts): once no attempt is in flight it must
// not hold the process, or a script that made one quick call would wait out the 30 s timeout before exiting.
it('after the last call, nothing holds the process (the default 30 s timeout stays armed, unref’d)', () => {
  const quick = `
const { createPaymentsClient } = await import(${JSON.stringify(entry)});
const client = createPaymentsClient({ apiKey: 'svc_live_lifetime', baseUrl: 'http://127.0.0.1:1', fetch: async () => Response.json({ balances: [] }) });
console.log('ok', (await client.GET('/v1/banking/balance')).attempts, (await client.GET('/v1/banking/balance')).attempts);
`;
  // Killed at 20 s, well before the 30 s timer would let go of the process: then status is null.
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', quick], { encoding: 'utf8', timeout: 20_000 });
  expect(result.stdout.trim()).toBe('ok 1 1');
  expect(result.status).toBe(0);
}, 60_000);
