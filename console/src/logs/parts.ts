/** Pieces of the log screens: the status badge, who made the request, a copy button. */
import { h } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';
import { statusTone, type LogEntry } from './model.js';

export function statusPill(e: LogEntry): HTMLElement {
  return h('span', { class: ['pill', `pill-${statusTone(e.status)}`], attrs: { dir: 'ltr' } }, String(e.status));
}

/** The key's hint (sk_test_…1a2b) or, for the console's own requests, the user. */
export function caller(s: Strings, e: LogEntry): string {
  if (e.key_type === 'console') return s.t('logsByUser', { email: e.user?.email ?? e.user?.id ?? '' });
  return e.key_hint ?? e.key ?? '—';
}

export const keyTypeText = (s: Strings, e: LogEntry): string => (e.key_type ? s.t(`logsKeyType_${e.key_type}` as Key) : '—');

/** A value shown monospace, left to right, with a button that copies it (and says so). */
export function copyable(s: Strings, value: string, label: string, announce: (m: string) => void): HTMLElement {
  const copy = h(
    'button',
    { class: ['btn', 'btn-quiet', 'btn-icon'], attrs: { type: 'button', 'aria-label': s.t('logsCopy', { what: label }) } },
    icon('clipboard'),
  );
  copy.addEventListener('click', () => {
    void navigator.clipboard.writeText(value).then(
      () => announce(s.t('logsCopied')),
      () => announce(s.t('logsCopyFailed')),
    );
  });
  return h('span', { class: 'copyable' }, h('code', { class: 'mono', attrs: { dir: 'ltr' } }, value), copy);
}
