// The embedded store's background checkpointer, in a worker thread with its own SQLite connection: every
// `intervalMs` it copies what the WAL holds back into the database file (a PASSIVE checkpoint: it never
// waits for, nor blocks, the main connection's writes) and syncs it. Without it the connection that
// commits past the auto-checkpoint size does that copy and its fsync on the event loop: a stall of
// tens of milliseconds for every request in flight, every few thousand transfers.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new DatabaseSync(file);
db.exec('PRAGMA synchronous = NORMAL'); // checkpoints sync the WAL first and the database after, as the main connection's would
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (err) {
    parentPort?.postMessage({ error: String(err) }); // e.g. SQLITE_BUSY from a migration: the next round retries
  }
}, intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
