/** Pieces the request screens share: a status badge and the text of a failure. */
import { h } from '@tawqi/signing-page/dom';
import { ApiError, NetworkError } from '../api.js';
import type { Key, Strings } from '../i18n.js';

export function statusBadge(s: Strings, status: string, tone: string, prefix = 'reqStatus_'): HTMLElement {
  return h('span', { class: ['pill', `pill-${tone}`] }, s.t(`${prefix}${status}` as Key));
}

/** The envelope's message (already in the page's language), or the console's own words. */
export function errorText(s: Strings, err: unknown): string {
  if (err instanceof ApiError) return err.serverMessage ?? s.t('unexpectedError');
  if (err instanceof NetworkError) return s.t('networkError');
  return s.t('unexpectedError');
}
