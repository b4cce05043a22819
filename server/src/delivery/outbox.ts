import { retryPlan, type DueQueue } from '../retry.js';
import { nowSeconds } from '../clock.js';
import { claimDueMessages, recordMessageOutcomes, releaseMessages, retryMessage, type MessageEnvelope } from '../store/messages.js';
import type { ServiceContext } from '../context.js';
import { deliverMessage, type DeliveryOutcome } from './deliverMessage.js';

/** How many due messages one look takes. */
const BATCH = 50;

/**
 * The message outbox: queued messages are their own queue entries (messages.deliver_at, a partial
 * index over queued rows), so queueing a message is one row in the caller's transaction and
 * delivering it is one claim and one update, with no job row beside it. Delivery is at least once
 * (a crash between the send and its commit sends again, and so does a process whose lease ended
 * before it recorded the send: another took the message over); a failed attempt is retried with
 * the jobs' backoff and given up ('failed') after as many attempts as a job. Every outcome is
 * written only under the claim that took the message (store/messages.ts).
 */
export const messageOutbox: DueQueue = {
  async runDue(ctx, turn) {
    const due = await claimDueMessages(ctx.store, turn.claim, BATCH);
    const outcomes: { message: MessageEnvelope; outcome: DeliveryOutcome }[] = [];
    let started = 0;
    // Draining, or the lease too far gone: the messages not tried yet are given back (due at once).
    while (started < due.length && turn.mayStart()) {
      const message = due[started++]!;
      try {
        const outcome = await deliverMessage(ctx, message);
        if (outcome) outcomes.push({ message, outcome });
      } catch (err) {
        await failed(ctx, message, err);
      }
    }
    if (started < due.length) await releaseMessages(ctx.store, due.slice(started), nowSeconds(ctx.clock));
    // The batch's outcomes (sent or held: guarded, idempotent updates) are recorded in one
    // transaction (on PostgreSQL one UPDATE per kind of outcome); if it fails, each message counts a
    // failed attempt and is tried again. Each is an UPDATE of the message conditioned on the claim
    // that holds it, so READ COMMITTED (lockingTx) is enough on PostgreSQL: it decides by the row
    // it writes (store/types.ts).
    if (outcomes.length > 0) {
      turn.marking.push(
        ctx.store
          .lockingTx((trx) =>
            recordMessageOutcomes(
              trx,
              outcomes.map((o) => o.outcome),
            ),
          )
          .catch(async (err: unknown) => {
            for (const o of outcomes) await failed(ctx, o.message, err);
          }),
      );
    }
    return started;
  },
};

async function failed(ctx: ServiceContext, message: MessageEnvelope, err: unknown): Promise<void> {
  const { attempts, giveUp, retryAt } = retryPlan(message.attempts, nowSeconds(ctx.clock));
  ctx.log.warn(
    { message_id: message.id, channel: message.channel, attempts, err: String(err) },
    giveUp ? 'message not delivered, given up' : 'message not delivered; will retry',
  );
  await retryMessage(ctx.store.db, message, retryAt, String(err), giveUp);
}
