import { z } from 'zod';
import type { WebhookDelivery, WebhookEndpoint } from '../store/webhooks.js';

/** API shapes of webhook endpoints and deliveries; the secret appears only in the creation response. */
export function presentEndpoint(e: WebhookEndpoint) {
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

export function presentDelivery(d: WebhookDelivery) {
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

export const endpointSchema = z.object({
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  enabled_events: z.array(z.string()),
  status: z.enum(['enabled', 'disabled']),
  description: z.string().nullable(),
  livemode: z.boolean(),
  created_at: z.number().int(),
});

export const createdEndpointSchema = endpointSchema.extend({ secret: z.string().describe('whsec_…: shown in this response only') });

export const deletedEndpointSchema = z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) });

export const attemptSchema = z.object({
  attempt: z.number().int(),
  created_at: z.number().int(),
  response_status: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  next_retry_at: z.number().int().nullable(),
});

export const deliverySchema = z.object({
  id: z.string(),
  object: z.literal('webhook_delivery'),
  event: z.string(),
  endpoint: z.string(),
  trigger: z.enum(['event', 'redeliver']),
  status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
  attempt_count: z.number().int(),
  next_attempt_at: z.number().int().nullable(),
  attempts: z.array(attemptSchema),
  created_at: z.number().int(),
});
