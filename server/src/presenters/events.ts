import type { Event } from '@tawqi/shared/api';
import type { EventRecord } from '../store/events.js';

/** The envelope of spec 6.2, as webhooks carry it and GET /events returns it. */
export function presentEvent(e: EventRecord, opts: { maskRequestInfo: boolean }): Event {
  return {
    id: e.id,
    object: 'event' as const,
    type: e.type,
    created_at: e.created_at,
    livemode: e.livemode,
    // The snapshot written when the event happened (a presenter's object then).
    data: e.data as Event['data'],
    request: e.request_info ? (opts.maskRequestInfo ? { ip: '', user_agent: '' } : e.request_info) : null,
  };
}
