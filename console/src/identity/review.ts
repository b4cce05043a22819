/**
 * The identity review queue (issue 15 point 5) for the layout's live/test mode, from GET
 * /console/api/identity_reviews: signers held on a name mismatch (the name sent and the name on
 * the document side by side, the document type, the last four digits) and identity checks a
 * provider put in review. A held mismatch is approved or rejected through the public API (POST
 * /signers/{id}/identity_match with the console credential, issue 15 point 6) after a confirm
 * dialog that says what follows; the decided item leaves the queue. A viewer sees no buttons.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import type { ListPage } from '../publicApi.js';
import { confirmDialog } from '../requests/dialog.js';
import { canWrite, when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen } from '../views/parts.js';

const PAGE_SIZE = 50;

export interface IdentityReview {
  id: string;
  kind: 'name_match' | 'in_review';
  signer: { id: string; name: string; status: string };
  signature_request: { id: string; title: string };
  sent_name: string;
  document_name: string | null;
  document_type: string | null;
  document_last4: string | null;
  since: number;
}

/** Document types with a name of their own; any other is shown as its code. */
const DOCUMENT_TYPES: Record<string, Key> = {
  national_id: 'idrDocNationalId',
  passport: 'idrDocPassport',
  residence_permit: 'idrDocResidence',
  driving_license: 'idrDocDriving',
  simulated_id: 'idrDocSimulated',
};

export function identityReviewScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const list = h('ul', { class: 'idr-list', attrs: { 'aria-label': s.t('idrQueue') } });
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navIdentity'), intro: s.t(ctx.livemode ? 'idrIntroLive' : 'idrIntroTest') }, results);
  const more = button(s.t('idrMore'), 'secondary', () => void load(more.dataset.cursor));
  const showEmptyIfDone = () => {
    if (list.childElementCount === 0 && !more.isConnected) results.replaceChildren(emptyState('userCheck', s.t('idrNone')));
  };
  const load = async (cursor?: string): Promise<void> => {
    try {
      const q = new URLSearchParams({ livemode: String(ctx.livemode), limit: String(PAGE_SIZE) });
      if (cursor) q.set('starting_after', cursor);
      const page = await ctx.api.call<ListPage<IdentityReview>>('GET', `/identity_reviews?${q}`);
      list.append(...page.data.map((r) => item(ctx, r, showEmptyIfDone)));
      more.dataset.cursor = page.next_cursor ?? '';
      results.replaceChildren(list, page.has_more ? more : '');
      showEmptyIfDone();
      if (!cursor) ctx.announce(s.t('idrCount', { count: page.data.length }));
    } catch (err) {
      results.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      results.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

function item(ctx: ScreenContext, r: IdentityReview, afterRemove: () => void): HTMLLIElement {
  const { s } = ctx;
  const name = r.signer.name;
  const fact = (label: Key, value: Node | string) => h('div', { class: 'idr-fact' }, h('dt', null, s.t(label)), h('dd', null, value));
  const typeKey = r.document_type ? DOCUMENT_TYPES[r.document_type] : undefined;
  const docType = typeKey ? s.t(typeKey) : (r.document_type ?? '—');
  const status = h('div', { class: 'idr-status' });
  const li = h(
    'li',
    { class: 'idr-item', attrs: { 'data-signer': r.signer.id } },
    h(
      'div',
      { class: 'idr-head' },
      h('h2', { class: 'subtitle', attrs: { tabindex: '-1' } }, bdi(name)),
      h(
        'span',
        { class: ['pill', r.kind === 'name_match' ? 'pill-warn' : 'pill-brand'] },
        s.t(r.kind === 'name_match' ? 'idrKindMatch' : 'idrKindReview'),
      ),
    ),
    h(
      'p',
      { class: 'idr-request' },
      s.t('idrRequest'),
      ' ',
      h('a', { class: 'text-link', attrs: { href: at(`/requests/${r.signature_request.id}`) } }, bdi(r.signature_request.title)),
    ),
    h(
      'dl',
      { class: 'idr-names' },
      fact('idrSentName', bdi(r.sent_name)),
      // A check in review has no document name to compare yet.
      r.kind === 'name_match' ? fact('idrDocumentName', r.document_name ? bdi(r.document_name) : '—') : null,
    ),
    h(
      'dl',
      { class: 'idr-facts' },
      fact('idrDocumentType', docType),
      fact('idrLast4', h('code', { attrs: { dir: 'ltr' } }, r.document_last4 ?? '—')),
      fact('idrSince', when(s, r.since)),
    ),
    status,
  );
  if (r.kind === 'in_review') status.append(h('p', { class: 'muted small' }, s.t('idrInReviewNote')));
  else if (canWrite(ctx.session?.permissions)) status.append(decisions(ctx, r, li, afterRemove));
  return li;
}

function decisions(ctx: ScreenContext, r: IdentityReview, li: HTMLLIElement, afterRemove: () => void): HTMLElement {
  const { s } = ctx;
  const decide = async (decision: 'approve' | 'reject'): Promise<void> => {
    const approve = decision === 'approve';
    const vars = { name: r.signer.name, title: r.signature_request.title };
    const yes = await confirmDialog(s, {
      title: s.t(approve ? 'idrApproveTitle' : 'idrRejectTitle', vars),
      body: s.t(approve ? 'idrApproveBody' : 'idrRejectBody', vars),
      confirm: s.t(approve ? 'idrApprove' : 'idrReject'),
      cancel: s.t('idrKeep'),
      tone: approve ? 'primary' : 'danger',
    });
    if (!yes) return;
    li.querySelector('.idr-error')?.remove();
    try {
      await ctx.publicApi.post(ctx.livemode, `/signers/${r.signer.id}/identity_match`, { decision }, { idempotent: true });
    } catch (err) {
      li.append(h('div', { class: 'notice tone-bad idr-error', attrs: { role: 'alert' } }, errorText(s, err)));
      return;
    }
    removeItem(li, s.t(approve ? 'idrApproved' : 'idrRejected', vars), ctx);
    afterRemove();
  };
  return h(
    'div',
    { class: 'action-row' },
    button(s.t('idrApprove'), 'primary', () => void decide('approve')),
    button(s.t('idrReject'), 'danger', () => void decide('reject')),
  );
}

/** The decided item leaves the queue; the focus goes to the next item (or the page heading), the outcome is announced. */
function removeItem(li: HTMLLIElement, said: string, ctx: ScreenContext): void {
  const next = (li.nextElementSibling ?? li.previousElementSibling)?.querySelector<HTMLElement>('h2');
  const page = li.closest('.page');
  li.remove();
  (next ?? page?.querySelector<HTMLElement>('h1'))?.focus();
  page?.querySelector('.idr-flash')?.remove();
  page?.querySelector('.page-head')?.after(h('div', { class: 'notice tone-ok idr-flash', attrs: { role: 'status' } }, said));
  ctx.announce(said);
}
