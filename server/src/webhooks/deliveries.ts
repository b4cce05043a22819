import { nowSeconds, type Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import type { EventRecord } from '../store/events.js';
import { enabledEndpoints, insertDeliveries, type WebhookDelivery } from '../store/webhooks.js';
import { subscribes } from '../domain/eventTypes.js';
import { newDelivery } from '../events/emit.js';

/**
 * POST /events/{id}/redeliver: a new delivery (with its own attempts and retry schedule) to the
 * named endpoint, or to every enabled endpoint of the event's mode that subscribes to its type now.
 */
export async function redeliver(trx: Db, clock: Clock, event: EventRecord, endpointIds: readonly string[]): Promise<WebhookDelivery[]> {
  const now = nowSeconds(clock);
  const rows = endpointIds.map((id) => newDelivery(clock, event, id, 'redeliver', now));
  await insertDeliveries(trx, rows);
  return rows;
}

/** The endpoints a redelivery without a named endpoint goes to. */
export async function subscribedEndpointIds(trx: Db, event: EventRecord): Promise<string[]> {
  return (await enabledEndpoints(trx, event.account_id, event.livemode))
    .filter((e) => subscribes(e.enabled_events, event.type))
    .map((e) => e.id);
}
