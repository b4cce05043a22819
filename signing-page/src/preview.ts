/**
 * Preview mode (the console's Branding screen; server/src/http/signing/preview.ts): the real page
 * renders a fixed sample request at its first step (the one-time code: the brand, the welcome text
 * and a primary button in view), and each branding the console posts is applied
 * through the same path as on a real signing link (pageBranding → App.show → Chrome.apply). Messages
 * are taken only from the parent window on this origin and answered to that origin only. The page
 * has no page token and is inert: nothing in it can act or reach the server.
 */
import { pageBranding } from '@tawqi/shared/branding';
import { Api } from './api.js';
import { App } from './app.js';
import { strings } from './i18n.js';
import type { Language, State } from './types.js';

/** What the console sends: the draft branding in spec 2.9's field names. */
export interface PreviewMessage {
  type: 'tawqi:branding-preview';
  branding: Record<string, unknown>;
}

export const isPreview = (doc: Document): boolean => doc.querySelector('meta[name="tawqi-preview"]') !== null;

function sampleState(language: Language, branding: unknown): State {
  const s = strings(language);
  return {
    language,
    livemode: true,
    server_time: Math.floor(Date.now() / 1000),
    step: 'otp',
    closed_reason: null,
    request: { id: 'sr_preview', title: s.t('previewTitle'), status: 'sent', legal_level: 'ses' },
    signer: { id: 'sg_preview', name: s.t('previewSigner'), status: 'sent', order: 1, method: 'draw', identity_status: 'not_required' },
    access: null,
    otp: { sent: false, destination: 's***@example.com', expires_at: null, attempts_left: 5, locked: false, resend_at: null },
    document: null,
    branding: pageBranding(branding, language),
    embed: null,
    token: null,
    finish: null,
  };
}

export function bootPreview(main: HTMLElement): void {
  const language: Language = document.documentElement.lang.toLowerCase().startsWith('en') ? 'en' : 'ar';
  // The API is never called (no token; the step's controls are inert), but App needs one.
  const app = new App(new Api({ token: '', base: '/sign/api' }), main);
  main.inert = true;
  app.show(sampleState(language, {}));
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (event.origin !== location.origin || event.source !== window.parent) return;
    const data = event.data as Partial<PreviewMessage> | null;
    if (data?.type !== 'tawqi:branding-preview' || typeof data.branding !== 'object' || data.branding === null) return;
    app.show(sampleState(language, data.branding));
    window.parent.postMessage({ type: 'tawqi:preview-shown' }, location.origin);
  });
  if (window.parent !== window) window.parent.postMessage({ type: 'tawqi:preview-ready' }, location.origin);
}
