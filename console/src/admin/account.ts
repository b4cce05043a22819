/**
 * One account for the operator (GET /console/api/admin/accounts/:id): its plan, expiry, balances,
 * company verification and users; the changes (plan and expiry, wallet top-up, added sends, each
 * behind a confirm step: credit.ts) and the account's ledger below (ledger.ts), which shows each
 * change's entry as soon as it is made. A link leads to the account's audit log.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { copyable } from '../views/copy.js';
import { dataTable } from '../views/dataTable.js';
import { messageSlot } from '../views/notice.js';
import { pageScreen, textLink } from '../views/parts.js';
import { creditForms } from './credit.js';
import { ledgerSection } from './ledger.js';
import { count, day, money, type AdminAccountDetail } from './model.js';
import { errorNotice, fact, kybBadge, planText } from './parts.js';

export function accountScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const { slot, say } = messageSlot();
  const summary = h('div', { class: 'detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const changes = h('div', { class: 'adm-changes' });
  const ledger = ledgerSection(ctx, id);
  const screen = pageScreen(
    { title: s.t('admAccountTitle') },
    h('p', null, textLink(s.t('admBackToAccounts'), '/admin'), ' · ', textLink(s.t('admAccountAudit'), `/admin/audit-log?account=${id}`)),
    slot,
    summary,
    changes,
    ledger.root,
  );
  const load = async (): Promise<AdminAccountDetail | null> => {
    try {
      const a = await ctx.api.call<AdminAccountDetail>('GET', `/admin/accounts/${encodeURIComponent(id)}`);
      screen.heading.replaceChildren(bdi(a.name));
      document.title = s.t('docTitle', { page: a.name });
      summary.replaceChildren(facts(ctx, a), users(ctx, a));
      return a;
    } catch (err) {
      summary.replaceChildren(errorNotice(s, err));
      return null;
    } finally {
      summary.removeAttribute('aria-busy');
    }
  };
  void load().then((a) => {
    if (!a) return;
    // After a change: the facts and the ledger again, then the outcome (which takes the focus).
    const changed = async (message: string) => {
      await Promise.all([load(), ledger.reload()]);
      say(message, 'ok');
    };
    changes.replaceChildren(creditForms(ctx, a, changed));
  });
  return screen;
}

function facts(ctx: ScreenContext, a: AdminAccountDetail): HTMLElement {
  const { s } = ctx;
  const round = a.company_verification_submission;
  const kyb = h(
    'span',
    { class: 'adm-kyb' },
    kybBadge(s, a.company_verification),
    round ? textLink(s.t('admOpenRound'), `/admin/company-verifications/${round.id}`) : null,
  );
  return h(
    'dl',
    { class: ['req-facts', 'adm-facts'] },
    fact(s, 'admColId', copyable(s, a.id, s.t('admCopyId'), ctx.announce)),
    fact(s, 'admColOwner', bdi(a.owner_email)),
    fact(s, 'admColPlan', planText(s, a.plan)),
    fact(s, 'admPlanExpiry', a.plan.expires_at === null ? s.t('admPlanNoExpiry') : day(s, a.plan.expires_at)),
    fact(s, 'admColWallet', money(s, a.balance.wallet)),
    fact(s, 'admColSends', count(s, a.balance.sends)),
    fact(s, 'admColKyb', kyb),
    round?.rejection_reason ? fact(s, 'admRejectionReason', bdi(round.rejection_reason), true) : null,
    fact(s, 'reqCreated', when(s, a.created_at)),
  );
}

function users(ctx: ScreenContext, a: AdminAccountDetail): HTMLElement {
  const { s } = ctx;
  const rows = a.users.map((u) =>
    h(
      'tr',
      null,
      h('th', { attrs: { scope: 'row' } }, u.name ? bdi(u.name) : '—'),
      h('td', { class: 'contact' }, bdi(u.email)),
      h('td', null, s.t(`role_${u.role}` as Key)),
      h('td', null, u.last_sign_in_at ? when(s, u.last_sign_in_at) : '—'),
    ),
  );
  return h(
    'section',
    { class: 'adm-section', attrs: { 'aria-labelledby': 'adm-users' } },
    h('h2', { id: 'adm-users', class: 'subtitle' }, s.t('admUsers')),
    a.users.length
      ? dataTable(s, { caption: s.t('admUsers'), columns: ['admColName', 'admColEmail', 'admColRole', 'admColLastSignIn'], rows })
      : h('p', { class: 'muted' }, s.t('admUsersNone')),
  );
}
