// The embedded store's background checkpointer. Under load the WAL grows by thousands of pages a second, and
// the connection that commits past wal_autocheckpoint copies them back into the database file on the event
// loop: 6–10 ms during which no request moves (bench: three such stalls per 1.5 s of UUID-key POSTs, the p99).
// A worker thread with its own connection copies them instead, every 200 ms, in a PASSIVE checkpoint that
// never waits for nor blocks the main connection; the main connection's auto-checkpoint stays as the safety
// net. The worker is an isolate (~15 MB of RSS): it starts only once the WAL passes SQLite's default
// checkpoint size, so an idle or lightly used sandbox never pays for it. This file is also the worker's code.
import { statSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { omitSqliteExperimentalWarning } from '../node-warnings.ts';
import { logProblem } from '../problems.ts';

/** The WAL size (SQLite's default wal_autocheckpoint: 1,000 pages of 4 KiB) past which the worker starts. */
const START_AT_WAL_BYTES = 1000 * 4096;
const WATCH_EVERY_MS = 1000;
const CHECKPOINT_EVERY_MS = 200;
const ROLE = 'sandbox-sqlite-checkpointer';

export interface Checkpointer {
  close(): Promise<void>;
}

/** Watches `file`'s WAL and starts the worker once it is large. */
export function watchWal(file: string): Checkpointer {
  let worker: Worker | undefined;
  const watch = setInterval(() => {
    if ((statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) < START_AT_WAL_BYTES) return;
    clearInterval(watch);
    // No flags of the process's own (`--input-type`, `--eval` …): this file needs none, and some refuse a file.
    worker = new Worker(new URL(import.meta.url), { workerData: { role: ROLE, file }, execArgv: [] });
    worker.unref(); // never what keeps a process alive
    worker.on('error', (err) => logProblem('sandbox store: the background checkpointer stopped (checkpoints go on in the COMMITs)', { error: String(err) }));
  }, WATCH_EVERY_MS);
  watch.unref();
  return {
    async close() {
      clearInterval(watch);
      if (!worker) return;
      worker.ref(); // held until it has closed its connection: an unref'd worker could be cut off mid-checkpoint
      const exited = new Promise((resolve) => worker!.once('exit', resolve));
      worker.postMessage('close');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

function runWorker({ file }: { file: string }): void {
  omitSqliteExperimentalWarning(); // the process's stderr may be its request log (node-warnings.ts)
  const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(file);
  db.exec('PRAGMA synchronous = NORMAL'); // as the main connection's checkpoints: the WAL synced before the copy
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const timer = setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // SQLITE_BUSY (another connection is checkpointing, or migrating): the next round tries again
    }
  }, CHECKPOINT_EVERY_MS);
  parentPort!.on('message', (message) => {
    if (message !== 'close') return;
    clearInterval(timer);
    db.close();
    parentPort!.close();
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) runWorker(workerData as { file: string });
