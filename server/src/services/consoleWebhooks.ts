/**
 * The console's side of webhook endpoints (issue 15 point 4) beyond what the public API covers:
 * rotating the signing secret (the new one shown once; the old one keeps signing during the
 * overlap, two v1= values), a test event to one endpoint, and an endpoint's delivery log with every
 * attempt. Endpoints of both modes of the signed-in user's account; another account's are not found.
 * Creating, changing, disabling and deleting endpoints, redelivering and the event log go through
 * the public API with the console's credential.
 */
import { TEST_EVENT_TYPE } from '@tawqi/shared/events';
import { nowSeconds } from '../clock.js';
import type { ServiceContext } from '../context.js';
import { ApiError } from '../errors.js';
import { emitEventTo } from '../events/emit.js';
import { presentEvent } from '../presenters/events.js';
import { presentDelivery, presentEndpoint } from '../presenters/webhooks.js';
import type { Db } from '../store/db.js';
import { deliveryOf, getEndpoint, listDeliveries, type WebhookEndpoint } from '../store/webhooks.js';
import { rotateEndpointSecret } from '../webhooks/endpoints.js';
import { recordAudit, type AuditActor } from './consoleAudit.js';

type AccountActor = AuditActor & { account_id: string };

/** The account's endpoint `id` (not deleted); another account's, or none: 404 not_found. */
async function ownEndpoint(db: Db, accountId: string, id: string): Promise<WebhookEndpoint> {
  const e = await getEndpoint(db, id);
  if (!e || e.account_id !== accountId || e.deleted_at !== null) throw new ApiError('not_found', 'id');
  return e;
}

export function endpointView(e: WebhookEndpoint, now: number) {
  const overlap = e.previous_secret !== null && e.previous_secret_expires_at !== null && now < e.previous_secret_expires_at;
  return { ...presentEndpoint(e), previous_secret_signs_until: overlap ? e.previous_secret_expires_at : null };
}

/** A new signing secret (in this answer only); the old one keeps signing for `overlapSeconds` (0: stops now). */
export async function rotateSecret(ctx: ServiceContext, who: AccountActor, id: string, overlapSeconds: number) {
  return ctx.store.tx(async (trx) => {
    const e = await ownEndpoint(trx, who.account_id, id);
    const { endpoint, secret } = await rotateEndpointSecret(trx, ctx.clock, e, overlapSeconds);
    await recordAudit(trx, ctx.clock, who, {
      action: 'webhook_secret.rotated',
      target: id,
      detail: { livemode: e.livemode, overlap_seconds: overlapSeconds },
    });
    return { endpoint: endpointView(endpoint, nowSeconds(ctx.clock)), secret };
  });
}

/**
 * A test event to one enabled endpoint: a `webhook_endpoint.test` event (its object: the endpoint)
 * in the endpoint's mode, delivered, signed and retried like any other, to that endpoint only.
 */
export async function sendTestEvent(ctx: ServiceContext, who: AccountActor, id: string) {
  const result = await ctx.store.tx(async (trx) => {
    const e = await ownEndpoint(trx, who.account_id, id);
    if (e.status !== 'enabled') {
      throw new ApiError(
        'invalid_state',
        'id',
        {},
        {},
        { en: 'The endpoint is disabled; enable it first.', ar: 'نقطة الاستقبال معطّلة؛ فعّلها أولًا.' },
      );
    }
    const event = await emitEventTo(
      trx,
      ctx.clock,
      { accountId: e.account_id, livemode: e.livemode, type: TEST_EVENT_TYPE, object: { ...presentEndpoint(e) } },
      [e.id],
    );
    await recordAudit(trx, ctx.clock, who, { action: 'webhook_endpoint.tested', target: id, detail: { event: event.id } });
    const [delivery] = await listDeliveries(trx, { event_id: event.id }, { limit: 1 });
    return { event: presentEvent(event, { maskRequestInfo: false }), delivery: presentDelivery(delivery!) };
  });
  ctx.afterCommit();
  return result;
}

/** One page of an endpoint's deliveries, newest first, each with every attempt (limit + 1 rows, for listPage). */
export async function endpointDeliveries(ctx: ServiceContext, accountId: string, id: string, q: { startingAfter?: string; limit: number }) {
  const e = await ownEndpoint(ctx.store.db, accountId, id);
  return (await listDeliveries(ctx.store.db, { endpoint_id: e.id }, q)).map(presentDelivery);
}

/** Whether `deliveryId` is in the endpoint's log (a cursor check); the endpoint is checked first. */
export async function isEndpointDelivery(ctx: ServiceContext, accountId: string, id: string, deliveryId: string): Promise<boolean> {
  await ownEndpoint(ctx.store.db, accountId, id);
  return deliveryOf(ctx.store.db, { endpoint_id: id }, deliveryId);
}
