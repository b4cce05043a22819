import type { WebhookDelivery as ApiDelivery, WebhookEndpoint as ApiEndpoint } from '@tawqi/shared/api';
import type { WebhookDelivery, WebhookEndpoint } from '../store/webhooks.js';

/** API shapes of webhook endpoints and deliveries; the secret appears only in the creation response. */
export function presentEndpoint(e: WebhookEndpoint): ApiEndpoint {
  return {
    id: e.id,
    object: 'webhook_endpoint' as const,
    url: e.url,
    enabled_events: e.enabled_events,
    status: e.status,
    description: e.description,
    livemode: e.livemode,
    created_at: e.created_at,
  };
}

export function presentDelivery(d: WebhookDelivery): ApiDelivery {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    event: d.event_id,
    endpoint: d.endpoint_id,
    trigger: d.trigger,
    status: d.status,
    attempt_count: d.attempt_count,
    /** When the next attempt is due: only for a pending delivery not in flight. */
    next_attempt_at: d.status === 'pending' && d.leased_until === null ? d.next_attempt_at : null,
    attempts: d.attempts,
    created_at: d.created_at,
  };
}
