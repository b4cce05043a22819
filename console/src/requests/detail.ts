/**
 * One signature request: its signers and their states, the timeline of its events (GET
 * /events?signature_request=…), downloads of the final PDF, the evidence record and the
 * completion certificate (fetched with the credential and saved as a file), and cancel (after a
 * confirm dialog) and remind. An action the request's state or the user's role does not allow is
 * shown disabled with the reason, or not at all for a viewer.
 */
import { bdi, h, nextId } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button, icon } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';
import { saveFile, type ListPage } from '../publicApi.js';
import type { Screen, ScreenContext } from '../screen.js';
import { pageScreen, textLink } from '../views/parts.js';
import { canWrite, OPEN_STATUSES, statusTone, when, type ApiEvent, type SignatureRequest } from './model.js';
import { errorText, statusBadge } from './parts.js';
import { confirmDialog } from './dialog.js';

export function requestDetailScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('reqDetailTitle') }, h('p', null, textLink(s.t('reqBack'), '/requests')), body);
  const load = async (): Promise<void> => {
    try {
      const [request, events] = await Promise.all([
        ctx.publicApi.get<SignatureRequest>(ctx.livemode, `/signature_requests/${id}`),
        ctx.publicApi.get<ListPage<ApiEvent>>(ctx.livemode, '/events', { signature_request: id, limit: 100 }),
      ]);
      screen.heading.replaceChildren(bdi(request.title));
      screen.title = request.title;
      document.title = s.t('docTitle', { page: request.title });
      body.replaceChildren(summary(s, request), actionsBar(ctx, request, load), signersTable(s, request), timeline(s, events.data));
    } catch (err) {
      body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      body.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

function summary(s: Strings, r: SignatureRequest): HTMLElement {
  const item = (label: Key, value: Node | string) => h('div', { class: 'req-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
  return h(
    'dl',
    { class: 'req-facts' },
    item('reqStatus', statusBadge(s, r.status, statusTone(r.status))),
    item('reqCreated', when(s, r.created_at)),
    item('reqId', h('code', { attrs: { dir: 'ltr' } }, r.id)),
    r.reference ? item('reqReference', h('code', { attrs: { dir: 'ltr' } }, r.reference)) : null,
  );
}

/** A button that may be disabled with a reason: aria-disabled keeps it in the tab order, the reason is its description. */
function action(label: string, variant: 'primary' | 'secondary' | 'danger', reason: string | null, run: () => Promise<void>): HTMLElement {
  const b = button(label, variant, () => {
    if (!b.hasAttribute('aria-disabled')) void run();
  });
  if (!reason) return b;
  const rid = nextId('why');
  b.setAttribute('aria-disabled', 'true');
  b.setAttribute('aria-describedby', rid);
  return h('div', { class: 'action-with-reason' }, b, h('span', { id: rid, class: 'muted small' }, reason));
}

function actionsBar(ctx: ScreenContext, r: SignatureRequest, reload: () => Promise<void>): HTMLElement {
  const { s } = ctx;
  const done = r.status === 'completed';
  const notDone = done ? null : s.t('reqNotCompleted');
  const download = (label: Key, path: string, name: string, reason: string | null) =>
    action(s.t(label), 'secondary', reason, async () => {
      try {
        const file = await ctx.publicApi.download(ctx.livemode, `/signature_requests/${r.id}${path}`, name);
        saveFile(file);
        ctx.announce(s.t('reqDownloaded', { name: file.filename }));
      } catch (err) {
        ctx.announce(errorText(s, err));
        flash(ctx, errorText(s, err));
      }
    });
  const group = (title: Key, ...children: HTMLElement[]) =>
    h(
      'section',
      { class: 'action-group', attrs: { 'aria-label': s.t(title) } },
      h('h2', { class: 'subtitle' }, s.t(title)),
      h('div', { class: 'action-row' }, children),
    );
  const downloads = group(
    'reqDownloads',
    download('reqDownloadPdf', '/download/pdf', `${r.id}.pdf`, notDone),
    download('reqDownloadCertificate', '/certificate', `${r.id}-certificate.pdf`, notDone),
    download('reqDownloadEvidence', '/evidence', `${r.id}-evidence.json`, notDone ?? (r.livemode ? null : s.t('reqNoEvidenceTest'))),
  );
  if (!canWrite(ctx.session?.permissions)) return h('div', { class: 'action-groups' }, downloads);
  const open = OPEN_STATUSES.includes(r.status);
  const cancelReason = open || r.status === 'draft' ? null : s.t('reqCannotCancel', { status: s.t(`reqStatus_${r.status}` as Key) });
  const remindReason = open ? null : s.t('reqCannotRemind', { status: s.t(`reqStatus_${r.status}` as Key) });
  const manage = group(
    'reqManage',
    action(s.t('reqRemind'), 'secondary', remindReason, async () => {
      await write(ctx, () => ctx.publicApi.post(ctx.livemode, `/signature_requests/${r.id}/reminders`, {}), 'reqReminded', reload);
    }),
    action(s.t('reqCancel'), 'danger', cancelReason, async () => {
      const yes = await confirmDialog(s, {
        title: s.t('reqCancelConfirmTitle'),
        body: s.t('reqCancelConfirmBody', { title: r.title }),
        confirm: s.t('reqCancel'),
      });
      if (yes) await write(ctx, () => ctx.publicApi.post(ctx.livemode, `/signature_requests/${r.id}/cancel`, {}), 'reqCanceled', reload);
    }),
  );
  return h('div', { class: 'action-groups' }, downloads, manage);
}

async function write(ctx: ScreenContext, call: () => Promise<unknown>, done: Key, reload: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (err) {
    flash(ctx, errorText(ctx.s, err));
    return;
  }
  await reload();
  ctx.announce(ctx.s.t(done));
  flash(ctx, ctx.s.t(done), 'ok');
}

/** A message above the request, in a live region, replaced by the next one. */
function flash(ctx: ScreenContext, text: string, tone: 'ok' | 'bad' = 'bad'): void {
  const root = document.querySelector('.detail');
  if (!root) return;
  root.querySelector('.detail-flash')?.remove();
  root.prepend(h('div', { class: ['notice', `tone-${tone}`, 'detail-flash'], attrs: { role: tone === 'bad' ? 'alert' : 'status' } }, text));
}

function signersTable(s: Strings, r: SignatureRequest): HTMLElement {
  return h(
    'section',
    { class: 'block' },
    h('h2', { class: 'subtitle' }, s.t('reqSigners')),
    dataTable(s, {
      caption: s.t('reqSignersCaption', { title: r.title }),
      columns: ['reqSignerName', 'reqSignerContact', 'reqStatus', 'reqSignedAt'],
      rows: r.signers.map((x) =>
        h(
          'tr',
          null,
          h('th', { attrs: { scope: 'row' } }, bdi(x.name)),
          h('td', { attrs: { dir: 'ltr' }, class: 'contact' }, x.email ?? x.phone ?? '—'),
          h('td', null, statusBadge(s, x.status, statusTone(x.status), 'signerStatus_')),
          h('td', { class: 'nowrap' }, x.signed_at ? when(s, x.signed_at) : '—'),
        ),
      ),
    }),
  );
}

function timeline(s: Strings, events: ApiEvent[]): HTMLElement {
  const list = [...events].reverse();
  return h(
    'section',
    { class: 'block' },
    h('h2', { class: 'subtitle' }, s.t('reqTimeline')),
    list.length === 0
      ? h('p', { class: 'muted' }, s.t('reqNoEvents'))
      : h(
          'ol',
          { class: 'timeline', attrs: { 'aria-label': s.t('reqTimeline') } },
          list.map((e) =>
            h(
              'li',
              { class: 'timeline-item' },
              h('span', { class: 'timeline-dot', attrs: { 'aria-hidden': 'true' } }, icon('activity')),
              h('code', { class: 'event-type', attrs: { dir: 'ltr' } }, e.type),
              h('time', { class: 'muted', attrs: { datetime: new Date(e.created_at * 1000).toISOString() } }, when(s, e.created_at)),
            ),
          ),
        ),
  );
}
