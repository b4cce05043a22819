/** How the API keys screen words a key: its kind, its state and its restrictions, in the page language. */
import type { ApiKeyView } from '../api.js';
import type { Strings } from '../i18n.js';
import { when } from '../requests/model.js';

/** The three kinds the screen offers; a read-only key is a secret key that only reads. */
export type KeyKind = 'secret' | 'publishable' | 'read_only';

export const kindOf = (k: ApiKeyView): KeyKind => (k.type === 'publishable' ? 'publishable' : k.read_only ? 'read_only' : 'secret');

/** Keys that still work: the list shows these; revoked and expired ones are only counted. */
export const isWorking = (k: ApiKeyView): boolean => k.state === 'active' || k.state === 'expiring';

/**
 * The state line: "Active", or "Expires 2 Jul 2026, 09:00 (rotated)" for the old key of a rotation.
 * An absolute time, not "in 23 hours": the server's clock is the one that counts, and the browser's
 * may differ from it.
 */
export function stateText(s: Strings, k: ApiKeyView): { text: string; tone: 'ok' | 'warn' | 'bad' } {
  if (k.state === 'active') return { text: s.t('keysStateActive'), tone: 'ok' };
  if (k.state === 'expiring' && k.expires_at !== null) {
    const at = when(s, k.expires_at);
    return { text: s.t(k.replaced_by ? 'keysStateRotated' : 'keysStateExpiring', { at }), tone: 'warn' };
  }
  return { text: s.t(k.state === 'revoked' ? 'keysStateRevoked' : 'keysStateExpired'), tone: 'bad' };
}

/** The restrictions in one or two short lines. */
export function restrictions(s: Strings, k: ApiKeyView): string[] {
  if (k.type === 'secret') {
    return [k.allowed_ips.length ? s.t('keysIpsSome', { list: k.allowed_ips.join(', ') }) : s.t('keysIpsAny')];
  }
  return [
    k.allowed_origins.length ? s.t('keysOriginsSome', { list: k.allowed_origins.join(', ') }) : s.t('keysOriginsAny'),
    k.daily_cap === null ? s.t('keysCapDefault') : s.t('keysCapSome', { cap: k.daily_cap }),
  ];
}

/** A textarea's lines, one entry each, blanks and commas as separators too. */
export const listOf = (text: string): string[] =>
  text
    .split(/[\n,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

export const canManage = (permissions: readonly string[] | undefined): boolean => (permissions ?? []).includes('developers.manage');
