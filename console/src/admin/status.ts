/**
 * The platform status (GET /console/api/admin/status): the outside services (SMTP, WhatsApp, the
 * identity provider, the TSA: configured, where, reachable, the last outcome), the database engine,
 * the job, outbox and webhook queues, and the PKI certificates with their expiry and days left
 * (a warning under 30 days). Refresh probes again.
 */
import { h } from '@tawqi/signing-page/dom';
import { button, icon } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { pageScreen } from '../views/parts.js';
import { code, count, day } from './model.js';
import { errorNotice } from './parts.js';
import { serviceRows, type PlatformStatus } from './services.js';

const WARN_DAYS = 30;

export function statusScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const checked = h('p', { class: 'muted adm-checked', attrs: { role: 'status' } });
  const refresh = button([icon('activity'), s.t('admRefresh')], 'secondary', () => void load(true));
  const screen = pageScreen(
    { title: s.t('admStatusTitle'), intro: s.t('admStatusIntro') },
    h('div', { class: 'action-row' }, refresh, checked),
    body,
  );
  const load = async (again = false): Promise<void> => {
    body.setAttribute('aria-busy', 'true');
    refresh.setAttribute('aria-disabled', 'true');
    try {
      const st = await ctx.api.call<PlatformStatus>('GET', '/admin/status');
      body.replaceChildren(
        section('adm-services', s.t('admServices'), serviceRows(ctx, st)),
        section('adm-db', s.t('admDatabase'), h('p', null, code(`${st.database.engine} ${st.database.version ?? ''}`.trim()))),
        section('adm-queues', s.t('admQueues'), queues(ctx, st)),
        section('adm-pki', s.t('admCertificates'), certificates(ctx, st)),
      );
      checked.textContent = s.t(again ? 'admCheckedAgain' : 'admCheckedAt', { time: when(s, st.checked_at) });
    } catch (err) {
      body.replaceChildren(errorNotice(s, err));
    } finally {
      body.removeAttribute('aria-busy');
      refresh.removeAttribute('aria-disabled');
    }
  };
  void load();
  return screen;
}

const section = (id: string, title: string, content: Node) =>
  h('section', { class: 'adm-section', attrs: { 'aria-labelledby': id } }, h('h2', { id, class: 'subtitle' }, title), content);

function queues(ctx: ScreenContext, st: PlatformStatus): HTMLElement {
  const { s } = ctx;
  const names: [keyof PlatformStatus['queues'], Key][] = [
    ['jobs', 'admQueueJobs'],
    ['outbox', 'admQueueOutbox'],
    ['webhook_deliveries', 'admQueueWebhooks'],
  ];
  const age = (seconds: number | null) => (seconds === null ? '—' : s.t('admMinutes', { minutes: Math.floor(seconds / 60) }));
  return dataTable(s, {
    caption: s.t('admQueues'),
    columns: ['admColQueue', 'admColPending', 'admColOldest', 'admColFailed'],
    rows: names.map(([name, label]) => {
      const q = st.queues[name];
      return h(
        'tr',
        { attrs: { 'data-queue': name } },
        h('th', { attrs: { scope: 'row' } }, s.t(label)),
        h('td', null, count(s, q.pending)),
        h('td', null, age(q.oldest_age_seconds)),
        h('td', null, q.failed ? h('span', { class: ['pill', 'pill-bad'] }, count(s, q.failed)) : count(s, 0)),
      );
    }),
  });
}

function certificates(ctx: ScreenContext, st: PlatformStatus): HTMLElement {
  const { s } = ctx;
  const rows = st.pki.certificates.map((c) => {
    const tone = c.days_left < 0 ? 'bad' : c.days_left < WARN_DAYS ? 'warn' : 'ok';
    const left = h('span', { class: ['pill', `pill-${tone}`] }, s.t(c.days_left < 0 ? 'admExpired' : 'admDaysLeft', { days: c.days_left }));
    return h(
      'tr',
      { attrs: { 'data-certificate': c.name } },
      h(
        'th',
        { attrs: { scope: 'row' } },
        s.t(`admCert_${c.name}` as Key),
        c.built_in ? h('span', { class: 'adm-builtin muted small' }, s.t('admBuiltIn')) : null,
      ),
      h('td', { class: 'adm-subject' }, code(c.subject)),
      h('td', { class: 'nowrap' }, day(s, c.not_after)),
      h('td', null, left),
    );
  });
  return dataTable(s, {
    caption: s.t('admCertificates'),
    columns: ['admColCertificate', 'admColSubject', 'admColExpires', 'admColDaysLeft'],
    class: 'adm-certs',
    scrollRegion: true,
    rows,
  });
}
