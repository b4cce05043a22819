/**
 * The rules of event types (spec 6.3; the list is in @tawqi/shared/events, which the console reads
 * too): what `enabled_events` may name. `*` subscribes to every type, including types added later.
 */
import { EVENT_TYPES } from '@tawqi/shared/events';

export { EVENT_TYPES };

export const ALL_EVENTS = '*';

const KNOWN = new Set<string>(EVENT_TYPES);

export function isKnownEventType(type: string): boolean {
  return type === ALL_EVENTS || KNOWN.has(type);
}

/** Does an endpoint subscribed to `enabled` receive events of `type`? */
export function subscribes(enabled: readonly string[], type: string): boolean {
  return enabled.includes(ALL_EVENTS) || enabled.includes(type);
}
