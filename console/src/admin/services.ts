/**
 * The outside services of the platform status as a table: each one configured or not, where
 * (host:port), reachable (one TCP connect by the server) or why not, and the last outcome the server
 * saw (the last e-mail or WhatsApp message; the identity provider's and the TSA's mode).
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import type { ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { code } from './model.js';

interface Service {
  configured: boolean;
  endpoint: { host: string; port: number } | null;
  probe: { reachable: boolean; error: string | null; elapsed_ms: number } | null;
  mode?: string;
  tls?: string | null;
  last_send?: { state: string; at: number; attempts: number; error: string | null } | null;
}

interface Queue {
  pending: number;
  failed: number;
  oldest_age_seconds: number | null;
}

export interface PlatformStatus {
  checked_at: number;
  smtp: Service;
  whatsapp: Service;
  identity_provider: Service;
  tsa: Service;
  database: { engine: string; version: string | null };
  queues: { jobs: Queue; outbox: Queue; webhook_deliveries: Queue };
  pki: {
    certificates: { name: string; subject: string; not_after: number; days_left: number; built_in: boolean }[];
  };
}

const SERVICES: [keyof PlatformStatus & ('smtp' | 'whatsapp' | 'identity_provider' | 'tsa'), Key][] = [
  ['smtp', 'admSvc_smtp'],
  ['whatsapp', 'admSvc_whatsapp'],
  ['identity_provider', 'admSvc_identity'],
  ['tsa', 'admSvc_tsa'],
];

const pill = (tone: string, text: string) => h('span', { class: ['pill', `pill-${tone}`] }, text);

export function serviceRows(ctx: ScreenContext, st: PlatformStatus): HTMLElement {
  const { s } = ctx;
  const rows = SERVICES.map(([name, label]) => {
    const svc = st[name];
    return h(
      'tr',
      { attrs: { 'data-service': name } },
      h('th', { attrs: { scope: 'row' } }, s.t(label)),
      h('td', null, svc.configured ? pill('ok', s.t('admYes')) : pill('muted', s.t('admNo'))),
      h('td', null, svc.endpoint ? code(`${svc.endpoint.host}:${svc.endpoint.port}`) : '—'),
      h('td', null, reach(ctx, svc)),
      h('td', null, outcome(ctx, svc)),
    );
  });
  return dataTable(s, {
    caption: s.t('admServices'),
    columns: ['admColService', 'admColConfigured', 'admColEndpoint', 'admColReachable', 'admColLast'],
    class: 'adm-services',
    scrollRegion: true,
    rows,
  });
}

function reach(ctx: ScreenContext, svc: Service): Node | string {
  const { s } = ctx;
  if (!svc.probe) return '—';
  if (svc.probe.reachable) return pill('ok', s.t('admReachable', { ms: svc.probe.elapsed_ms }));
  return h('span', null, pill('bad', s.t('admUnreachable')), ' ', code(svc.probe.error ?? ''));
}

/** The last message sent (e-mail, WhatsApp) or the mode (identity provider, TSA). */
function outcome(ctx: ScreenContext, svc: Service): Node | string {
  const { s } = ctx;
  if (svc.last_send) {
    const state = svc.last_send.state;
    const [tone, text]: [string, Key] =
      state === 'sent' ? ['ok', 'admLastSent'] : state === 'failed' ? ['bad', 'admLastFailed'] : ['warn', 'admLastRetrying'];
    return h(
      'span',
      null,
      pill(tone, s.t(text)),
      ' ',
      when(s, svc.last_send.at),
      svc.last_send.error ? h('span', { class: 'muted small' }, ' ', code(svc.last_send.error)) : null,
    );
  }
  if (svc.last_send === null) return s.t('admLastNone');
  if (svc.mode) return s.t(`admMode_${svc.mode}` as Key);
  return '—';
}
