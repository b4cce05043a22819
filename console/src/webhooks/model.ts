/** The webhook objects the Developers screens read (public API shapes), the event catalogue in groups, and small shared pieces. */
import { EVENT_TYPES } from '@tawqi/shared/events';
import type { Key, Strings } from '../i18n.js';

export interface WebhookEndpoint {
  id: string;
  url: string;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  description: string | null;
  livemode: boolean;
  created_at: number;
}

export interface WebhookAttempt {
  attempt: number;
  created_at: number;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  /** The start of the receiver's answer; null when there was none. */
  response_excerpt: string | null;
  next_retry_at: number | null;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  endpoint: string;
  trigger: 'event' | 'redeliver';
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempt_count: number;
  next_attempt_at: number | null;
  attempts: WebhookAttempt[];
  created_at: number;
}

export interface ApiEventFull {
  id: string;
  type: string;
  livemode: boolean;
  created_at: number;
  data: { object: Record<string, unknown> };
  request: { ip: string; user_agent: string } | null;
}

export const ALL_EVENTS = '*';

/** The catalogue by the part before the dot (signature_request, signer, document, …), in the catalogue's order. */
export function eventGroups(): { group: string; types: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const type of EVENT_TYPES) {
    const group = type.slice(0, type.indexOf('.'));
    groups.set(group, [...(groups.get(group) ?? []), type]);
  }
  return [...groups].map(([group, types]) => ({ group, types }));
}

export const canManage = (permissions: readonly string[] | undefined): boolean => (permissions ?? []).includes('developers.manage');

/** The signature request an event is about: the object itself, or the request a signer or document names. */
export function requestOf(e: ApiEventFull): string | null {
  const o = e.data?.object ?? {};
  if (o.object === 'signature_request' && typeof o.id === 'string') return o.id;
  return typeof o.signature_request === 'string' && o.signature_request.startsWith('sr_') ? o.signature_request : null;
}

const NAMED_GROUPS = ['signature_request', 'signer', 'document', 'verification', 'audit', 'webhook_endpoint'];

/** A group's heading: the console's words for the known groups, the raw prefix for one added later. */
export function groupLabel(s: Strings, group: string): string {
  return NAMED_GROUPS.includes(group) ? s.t(`hooksGroup_${group}` as Key) : group;
}
