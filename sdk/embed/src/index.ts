/**
 * @tawqi/embed: a signing session (POST /api/v1/signers/{id}/signing_session) in an iframe on the
 * integrator's page. Messages are trusted only from that iframe's window and the Tawqi origin; each
 * becomes a typed event. Works as ESM (`import { mount } from '@tawqi/embed'`) and as one classic
 * script (`<script src="https://tawqi.example/embed/v1.js">`, global `TawqiEmbed`).
 */
import { eventOf, type SigningEventMap, type SigningEventName } from './events.js';
import { containerOf, createFrame, localeOf, signingUrl, type Locale } from './frame.js';

export type { DeclinedEvent, ResizeEvent, SignedEvent, SigningEvent, SigningEventMap, SigningEventName, ViewedEvent } from './events.js';
export { FRAME_ALLOW, FRAME_SANDBOX, type Locale } from './frame.js';

/** The version of the messages this library reads (the server serves it at /embed/v1.js). */
export const VERSION = 1;

export type Handler<K extends SigningEventName> = (event: SigningEventMap[K]) => void;

export interface MountOptions {
  /** The session's `signing_url`, created by your server with a secret key (never in the browser). */
  url: string;
  /** Where the frame goes: an element, or a CSS selector. */
  container: Element | string;
  /** The Tawqi origin you expect (e.g. `https://sign.example.com`); mount throws if `url` is elsewhere. Default: `url`'s origin. */
  origin?: string;
  /** The frame's accessible title in this language (default: Arabic on an Arabic page, else English). */
  locale?: Locale;
  /** The frame's accessible title, instead of the default. */
  title?: string;
  /** The frame's height in CSS pixels until the page reports its own (default 640). */
  height?: number;
  /** Size the frame to the signing page's content on each `resize` (default true). */
  autoResize?: boolean;
  onViewed?: Handler<'viewed'>;
  onSigned?: Handler<'signed'>;
  onDeclined?: Handler<'declined'>;
  onResize?: Handler<'resize'>;
}

export interface SigningFrame {
  /** The iframe holding the signing page. */
  readonly iframe: HTMLIFrameElement;
  /** The origin messages are accepted from. */
  readonly origin: string;
  /** Listen to an event; returns a function that stops listening. */
  on<K extends SigningEventName>(name: K, handler: Handler<K>): () => void;
  off<K extends SigningEventName>(name: K, handler: Handler<K>): void;
  /** Remove the frame and stop listening (idempotent). */
  destroy(): void;
}

const DEFAULT_HEIGHT = 640;

/** Put the signing session in a new iframe inside `container` and start listening to it. */
export function mount(options: MountOptions): SigningFrame {
  if (typeof options !== 'object' || options === null) throw new TypeError('TawqiEmbed.mount: options are required.');
  const url = signingUrl(options.url, options.origin);
  const container = containerOf(options.container);
  const height = options.height !== undefined && Number.isFinite(options.height) && options.height > 0 ? options.height : DEFAULT_HEIGHT;
  const iframe = createFrame(url, { title: options.title, locale: localeOf(options.locale), height });
  const origin = url.origin;
  const handlers: { [K in SigningEventName]: Set<Handler<K>> } = {
    viewed: new Set(),
    signed: new Set(),
    declined: new Set(),
    resize: new Set(),
  };
  if (options.onViewed) handlers.viewed.add(options.onViewed);
  if (options.onSigned) handlers.signed.add(options.onSigned);
  if (options.onDeclined) handlers.declined.add(options.onDeclined);
  if (options.onResize) handlers.resize.add(options.onResize);
  const autoResize = options.autoResize !== false;

  const onMessage = (message: MessageEvent): void => {
    // Only the frame's own window, on the Tawqi origin: another frame, a popup, this page or a page
    // the frame navigated to (a return URL) cannot speak for the signing page.
    if (message.source !== iframe.contentWindow || message.origin !== origin) return;
    const event = eventOf(message.data);
    if (!event) return;
    if (event.type === 'resize' && autoResize) iframe.style.height = `${event.height}px`;
    for (const handler of [...handlers[event.type]]) call(handler as (e: typeof event) => void, event);
  };
  window.addEventListener('message', onMessage);
  container.appendChild(iframe);

  let destroyed = false;
  const known = (name: string): name is SigningEventName => Object.hasOwn(handlers, name);
  // Plain functions, not methods: `const { on } = mount(…)` works too.
  const off = <K extends SigningEventName>(name: K, handler: Handler<K>): void => {
    if (known(name)) handlers[name].delete(handler);
  };
  const on = <K extends SigningEventName>(name: K, handler: Handler<K>): (() => void) => {
    if (!known(name)) throw new TypeError(`TawqiEmbed: unknown event "${String(name)}".`);
    if (!destroyed) handlers[name].add(handler);
    return () => off(name, handler);
  };
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    window.removeEventListener('message', onMessage);
    for (const set of Object.values(handlers)) set.clear();
    iframe.remove();
  };
  return { iframe, origin, on, off, destroy };
}

/** One handler's error must not stop the others, nor vanish: it is thrown on its own task. */
function call<E>(handler: (event: E) => void, event: E): void {
  try {
    handler(event);
  } catch (err) {
    setTimeout(() => {
      throw err;
    });
  }
}
