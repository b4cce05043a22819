import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { DueQueue, QueueTurn } from '../retry.js';

/**
 * A due queue that runs `sweep` on its first look, then once every `everySeconds` by the injected
 * clock (the request log's retention, the archive renewal). A sweep that returns true has more left
 * and runs again at the next look. It reports no work started (0), so the runner does not look again
 * at once on its account. Several processes may each sweep: each sweep must be safe to repeat.
 */
export function periodicSweep(
  everySeconds: number,
  sweep: (ctx: ServiceContext, now: number, turn: QueueTurn) => Promise<boolean>,
): DueQueue {
  let nextSweep = 0;
  return {
    async runDue(ctx, turn) {
      const now = nowSeconds(ctx.clock);
      if (now < nextSweep || !turn.mayStart()) return 0;
      nextSweep = now + everySeconds;
      if (await sweep(ctx, now, turn)) nextSweep = 0;
      return 0;
    },
  };
}
