// node tools/launch.mjs chaos [--payments N] [--concurrency N] [--seed N] [--postgres] [--instances N] [--crash-every S]
//
// The full chaos run (packages/sandbox/test/reliability/chaos.ts): N payments (default 10,000) through the
// real client to the sandbox running as a CHILD PROCESS (`node packages/sandbox/src/main.ts`, a temp
// node:sqlite file), while about 30% of the transfer attempts meet injected faults; then every payment is
// verified from the store and the summary table is printed. `--postgres`: a throwaway PostgreSQL server and
// two sandbox instances sharing it (`--instances` to change the count). `--crash-every S`: every S seconds
// one sandbox process (each instance in turn) is SIGKILLed and restarted on its port while the payments
// run, and with --postgres the database server is restarted once in immediate mode (a crash, recovered
// from its WAL); payers meet dropped connections and retry with their keys (tools/lib/crash-loop.ts).
// Exits 1 on any violation.
// Not part of `npm test` (which runs ~1,000 payments in-process).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { lintAdminSpec } from '../lib/admin-contract.ts';
import { compilePackages, generateCode } from '../lib/codegen.ts';
import { buildContract } from '../lib/contract.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../lib/postgres.ts';
import { log, main, StepError } from '../lib/steps.ts';
import { startCrashLoop } from '../lib/crash-loop.ts';

await main(async () => {
  const { values } = parseArgs({
    options: {
      payments: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '32' },
      seed: { type: 'string', default: '1' },
      postgres: { type: 'boolean', default: false },
      instances: { type: 'string' },
      'crash-every': { type: 'string' },
    },
  });
  const crashEvery = values['crash-every'] === undefined ? undefined : Number(values['crash-every']);
  if (crashEvery !== undefined && !(crashEvery > 0)) throw new StepError('chaos', '--crash-every must be a number of seconds > 0');
  const payments = Number(values.payments);
  const concurrency = Number(values.concurrency);
  const seed = Number(values.seed);
  const instances = Number(values.instances ?? (values.postgres ? 2 : 1));
  for (const [name, value] of Object.entries({ payments, concurrency, seed, instances })) {
    if (!Number.isInteger(value) || value < (name === 'seed' ? 0 : 1)) throw new StepError('chaos', `--${name} must be a positive integer`);
  }

  // What the sandbox and the client load: the bundled spec, the admin spec, the compiled client.
  await buildContract();
  await lintAdminSpec();
  await generateCode({ check: Boolean(process.env.CI) });
  await compilePackages();

  // Imported after the build: they read the bundled spec and the compiled client.
  const { DATABASE_DOWN, formatSummary, runChaos } = await import('../../packages/sandbox/test/reliability/chaos.ts');
  const { startChildSandbox } = await import('../../packages/sandbox/test/reliability/child-sandbox.ts');
  const { createStore } = await import('../../packages/sandbox/src/store/index.ts');

  const dir = mkdtempSync(join(tmpdir(), 'payments-chaos-'));
  const file = join(dir, 'sandbox.db');
  const adminToken = `adm_chaos_${process.pid}_${Date.now()}`;
  let pg: ThrowawayPostgres | undefined;
  const children: Awaited<ReturnType<typeof startChildSandbox>>[] = [];
  let store: ReturnType<typeof createStore> | undefined;
  let failed = false;
  try {
    if (values.postgres) {
      log('▶ throwaway PostgreSQL');
      pg = await startThrowawayPostgres();
    }
    const where = pg ? { databaseUrl: pg.url } : { file };
    // The first instance migrates the store; the others start together once it exists.
    children.push(await startChildSandbox({ ...where, adminToken }));
    children.push(...(await Promise.all(Array.from({ length: instances - 1 }, () => startChildSandbox({ ...where, adminToken })))));
    log(`▶ chaos: ${payments.toLocaleString('en-US')} payments, ${instances} sandbox process${instances > 1 ? 'es' : ''} (pid ${children.map((c) => c.pid).join(', ')}) on ${pg ? 'PostgreSQL' : file}`);
    store = createStore(pg ? { databaseUrl: pg.url } : { file });
    const crashLoop = crashEvery === undefined ? undefined : startCrashLoop({ children, crashEvery, restartChild: (port) => startChildSandbox({ ...where, adminToken, port }), pg });
    let report: Awaited<ReturnType<typeof runChaos>>;
    try {
      report = await runChaos(
        { urls: children.map((c) => c.url), adminToken, store, ...(crashLoop ? { crashes: crashLoop.crashes } : {}) },
        { payments, concurrency, seed, progress: (line) => log(line) },
      );
    } finally {
      await crashLoop?.stop();
    }
    process.stdout.write(`\n${formatSummary(report)}\n`);
    if (crashLoop) {
      const cut = report.responses['network error (sandbox killed)'] ?? 0;
      const refused = report.responses[`503 temporarily_unavailable${DATABASE_DOWN}`] ?? 0;
      process.stdout.write(`${crashLoop.summary()}\n  requests cut or refused by a killed sandbox: ${cut}; answered 503 while the database restarted: ${refused}\n`);
    }
    failed = report.violationCount > 0 || report.duplicates > 0 || report.lost > 0 || report.orphans > 0 || report.outcomes.undecided > 0 || report.faults.share < 0.2;
  } finally {
    await store?.close();
    for (const child of children) await child.stop();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) throw new StepError('chaos', 'the chaos run found violations (see the summary above)');
});
