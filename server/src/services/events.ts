import { nowSeconds, type Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { insertEvent, type EventRecord } from '../store/events.js';
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
  const record: EventRecord = {
    id: newId('event', clock),
    account_id: e.accountId,
    livemode: e.livemode,
    type: e.type,
    signature_request_id: e.signatureRequestId ?? null,
    data: { object: e.object },
    request_info: e.requestInfo ?? null,
    created_at: nowSeconds(clock),
  };
  await insertEvent(trx, record);
  await fanOut(trx, clock, record);
  return record;
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
