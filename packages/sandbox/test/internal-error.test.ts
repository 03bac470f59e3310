// A bug in the sandbox is not a contract outcome: it answers 500 internal_error (a status the spec does not
// document, so the contract kit flags it) with the shared error body and no stack trace, never the
// documented, retryable 503 that would hide it from the kit and have clients retry it forever.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSqliteStore } from '../src/store/index.ts';
import type { Store } from '../src/store/types.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox.ts';
import { UUID, adminOf, call } from './support.ts';

let sandbox: RunningSandbox;
let broken = false;
const errors: string[] = [];
const write = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  const real = createSqliteStore();
  // The store throws a programming error (not a documented Failure) while `broken` is set.
  const store: Store = {
    kind: real.kind,
    migrate: () => real.migrate(),
    close: () => real.close(),
    transaction: (fn, options) => (broken ? Promise.reject(new TypeError('a bug in the store')) : real.transaction(fn, options)),
    hitRateLimit: (bucket, windowStart) => real.hitRateLimit(bucket, windowStart),
    findCaller: (hash, operationId) => real.findCaller(hash, operationId),
  };
  sandbox = await startSandbox({ store });
  process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
});
afterAll(async () => {
  process.stderr.write = write;
  await sandbox?.close();
});

it('answers 500 internal_error with the shared body, logs the stack to stderr, and goes on', async () => {
  const { key } = await adminOf(sandbox).org();
  broken = true;
  const reply = await call(sandbox.url, 'GET', '/v1/banking/balance', { key });
  broken = false;
  expect(reply.status, reply.text).toBe(500);
  expect(reply.body).toEqual({ error: expect.any(String), code: 'internal_error', requestId: expect.stringMatching(UUID) });
  expect(reply.text).not.toMatch(/TypeError|at .*\.ts/);
  // JSON lines in the request log's shape, as every line of the log (the journal entry the broken store could
  // not write is one too): the request, and the stack for the bug report.
  const lines = errors.join('').trimEnd().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
  expect(lines).toContainEqual({ time: expect.any(String), level: 'error', message: 'unexpected error (a bug in the sandbox)', requestId: reply.body.requestId, error: expect.stringMatching(/^TypeError: a bug in the store\n\s+at /) });
  expect((await call(sandbox.url, 'GET', '/v1/banking/balance', { key })).status).toBe(200);
});
