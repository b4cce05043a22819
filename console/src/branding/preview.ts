/**
 * The live preview: the real signing page (GET /sign/preview, the page bundle in preview mode) in
 * Arabic and in English side by side, in sandboxed frames of this origin. Each change of the form is
 * posted to both (debounced) as the unsaved draft; a frame that has just loaded says it is ready and
 * gets the current draft. Messages go to this origin only and are taken only from the two frames.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Strings } from '../i18n.js';
import type { Branding } from './model.js';

const DEBOUNCE_MS = 150;

export function brandingPreview(s: Strings, draft: () => Branding): { root: HTMLElement; changed(): void; destroy(): void } {
  const frames = (['ar', 'en'] as const).map((lang) =>
    h('iframe', {
      class: `bp-frame bp-frame-${lang}`,
      attrs: {
        src: `/sign/preview?lang=${lang}`,
        title: s.t(lang === 'ar' ? 'bpPreviewAr' : 'bpPreviewEn'),
        // Scripts for the page's bundle, its own origin for that bundle and the message check; no forms, popups or navigation.
        sandbox: 'allow-scripts allow-same-origin',
        loading: 'eager',
      },
    }),
  );
  const post = (frame: HTMLIFrameElement) =>
    frame.contentWindow?.postMessage({ type: 'tawqi:branding-preview', branding: draft() }, location.origin);
  const onMessage = (event: MessageEvent<unknown>) => {
    if (event.origin !== location.origin) return;
    const frame = frames.find((f) => f.contentWindow === event.source);
    if (frame && (event.data as { type?: unknown } | null)?.type === 'tawqi:preview-ready') post(frame);
  };
  window.addEventListener('message', onMessage);
  let timer = 0;
  const root = h(
    'section',
    { class: 'bp-preview', attrs: { 'aria-labelledby': 'bp-preview-title' } },
    h('h2', { id: 'bp-preview-title' }, s.t('bpPreviewTitle')),
    h('p', { class: 'muted' }, s.t('bpPreviewIntro')),
    h('div', { class: 'bp-frames' }, frames),
  );
  return {
    root,
    changed() {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => frames.forEach(post), DEBOUNCE_MS);
    },
    destroy() {
      window.clearTimeout(timer);
      window.removeEventListener('message', onMessage);
    },
  };
}
