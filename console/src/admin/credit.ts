/**
 * The operator's changes to an account, each a form whose submit asks first (the console's confirm
 * dialog) and whose refusals land on the field the server names: the plan and its expiry (PATCH
 * /admin/accounts/:id), a wallet top-up (POST …/wallet_topups {amount, note}) and added sends
 * (POST …/sends {sends, note}). `changed` reloads the page's facts and ledger and says what happened.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { Form } from '../form.js';
import type { Key, Strings } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';
import type { ScreenContext } from '../screen.js';
import { count, day, endOfDay, money, PLANS, type AdminAccountDetail } from './model.js';

type Changed = (message: string) => Promise<void>;

const AMOUNT = /^\d{1,9}(\.\d{1,2})?$/;
const WHOLE = /^\d{1,8}$/;

export function creditForms(ctx: ScreenContext, a: AdminAccountDetail, changed: Changed): HTMLElement {
  const { s } = ctx;
  const part = (id: string, title: Key, form: HTMLElement) =>
    h('section', { class: 'adm-change', attrs: { 'aria-labelledby': id } }, h('h2', { id, class: 'subtitle' }, s.t(title)), form);
  return h(
    'div',
    { class: 'adm-change-grid' },
    part('adm-plan', 'admPlanTitle', planForm(ctx, a, changed)),
    part('adm-topup', 'admTopupTitle', topupForm(ctx, a, changed)),
    part('adm-sends', 'admSendsTitle', sendsForm(ctx, a, changed)),
  );
}

const path = (a: AdminAccountDetail, rest = '') => `/admin/accounts/${encodeURIComponent(a.id)}${rest}`;

function planForm(ctx: ScreenContext, a: AdminAccountDetail, changed: Changed): HTMLFormElement {
  const { s } = ctx;
  const selectId = nextId('adm');
  const select = h(
    'select',
    { class: 'input', attrs: { name: 'plan', id: selectId } },
    PLANS.map((p) => h('option', { attrs: { value: p, selected: p === a.plan.name } }, s.t(`admPlan_${p}`))),
  );
  const form = new Form(
    s,
    [{ name: 'plan_expires_at', label: s.t('admPlanExpiry'), type: 'date', autocomplete: 'off', hint: s.t('admPlanExpiryHint') }],
    s.t('admPlanSubmit'),
    async (values) => {
      const plan = select.value;
      const until = values.plan_expires_at ? endOfDay(values.plan_expires_at) : undefined;
      const expiry = until === undefined ? s.t('admPlanExpiryKept') : day(s, until);
      const body = s.t('admPlanConfirmBody', { account: a.name, plan: s.t(`admPlan_${plan}` as Key), expiry });
      if (!(await ask(s, s.t('admPlanConfirmTitle'), body, s.t('admPlanSubmit')))) return;
      await ctx.api.call('PATCH', path(a), { plan, ...(until === undefined ? {} : { plan_expires_at: until }) });
      await changed(s.t('admPlanChanged', { account: a.name, plan: s.t(`admPlan_${plan}` as Key) }));
    },
  );
  // The plan is a choice, not a typed value: a select of its own, first in the form (after its alert).
  form.root.firstElementChild!.after(
    h('div', { class: ['field', 'adm-select'] }, h('label', { attrs: { for: selectId } }, s.t('admColPlan')), select),
  );
  return form.finish();
}

function topupForm(ctx: ScreenContext, a: AdminAccountDetail, changed: Changed): HTMLFormElement {
  const { s } = ctx;
  const currency = a.balance.wallet.currency;
  const form: Form = new Form(
    s,
    [
      {
        name: 'amount',
        label: s.t('admTopupAmount', { currency }),
        autocomplete: 'off',
        inputmode: 'numeric',
        hint: s.t('admTopupAmountHint'),
        check: (v) => (AMOUNT.test(v) && Number(v) > 0 ? null : s.t('admTopupAmountBad')),
      },
      noteSpec(s),
    ],
    s.t('admTopupSubmit'),
    async (values) => {
      const amount = money(s, { amount: Number(values.amount), currency });
      if (!(await ask(s, s.t('admTopupConfirmTitle'), s.t('admTopupConfirmBody', { amount, account: a.name }), s.t('admTopupSubmit'))))
        return;
      await ctx.api.call('POST', path(a, '/wallet_topups'), { amount: values.amount, ...(values.note ? { note: values.note } : {}) });
      clear(form, ['amount', 'note']);
      await changed(s.t('admTopupDone', { amount, account: a.name }));
    },
  );
  return form.finish();
}

function sendsForm(ctx: ScreenContext, a: AdminAccountDetail, changed: Changed): HTMLFormElement {
  const { s } = ctx;
  const form: Form = new Form(
    s,
    [
      {
        name: 'sends',
        label: s.t('admSendsCount'),
        autocomplete: 'off',
        inputmode: 'numeric',
        check: (v) => (WHOLE.test(v) && Number(v) > 0 ? null : s.t('admSendsBad')),
      },
      noteSpec(s),
    ],
    s.t('admSendsSubmit'),
    async (values) => {
      const sends = count(s, Number(values.sends));
      if (!(await ask(s, s.t('admSendsConfirmTitle'), s.t('admSendsConfirmBody', { sends, account: a.name }), s.t('admSendsSubmit'))))
        return;
      await ctx.api.call('POST', path(a, '/sends'), { sends: Number(values.sends), ...(values.note ? { note: values.note } : {}) });
      clear(form, ['sends', 'note']);
      await changed(s.t('admSendsDone', { sends, account: a.name }));
    },
  );
  return form.finish();
}

const noteSpec = (s: Strings) => ({
  name: 'note',
  label: s.t('admNote'),
  autocomplete: 'off',
  hint: s.t('admNoteHint'),
  check: (v: string) => (v.length > 200 ? s.t('admNoteLong') : null),
});

const clear = (form: Form, names: string[]) => names.forEach((n) => (form.input(n).value = ''));

/** The confirm step: a primary (not destructive) dialog; "Not now" keeps everything as it is. */
const ask = (s: Strings, title: string, body: string, confirm: string) =>
  confirmDialog(s, { title, body, confirm, cancel: s.t('admNotNow'), tone: 'primary' });
