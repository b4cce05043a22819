/**
 * Event emission, below the engines: services (and the seal job) record events here, and the
 * webhook deliveries they fan out to; webhooks/ only consumes them.
 */
import { nowSeconds, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { insertEvent, insertEvents, type EventRecord } from '../store/events.js';
import { subscribes } from '../domain/eventTypes.js';
import { enabledEndpoints, insertDeliveries, newDeliveryId, type WebhookDelivery } from '../store/webhooks.js';

export interface EmitInput {
  accountId: string;
  livemode: boolean;
  type: string;
  object: Record<string, unknown>;
  signatureRequestId?: string | null;
  requestInfo?: EventRecord['request_info'];
}

/**
 * Record an event in the caller's transaction, with a snapshot of the object at that moment.
 * Deliveries to webhook endpoints are added here too (the transactional outbox), so an event and
 * its deliveries commit or vanish together.
 */
export async function emitEvent(trx: Db, clock: Clock, e: EmitInput): Promise<EventRecord> {
  const record = eventRecord(clock, e);
  await insertEvent(trx, record);
  await fanOut(trx, clock, record);
  return record;
}

/**
 * Record an event delivered only to the endpoints named, whatever they subscribe to (a test event
 * the console sends to one endpoint): no fan-out.
 */
export async function emitEventTo(trx: Db, clock: Clock, e: EmitInput, endpointIds: readonly string[]): Promise<EventRecord> {
  const record = eventRecord(clock, e);
  await insertEvent(trx, record);
  const now = nowSeconds(clock);
  await insertDeliveries(
    trx,
    endpointIds.map((id) => newDelivery(clock, record, id, 'event', now)),
  );
  return record;
}

/**
 * Several events of one change (one account and mode), in order: the webhook endpoints they may
 * go to are read once for all of them.
 */
export async function emitEvents(trx: Db, clock: Clock, inputs: readonly EmitInput[]): Promise<EventRecord[]> {
  const first = inputs[0];
  if (!first) return [];
  if (inputs.some((e) => e.accountId !== first.accountId || e.livemode !== first.livemode))
    throw new Error('emitEvents: one account and mode at a time');
  const endpoints = await enabledEndpoints(trx, first.accountId, first.livemode);
  const records = inputs.map((e) => eventRecord(clock, e));
  await insertEvents(trx, records);
  for (const record of records) await fanOut(trx, clock, record, endpoints);
  return records;
}

function eventRecord(clock: Clock, e: EmitInput): EventRecord {
  return {
    id: newId('event', clock),
    account_id: e.accountId,
    livemode: e.livemode,
    type: e.type,
    signature_request_id: e.signatureRequestId ?? null,
    data: { object: e.object },
    request_info: e.requestInfo ?? null,
    created_at: nowSeconds(clock),
  };
}

/**
 * Deliveries are born in the transaction that writes their event (the transactional outbox): an
 * event and its deliveries commit or vanish together, so a crash can never lose a delivery.
 */
export function newDelivery(
  clock: Clock,
  event: EventRecord,
  endpointId: string,
  trigger: WebhookDelivery['trigger'],
  now: number,
): WebhookDelivery {
  return {
    id: newDeliveryId(clock),
    event_id: event.id,
    endpoint_id: endpointId,
    trigger,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    leased_until: null,
    lease_owner: null,
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
 * (several events of one change, emitEvents).
 */
export async function fanOut(trx: Db, clock: Clock, event: EventRecord, endpoints?: EndpointSubscriptions): Promise<number> {
  const list = endpoints ?? (await enabledEndpoints(trx, event.account_id, event.livemode));
  const endpointIds = list.filter((e) => subscribes(e.enabled_events, event.type)).map((e) => e.id);
  if (endpointIds.length === 0) return 0;
  const now = nowSeconds(clock);
  await insertDeliveries(
    trx,
    endpointIds.map((id) => newDelivery(clock, event, id, 'event', now)),
  );
  return endpointIds.length;
}
