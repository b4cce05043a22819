/** The iframe that holds a signing session, and the checks on where it points. */

/**
 * What the frame may use, delegated by Permissions Policy: the camera and microphone for identity
 * verification (spec 4.3), and the loopback network for a qualified signature with a hardware token
 * (the page talks to the signing agent on 127.0.0.1; Chromium asks cross-origin frames to be
 * delegated `local-network-access`, called `loopback-network` in later versions).
 */
export const FRAME_ALLOW = 'camera; microphone; local-network-access; loopback-network';

/**
 * The sandbox: the page runs its scripts on its own origin (its API is same-origin), submits forms,
 * opens new windows that are not sandboxed (identity verification refuses to be framed and opens in
 * one; the agent's download link) and downloads; it may not navigate the embedding page.
 */
export const FRAME_SANDBOX = [
  'allow-scripts',
  'allow-same-origin',
  'allow-forms',
  'allow-popups',
  'allow-popups-to-escape-sandbox',
  'allow-downloads',
] as const;

const TITLES = { ar: 'توقيع المستند', en: 'Sign the document' } as const;

export type Locale = keyof typeof TITLES;

/** The signing URL, refused unless http(s); its origin must be `expected` when given. */
export function signingUrl(url: string, expected: string | undefined): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError('TawqiEmbed: url must be the signing_url of a signing session.');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new TypeError('TawqiEmbed: url must be an https (or http) address.');
  if (expected !== undefined && u.origin !== expected) {
    throw new TypeError(`TawqiEmbed: url is on ${u.origin}, not on the Tawqi origin given (${expected}).`);
  }
  return u;
}

/** The element the frame goes in: an element, or the first match of a CSS selector. */
export function containerOf(container: Element | string): Element {
  const el = typeof container === 'string' ? document.querySelector(container) : container;
  if (!el || typeof (el as Element).appendChild !== 'function')
    throw new TypeError('TawqiEmbed: container must be an element or a selector that matches one.');
  return el;
}

/** The language of the frame's title: the one asked for, else the embedding page's when Arabic, else English. */
export function localeOf(locale: Locale | undefined): Locale {
  if (locale === 'ar' || locale === 'en') return locale;
  return document.documentElement.lang.toLowerCase().startsWith('ar') ? 'ar' : 'en';
}

/** A new iframe for the session, not yet in the document. */
export function createFrame(src: URL, o: { title: string | undefined; locale: Locale; height: number }): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.title = o.title ?? TITLES[o.locale];
  frame.setAttribute('allow', FRAME_ALLOW);
  for (const token of FRAME_SANDBOX) frame.sandbox.add(token);
  // The server pins the session's message origin to the embedding page's origin, read from the
  // Referer: send the origin (only) even when the page's own policy sends none.
  frame.referrerPolicy = 'origin';
  frame.style.display = 'block';
  frame.style.width = '100%';
  frame.style.border = '0';
  frame.style.height = `${o.height}px`;
  frame.src = src.href;
  return frame;
}
