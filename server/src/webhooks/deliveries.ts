import { nowSeconds, type Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import type { EventRecord } from '../store/events.js';
import { enabledEndpoints, insertDeliveries, newDeliveryId, type WebhookDelivery } from '../store/webhooks.js';
import { subscribes } from './eventTypes.js';

/**
 * Deliveries are born in the transaction that writes their event (the transactional outbox): an
 * event and its deliveries commit or vanish together, so a crash can never lose a delivery.
 */
function newDelivery(clock: Clock, event: EventRecord, endpointId: string, trigger: WebhookDelivery['trigger'], now: number): WebhookDelivery {
  return {
    id: newDeliveryId(clock),
    event_id: event.id,
    endpoint_id: endpointId,
    trigger,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    leased_until: null,
    attempts: [],
    created_at: now,
    updated_at: now,
  };
}

/** The enabled endpoints of an account and mode, with what they subscribe to. */
export type EndpointSubscriptions = Awaited<ReturnType<typeof enabledEndpoints>>;

/**
 * One pending delivery per enabled endpoint of the event's account and mode that subscribes to its
 * type. `endpoints`: that account's and mode's enabled endpoints, when the caller has just read them
 * (several events of one change, services/events.ts emitEvents).
 */
export async function fanOut(trx: Db, clock: Clock, event: EventRecord, endpoints?: EndpointSubscriptions): Promise<number> {
  const list = endpoints ?? (await enabledEndpoints(trx, event.account_id, event.livemode));
  const endpointIds = list.filter((e) => subscribes(e.enabled_events, event.type)).map((e) => e.id);
  if (endpointIds.length === 0) return 0;
  const now = nowSeconds(clock);
  await insertDeliveries(trx, endpointIds.map((id) => newDelivery(clock, event, id, 'event', now)));
  return endpointIds.length;
}

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
  return (await enabledEndpoints(trx, event.account_id, event.livemode)).filter((e) => subscribes(e.enabled_events, event.type)).map((e) => e.id);
}
