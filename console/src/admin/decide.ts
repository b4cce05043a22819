/**
 * The operator's decision on a pending round, each behind a confirm dialog: approve (POST …/approve:
 * the account's live keys work from the next request) or reject with a reason of 3 to 1000
 * characters the owner reads (POST …/reject {reason}; a refusal lands on the reason field).
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import { Form } from '../form.js';
import { confirmDialog } from '../requests/dialog.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';
import type { Say } from '../views/notice.js';
import type { ReviewRound } from './model.js';

type Decided = (message: string) => Promise<void>;

export function decision(ctx: ScreenContext, r: ReviewRound, decided: Decided, say: Say): HTMLElement | null {
  const { s } = ctx;
  if (r.status !== 'pending') return null;
  const base = `/admin/company_verifications/${encodeURIComponent(r.id)}`;
  const approve = button(s.t('admApprove'), 'primary', () => {
    void (async () => {
      const body = s.t('admApproveBody', { account: r.account.name });
      if (
        !(await confirmDialog(s, {
          title: s.t('admApproveTitle'),
          body,
          confirm: s.t('admApprove'),
          cancel: s.t('admNotNow'),
          tone: 'primary',
        }))
      )
        return;
      await ctx.api.call('POST', `${base}/approve`, {});
      await decided(s.t('admApproved', { account: r.account.name }));
    })().catch((err: unknown) => say(errorText(s, err), 'bad'));
  });
  const reject = new Form(
    s,
    [
      {
        name: 'reason',
        label: s.t('admRejectReason'),
        autocomplete: 'off',
        hint: s.t('admRejectReasonHint'),
        check: (v) => (v.length < 3 || v.length > 1000 ? s.t('admRejectReasonBad') : null),
      },
    ],
    s.t('admReject'),
    async ({ reason }) => {
      const body = s.t('admRejectBody', { account: r.account.name, reason: reason! });
      if (!(await confirmDialog(s, { title: s.t('admRejectTitle'), body, confirm: s.t('admReject'), cancel: s.t('admNotNow') }))) return;
      await ctx.api.call('POST', `${base}/reject`, { reason });
      await decided(s.t('admRejected', { account: r.account.name }));
    },
  );
  // Rejecting is the destructive answer: the danger look, and not the full width of a main action.
  reject.submit.classList.replace('btn-primary', 'btn-danger');
  reject.submit.classList.remove('btn-block');
  return h(
    'section',
    { class: ['adm-section', 'adm-decide'], attrs: { 'aria-labelledby': 'adm-decide' } },
    h('h2', { id: 'adm-decide', class: 'subtitle' }, s.t('admDecide')),
    h('p', { class: 'muted' }, s.t('admDecideIntro'), ' ', bdi(r.account.name)),
    h('div', { class: 'action-row' }, approve),
    reject.finish(),
  );
}
