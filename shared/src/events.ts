/**
 * The event types of spec 6.3: what a webhook endpoint's `enabled_events` may name. Here, with no
 * dependency, so the server's rules and the console's event picker (a browser bundle) read one list.
 * New event types are a non-breaking change (spec part 9).
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

export type EventType = (typeof EVENT_TYPES)[number];

/** The type of the event the console's "send a test event" records: not in the catalogue, so it goes only to the endpoint named. */
export const TEST_EVENT_TYPE = 'webhook_endpoint.test';
