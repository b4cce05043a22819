import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the event loop (DESIGN §7). The server's connection runs with
 * `wal_autocheckpoint = 0`, so no commit ever pays for copying the WAL back into the database
 * file (with its fsync); a worker thread with its own connection to the same file runs
 * `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs` instead. PASSIVE never waits for readers or
 * writers, so it cannot stall a request; frames it could not copy are copied on a later run.
 * The worker is plain JavaScript evaluated from a string, so it runs the same from source (tsx)
 * and from the compiled build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = ' + workerData.truncateBusyMs);
let timer = null;
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive.log >= workerData.truncateFrames) db.pragma('wal_checkpoint(TRUNCATE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'checkpoint') return checkpoint();
  if (m === 'stop') {
    clearInterval(timer);
    try { db.close(); } finally { parentPort.close(); }
  }
});
`;

/** A WAL this many frames long (64 MiB of 4 KiB pages) is cut back to zero bytes after its checkpoint. */
export const WAL_TRUNCATE_FRAMES = 16384;
/** How long the worker waits for the write lock before a TRUNCATE checkpoint gives up until the next tick. */
const TRUNCATE_BUSY_MS = 200;

export interface Checkpointer {
  /** Stop the worker and close its connection. */
  stop(): Promise<void>;
}

/**
 * Start the checkpoint worker for the database at `file`. `onFailure` runs once if the worker
 * cannot start or dies: the caller turns automatic checkpoints back on so the WAL cannot grow
 * without bound.
 */
export function startCheckpointer(
  file: string,
  onFailure: (err: unknown) => void,
  { intervalMs = 1000, truncateFrames = WAL_TRUNCATE_FRAMES }: { intervalMs?: number; truncateFrames?: number } = {},
): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Nothing of the parent's loaders (tsx) or conditions is needed to run the plain script above.
    execArgv: [],
    workerData: {
      file,
      intervalMs,
      truncateFrames,
      truncateBusyMs: TRUNCATE_BUSY_MS,
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  worker.unref();
  let stopping = false;
  let failed = false;
  const fail = (err: unknown) => {
    if (failed || stopping) return;
    failed = true;
    onFailure(err);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`checkpoint worker exited (code ${code})`)));
  // A failed checkpoint (e.g. the CLI process holding the checkpoint lock) is retried on the next tick.
  worker.on('message', () => {});
  return {
    stop: async () => {
      if (stopping || failed) return;
      stopping = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
