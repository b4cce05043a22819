/**
 * Messages to the embedding page (embedded mode): `postMessage` to exactly `embed.origin`, never '*'.
 * They are a convenience for the embedder; webhooks are the source of truth.
 */
import type { FrameMessage, State } from './types.js';

/** Post a message to the parent frame when the page is embedded; a no-op otherwise. */
export function notifyParent(state: State, message: FrameMessage): void {
  const target = embedOrigin(state);
  if (!target || window.parent === window) return;
  window.parent.postMessage(message, target);
}

let reportingHeight = false;

/**
 * Embedded with a known parent origin: report the page's height (`svc:resize`) whenever it changes,
 * so the embedder can size the frame to its content. The page then drops its full-viewport minimum
 * height (html.is-embedded), else it could only ever grow with the frame. Starts once; a no-op otherwise.
 */
export function reportHeight(state: State): void {
  const target = embedOrigin(state);
  if (reportingHeight || !target || window.parent === window || typeof ResizeObserver !== 'function') return;
  reportingHeight = true;
  document.documentElement.classList.add('is-embedded');
  let last = -1;
  new ResizeObserver(() => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'svc:resize', height } satisfies FrameMessage, target);
  }).observe(document.body);
}

/** The embedder's origin when it is a well-formed http(s) origin, else null. */
function embedOrigin(state: State): string | null {
  const origin = state.embed?.origin;
  if (typeof origin !== 'string' || origin === '' || origin === '*') return null;
  try {
    const url = new URL(origin);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin) return null;
    return url.origin;
  } catch {
    return null;
  }
}

export const viewed = (s: State): FrameMessage => ({ type: 'svc:viewed', signature_request: s.request.id, signer: s.signer.id });
export const signed = (s: State): FrameMessage => ({ type: 'svc:signed', signature_request: s.request.id, signer: s.signer.id });
export const declined = (s: State, reason: string | null): FrameMessage => ({
  type: 'svc:declined',
  signature_request: s.request.id,
  signer: s.signer.id,
  reason,
});
