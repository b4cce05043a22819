import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the event loop (DESIGN §7). The server's connection runs with
 * `wal_autocheckpoint = 0`, so no commit ever pays for copying the WAL back into the database
 * file (with its fsync); a worker thread with its own connection to the same file runs
 * `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs` instead. PASSIVE never waits for readers or
 * writers, so it cannot stall a request; frames it could not copy are copied on a later run.
 *
 * Keeping the WAL short. SQLite starts writing a WAL from its beginning again (a restart) only when
 * a write transaction begins while every frame has been copied, which a steady write load never
 * leaves a moment for: the WAL would grow until a TRUNCATE checkpoint, which holds the write lock
 * while it copies and syncs, and the server's next BEGIN IMMEDIATE sleeps in SQLite's busy handler
 * on the event loop meanwhile (up to 108 ms seen under the create benchmark). So once the WAL is
 * `restartFrames` long, the worker asks the server (`pauseWrites`) for a moment without writes:
 * the server stops starting write transactions — the event loop keeps running, reads go on — while
 * the worker copies the last frames, and the next write restarts the WAL (the file cut back to
 * `journal_size_limit`, db.ts). TRUNCATE at `truncateFrames` stays as the bound when a restart
 * cannot happen (another process holding an old snapshot).
 * The worker is plain JavaScript evaluated from a string, so it runs the same from source (tsx)
 * and from the compiled build.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = ' + workerData.truncateBusyMs);
let timer = null;
let asked = false;
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    if (passive.log >= workerData.truncateFrames) db.pragma('wal_checkpoint(TRUNCATE)');
    else if (workerData.restartFrames > 0 && passive.log >= workerData.restartFrames && !asked) {
      asked = true;
      parentPort.postMessage({ restart: true });
    }
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'checkpoint') return checkpoint();
  if (m === 'catch-up') {
    // The server writes nothing meanwhile: copy every frame, so its next write restarts the WAL.
    asked = false;
    let caughtUp = false;
    try {
      const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
      caughtUp = passive.log === passive.checkpointed;
    } catch (err) {
      parentPort.postMessage({ error: String(err && err.message || err) });
    }
    return parentPort.postMessage({ caughtUp });
  }
  if (m === 'stop') {
    clearInterval(timer);
    try { db.close(); } finally { parentPort.close(); }
  }
});
`;

/** A WAL this many frames long (64 MiB of 4 KiB pages) is cut back to zero bytes after its checkpoint. */
export const WAL_TRUNCATE_FRAMES = 16384;
/** A WAL this many frames long (16 MiB) is restarted at the next write, after a catch-up without writes (above). */
export const WAL_RESTART_FRAMES = 4096;
/** How long the worker waits for the write lock before a TRUNCATE checkpoint gives up until the next tick. */
const TRUNCATE_BUSY_MS = 200;
/** The longest the server holds its writes for a catch-up, whatever the worker does. */
const CATCH_UP_MAX_MS = 1000;

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
  {
    intervalMs = 1000,
    truncateFrames = WAL_TRUNCATE_FRAMES,
    restartFrames = WAL_RESTART_FRAMES,
    pauseWrites,
  }: {
    intervalMs?: number;
    truncateFrames?: number;
    restartFrames?: number;
    /** Run `catchUp` while the database's writer starts no write transaction; without it the WAL is only truncated. */
    pauseWrites?: (catchUp: () => Promise<void>) => void;
  } = {},
): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Nothing of the parent's loaders (tsx) or conditions is needed to run the plain script above.
    execArgv: [],
    workerData: {
      file,
      intervalMs,
      truncateFrames,
      restartFrames: pauseWrites ? restartFrames : 0,
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
  // The catch-up in progress ends when the worker answers, stops or fails, or after CATCH_UP_MAX_MS.
  let caughtUp: (() => void) | null = null;
  const endCatchUp = () => {
    caughtUp?.();
    caughtUp = null;
  };
  const catchUp = () =>
    new Promise<void>((resolve) => {
      if (stopping || failed) return resolve();
      const timer = setTimeout(endCatchUp, CATCH_UP_MAX_MS);
      caughtUp = () => {
        clearTimeout(timer);
        resolve();
      };
      worker.postMessage('catch-up');
    });
  worker.on('error', endCatchUp);
  worker.on('exit', endCatchUp);
  // A failed checkpoint (e.g. the CLI process holding the checkpoint lock) is retried on the next tick.
  worker.on('message', (m: { restart?: boolean; caughtUp?: boolean }) => {
    if (m.restart) pauseWrites?.(catchUp);
    else if (m.caughtUp !== undefined) endCatchUp();
  });
  return {
    stop: async () => {
      if (stopping || failed) return;
      stopping = true;
      endCatchUp();
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
