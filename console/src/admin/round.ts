/**
 * A company verification round for the operator (GET /console/api/admin/company_verifications/:id):
 * the account, the state, the representative's identity check (the name read from the document and
 * whether it matches), the documents (each a download: a plain link with `download`, the browser
 * saves the bytes the server sends as an attachment, and the server records the download), and,
 * while pending, the decision (decide.ts).
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { messageSlot } from '../views/notice.js';
import { pageScreen, textLink } from '../views/parts.js';
import { decision } from './decide.js';
import type { CompanyDocument } from '../verification/model.js';
import { code, type Representative, type ReviewRound } from './model.js';
import { checkText, errorNotice, fact, kybBadge } from './parts.js';

export function roundScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const { slot, say } = messageSlot();
  const body = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen(
    { title: s.t('admRoundTitle') },
    h('p', null, textLink(s.t('admBackToQueue'), '/admin/company-verifications')),
    slot,
    body,
  );
  const load = async (): Promise<void> => {
    body.setAttribute('aria-busy', 'true');
    try {
      const r = await ctx.api.call<ReviewRound>('GET', `/admin/company_verifications/${encodeURIComponent(id)}`);
      screen.heading.replaceChildren(s.t('admRoundHeading'), ' ', bdi(r.account.name));
      document.title = s.t('docTitle', { page: r.account.name });
      const decided = async (message: string) => {
        await load();
        say(message, 'ok');
      };
      body.replaceChildren(facts(ctx, r), representative(ctx, r.representative), documents(ctx, r), decision(ctx, r, decided, say) ?? '');
    } catch (err) {
      body.replaceChildren(errorNotice(s, err));
    } finally {
      body.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

function facts(ctx: ScreenContext, r: ReviewRound): HTMLElement {
  const { s } = ctx;
  return h(
    'dl',
    { class: ['req-facts', 'adm-facts'] },
    fact(s, 'admColAccount', h('span', null, textLink(r.account.name, `/admin/accounts/${r.account.id}`), ' ', code(r.account.id))),
    fact(s, 'reqStatus', kybBadge(s, r.status)),
    fact(s, 'admSubmitted', r.submitted_at ? when(s, r.submitted_at) : '—'),
    r.decided_at ? fact(s, 'admDecided', when(s, r.decided_at)) : null,
    r.decision_reason ? fact(s, 'admRejectionReason', bdi(r.decision_reason), true) : null,
  );
}

function representative(ctx: ScreenContext, rep: Representative | null): HTMLElement {
  const { s } = ctx;
  const match = rep?.name_match;
  const content = !rep
    ? h('p', { class: 'muted' }, s.t('admRepNone'))
    : h(
        'dl',
        { class: ['req-facts', 'adm-facts', 'adm-rep'] },
        fact(s, 'admRepName', bdi(rep.name)),
        fact(s, 'admRepCheck', `${checkText(s, rep.status)}${rep.simulated ? ` · ${s.t('admRepSimulated')}` : ''}`),
        fact(s, 'admRepNameRead', match?.document_name ? bdi(match.document_name) : '—'),
        fact(s, 'admRepNameMatch', match ? s.t(`admMatch_${match.state}` as Key) : '—'),
        fact(
          s,
          'admRepDocument',
          rep.document_type ? code(`${rep.document_type}${rep.document_last4 ? ` ··${rep.document_last4}` : ''}`) : '—',
        ),
        rep.completed_at ? fact(s, 'admRepCompleted', when(s, rep.completed_at)) : null,
      );
  return h(
    'section',
    { class: 'adm-section', attrs: { 'aria-labelledby': 'adm-rep' } },
    h('h2', { id: 'adm-rep', class: 'subtitle' }, s.t('admRepresentative')),
    content,
  );
}

function documents(ctx: ScreenContext, r: ReviewRound): HTMLElement {
  const { s } = ctx;
  const docs = r.documents ?? [];
  const href = (d: CompanyDocument) =>
    `/console/api/admin/company_verifications/${encodeURIComponent(r.id)}/documents/${encodeURIComponent(d.id)}`;
  const size = (n: number) => s.t('admKiB', { size: (n / 1024).toFixed(1) });
  const rows = docs.map((d) =>
    h(
      'tr',
      { attrs: { 'data-document': d.id } },
      h(
        'th',
        { attrs: { scope: 'row' } },
        h('a', { class: 'text-link', attrs: { href: href(d), download: d.file_name } }, bdi(d.file_name)),
      ),
      h('td', null, code(d.content_type)),
      h('td', { class: 'nowrap' }, size(d.size)),
      h('td', { class: 'nowrap' }, when(s, d.created_at)),
    ),
  );
  return h(
    'section',
    { class: 'adm-section', attrs: { 'aria-labelledby': 'adm-docs' } },
    h('h2', { id: 'adm-docs', class: 'subtitle' }, s.t('admDocuments')),
    docs.length
      ? dataTable(s, { caption: s.t('admDocuments'), columns: ['admColFile', 'admColType', 'admColSize', 'admColUploaded'], rows })
      : h('p', { class: 'muted' }, s.t('admDocsNone')),
  );
}
