/** Pieces of the log screens: the status badge and who made the request. */
import { h } from '@tawqi/signing-page/dom';
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
