/**
 * The custom domain: the DNS record to create (type, name, value, each copyable) and whether the
 * name resolves to this server now (GET /console/api/branding/custom_domain, asked again on demand).
 */
import { bdi, fillNodes, h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';
import { copyable } from '../views/copy.js';
import type { DnsRecord, DomainCheck, DomainState } from './model.js';

const STATES: Record<DomainState, { key: Key; tone: 'ok' | 'warn' | 'bad' }> = {
  points_here: { key: 'bpDnsHere', tone: 'ok' },
  points_elsewhere: { key: 'bpDnsElsewhere', tone: 'bad' },
  not_found: { key: 'bpDnsNotFound', tone: 'warn' },
  lookup_failed: { key: 'bpDnsFailed', tone: 'bad' },
};

function recordList(ctx: ScreenContext, record: DnsRecord): HTMLElement {
  const { s } = ctx;
  const row = (label: Key, value: string) =>
    h(
      'div',
      { class: 'bp-dns-row' },
      h('dt', null, s.t(label)),
      h('dd', null, copyable(s, value, s.t('bpCopy', { what: s.t(label) }), ctx.announce)),
    );
  return h('dl', { class: 'bp-dns' }, row('bpDnsType', record.type), row('bpDnsName', record.name), row('bpDnsValue', record.value));
}

function stateNotice(ctx: ScreenContext, c: DomainCheck): HTMLElement {
  const { s } = ctx;
  const st = STATES[c.state ?? 'lookup_failed'];
  const found = (c.found ?? []).join(', ');
  return h(
    'div',
    { class: ['notice', `tone-${st.tone}`, 'bp-dns-state'], attrs: { 'data-state': c.state ?? '' } },
    h('p', null, ...fillNodes(s.t(st.key), { domain: bdi(c.domain ?? ''), found: bdi(found || '—'), error: bdi(c.error ?? '') })),
  );
}

export function domainSection(ctx: ScreenContext): { root: HTMLElement; show(record: DnsRecord | null): void } {
  const { s } = ctx;
  const body = h('div', { class: 'bp-dns-body' });
  const status = h('div', { class: 'bp-dns-status', attrs: { 'aria-live': 'polite' } });
  const check = async () => {
    status.setAttribute('aria-busy', 'true');
    try {
      const c = await ctx.api.call<DomainCheck>('GET', '/branding/custom_domain');
      status.replaceChildren(c.domain ? stateNotice(ctx, c) : '');
    } catch (err) {
      status.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      status.removeAttribute('aria-busy');
    }
  };
  const again = button(s.t('bpDnsCheck'), 'secondary', () => void check());
  const show = (record: DnsRecord | null) => {
    if (!record) {
      body.replaceChildren(h('p', { class: 'muted' }, s.t('bpDnsNone')));
      return;
    }
    body.replaceChildren(p(s.t('bpDnsIntro')), recordList(ctx, record), status, h('div', { class: 'actions' }, again));
    void check();
  };
  const root = h(
    'section',
    { class: 'bp-domain', attrs: { 'aria-labelledby': 'bp-domain-title' } },
    h('h2', { id: 'bp-domain-title' }, s.t('bpDomainTitle')),
    body,
  );
  return { root, show };
}

const p = (text: string) => h('p', null, text);
