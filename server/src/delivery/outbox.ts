import { retryPlan, type DueQueue } from '../retry.js';
import { nowSeconds } from '../clock.js';
import { dueMessages, retryMessage, type MessageEnvelope } from '../store/messages.js';
import type { ServiceContext } from '../context.js';
import { deliverMessage, type DeliveryOutcome } from './deliverMessage.js';

/** How many due messages one look takes. */
const BATCH = 50;

/**
 * The message outbox: queued messages are their own queue entries (messages.deliver_at, a partial
 * index over queued rows), so queueing a message is one row in the caller's transaction and
 * delivering it is one read and one update, with no job row beside it. Delivery is at least once
 * (a crash between the send and its commit sends again); a failed attempt is retried with the
 * jobs' backoff and given up ('failed') after as many attempts as a job.
 */
export const messageOutbox: DueQueue = {
  async runDue(ctx, now, marking, stopping) {
    const due = await dueMessages(ctx.store.db, now, BATCH);
    const outcomes: { message: MessageEnvelope; outcome: DeliveryOutcome }[] = [];
    let taken = 0;
    for (const message of due) {
      // Draining: the messages not tried yet stay queued (no lease to give back) for the next start.
      if (stopping?.()) break;
      taken++;
      try {
        const outcome = await deliverMessage(ctx, message);
        if (outcome) outcomes.push({ message, outcome });
      } catch (err) {
        await failed(ctx, message, err);
      }
    }
    // The batch's outcomes (sent or held: guarded, idempotent updates) are recorded in one
    // transaction; if it fails, each message counts a failed attempt and is tried again.
    if (outcomes.length > 0) {
      marking.push(
        ctx.store
          .tx(async (trx) => {
            for (const o of outcomes) await o.outcome(trx);
          })
          .catch(async (err: unknown) => {
            for (const o of outcomes) await failed(ctx, o.message, err);
          }),
      );
    }
    return taken;
  },
};

async function failed(ctx: ServiceContext, message: MessageEnvelope, err: unknown): Promise<void> {
  const { attempts, giveUp, retryAt } = retryPlan(message.attempts, nowSeconds(ctx.clock));
  ctx.log.warn(
    { message_id: message.id, channel: message.channel, attempts, err: String(err) },
    giveUp ? 'message not delivered, given up' : 'message not delivered; will retry',
  );
  await retryMessage(ctx.store.db, message.id, retryAt, String(err), giveUp);
}
