import type { Store } from './types.js';
import { insertRequestLog, type NewRequestLogEntry } from './requestLog.js';

export interface RequestLogBufferOptions {
  /** How often the buffer is written (TAWQI_REQUEST_LOG_FLUSH_MS). */
  intervalMs: number;
  /** Written at once when this many wait, and never more than this many kept after a failed write. */
  maxEntries: number;
  onError: (err: unknown, dropped: number) => void;
}

/**
 * The request log's writer. A request only appends its entry to an array (no statement, no
 * transaction on its path); every `intervalMs`, when `maxEntries` wait, and on shutdown, the
 * waiting entries go to the database in multi-row INSERTs (requestLog.ts) in one transaction. A
 * failed write keeps the entries for the next flush (up to `maxEntries`, the oldest dropped first),
 * so a database that is away for a moment loses nothing, and one that stays away costs bounded
 * memory. What a crash loses is at most one interval of log entries, never a request's effect.
 */
export class RequestLogBuffer {
  private entries: NewRequestLogEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly options: RequestLogBufferOptions,
  ) {}

  add(entry: NewRequestLogEntry): void {
    this.entries.push(entry);
    // === rather than >=: after a failed write the buffer sits at the bound, and the timer retries, not every request.
    if (this.entries.length === this.options.maxEntries) void this.flush();
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Write what waits now (after any write in progress); resolves once it is committed or given back. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeWaiting());
    return this.writing;
  }

  /** Stop the timer and write what is left (the server's drain and close, before the store closes). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async writeWaiting(): Promise<void> {
    if (this.entries.length === 0) return;
    const batch = this.entries;
    this.entries = [];
    try {
      await this.store.lockingTx((trx) => insertRequestLog(trx, batch));
    } catch (err) {
      // Back in front of what arrived meanwhile, in order; beyond the bound, the oldest go.
      const kept = [...batch, ...this.entries];
      const dropped = Math.max(0, kept.length - this.options.maxEntries);
      this.entries = kept.slice(dropped);
      this.options.onError(err, dropped);
    }
  }
}
