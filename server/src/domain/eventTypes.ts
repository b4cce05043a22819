/**
 * The event types of spec 6.3: what `enabled_events` may name. `*` subscribes to every type,
 * including types added later (new event types are a non-breaking change, spec part 9).
 */
export const EVENT_TYPES = [
  'signature_request.created',
  'signature_request.sent',
  'signature_request.viewed',
  'signature_request.partially_signed',
  'signature_request.completed',
  'signature_request.declined',
  'signature_request.expired',
  'signature_request.canceled',
  'signer.sent',
  'signer.viewed',
  'signer.otp_verified',
  'signer.identity_verified',
  'signer.identity_in_review',
  'signer.identity_resubmission_requested',
  'signer.identity_declined',
  'signer.identity_match_hold',
  'signer.identity_match_decided',
  'signer.signed',
  'signer.declined',
  'document.sealed',
  'verification.created',
  'audit.whatsapp_simulated',
] as const;

export const ALL_EVENTS = '*';

const KNOWN = new Set<string>(EVENT_TYPES);

export function isKnownEventType(type: string): boolean {
  return type === ALL_EVENTS || KNOWN.has(type);
}

/** Does an endpoint subscribed to `enabled` receive events of `type`? */
export function subscribes(enabled: readonly string[], type: string): boolean {
  return enabled.includes(ALL_EVENTS) || enabled.includes(type);
}
