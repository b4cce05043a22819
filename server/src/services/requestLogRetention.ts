import type { DueQueue } from '../retry.js';
import { pruneRequestLog } from '../store/requestLog.js';
import { periodicSweep } from './periodicSweep.js';

/** How often the sweep runs: entries live their retention plus at most this long. */
const SWEEP_EVERY_SECONDS = 3600;

/**
 * The request log's retention (TAWQI_REQUEST_LOG_RETENTION_DAYS), swept by the job runner: on its
 * first look, then once an hour by the injected clock, one DELETE of the entries older than the
 * retention (an index on created_at). Several processes may each sweep: the DELETE is the same
 * whoever runs it.
 */
export function requestLogRetention(): DueQueue {
  return periodicSweep(SWEEP_EVERY_SECONDS, async (ctx, now) => {
    const removed = await pruneRequestLog(ctx.store.db, now - ctx.config.TAWQI_REQUEST_LOG_RETENTION_DAYS * 86400);
    if (removed > 0) ctx.log.info({ removed }, 'request log: entries past their retention removed');
    return false;
  });
}
