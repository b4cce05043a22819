import { nowSeconds, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { insertEvent, type EventRecord } from '../store/events.js';
import { enabledEndpoints } from '../store/webhooks.js';
import { fanOut } from '../webhooks/deliveries.js';

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
 * Several events of one change (one account and mode), in order: the webhook endpoints they may
 * go to are read once for all of them.
 */
export async function emitEvents(trx: Db, clock: Clock, inputs: readonly EmitInput[]): Promise<EventRecord[]> {
  const first = inputs[0];
  if (!first) return [];
  if (inputs.some((e) => e.accountId !== first.accountId || e.livemode !== first.livemode)) throw new Error('emitEvents: one account and mode at a time');
  const endpoints = await enabledEndpoints(trx, first.accountId, first.livemode);
  const records: EventRecord[] = [];
  for (const e of inputs) {
    const record = eventRecord(clock, e);
    await insertEvent(trx, record);
    await fanOut(trx, clock, record, endpoints);
    records.push(record);
  }
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

/** The envelope of spec 6.2, as webhooks carry it and GET /events returns it. */
export function presentEvent(e: EventRecord, opts: { maskRequestInfo: boolean }) {
  return {
    id: e.id,
    object: 'event' as const,
    type: e.type,
    created_at: e.created_at,
    livemode: e.livemode,
    data: e.data,
    request: e.request_info
      ? opts.maskRequestInfo
        ? { ip: '', user_agent: '' }
        : e.request_info
      : null,
  };
}
