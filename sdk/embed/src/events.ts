/**
 * The events of an embedded signing session, read from the signing page's frame messages
 * (`svc:viewed`, `svc:signed`, `svc:declined`, `svc:resize`; API spec 4.3, signing-page/API.md).
 * They tell the page what the signer did, for the interface only: the outcome is taken from the
 * webhooks or a fetch of the request, never from a frame message.
 */

/** The signer opened the document in the frame. */
export interface ViewedEvent {
  type: 'viewed';
  /** The signature request's id (`sr_…`). */
  signature_request: string;
  /** The signer's id (`sgr_…`). */
  signer: string;
}

/** The signer signed. */
export interface SignedEvent {
  type: 'signed';
  signature_request: string;
  signer: string;
}

/** The signer declined to sign; `reason` is what they typed, or null. */
export interface DeclinedEvent {
  type: 'declined';
  signature_request: string;
  signer: string;
  reason: string | null;
}

/** The signing page's content height changed (CSS pixels). */
export interface ResizeEvent {
  type: 'resize';
  height: number;
}

/** Every event by name. */
export interface SigningEventMap {
  viewed: ViewedEvent;
  signed: SignedEvent;
  declined: DeclinedEvent;
  resize: ResizeEvent;
}

export type SigningEventName = keyof SigningEventMap;
export type SigningEvent = SigningEventMap[SigningEventName];

/** Longest id or reason accepted from a message (the API's own limits are lower). */
const MAX_TEXT = 2000;
/** A frame taller than this is not a signing page's height. */
const MAX_HEIGHT = 100_000;

const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT;

/**
 * The event a frame message carries, or null for anything else (unknown type, missing or malformed
 * fields). A fresh object with only the known fields: nothing else in the message reaches the page.
 */
export function eventOf(data: unknown): SigningEvent | null {
  if (typeof data !== 'object' || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.type === 'svc:resize') {
    const h = m.height;
    return typeof h === 'number' && Number.isFinite(h) && h >= 0 && h <= MAX_HEIGHT ? { type: 'resize', height: Math.ceil(h) } : null;
  }
  if (!text(m.signature_request) || !text(m.signer)) return null;
  const ids = { signature_request: m.signature_request, signer: m.signer };
  switch (m.type) {
    case 'svc:viewed':
      return { type: 'viewed', ...ids };
    case 'svc:signed':
      return { type: 'signed', ...ids };
    case 'svc:declined':
      if (m.reason !== null && m.reason !== undefined && typeof m.reason !== 'string') return null;
      return { type: 'declined', ...ids, reason: typeof m.reason === 'string' ? m.reason.slice(0, MAX_TEXT) : null };
    default:
      return null;
  }
}
