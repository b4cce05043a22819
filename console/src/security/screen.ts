/**
 * The Security screen (/console/security): the signed-in user's own two-step verification
 * (twoFactor.ts), their password (POST /password: the current one and a new one; the server's
 * rule shown, its refusals on the fields; the other sessions end), and signing out everywhere
 * (POST /sign_out_everywhere after a confirm dialog; the sign-in screen says what happened).
 */
import { h } from '@tawqi/signing-page/dom';
import { button, p } from '@tawqi/signing-page/kit';
import { Form } from '../form.js';
import { confirmDialog } from '../requests/dialog.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot } from '../views/notice.js';
import { pageScreen } from '../views/parts.js';
import { newPasswordFields } from '../views/password.js';
import { currentPasswordField, twoFactorSection, type Section } from './twoFactor.js';

export function securityScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const part = (id: string, title: string, ...children: (Node | null)[]): Section => {
    const messages = messageSlot();
    const root = h(
      'section',
      { class: 'sec-part', attrs: { 'aria-labelledby': id } },
      h('h2', { id, class: 'subtitle' }, title),
      messages.slot,
      ...children,
    );
    return { root, say: messages.say };
  };
  const twoFactor = part(
    'sec-tf',
    s.t('secTfTitle'),
    h('div', { class: 'tf-body', attrs: { 'aria-busy': 'true' } }, p('muted', s.t('loading'))),
  );
  twoFactorSection(ctx, twoFactor);
  const password = part('sec-password', s.t('secPasswordTitle'), p('muted', s.t('secPasswordIntro')));
  password.root.append(passwordForm(ctx, password));
  const everywhere = part('sec-everywhere', s.t('secEverywhereTitle'), p('muted', s.t('secEverywhereBody')));
  everywhere.root.append(h('div', { class: 'actions' }, signOutEverywhereButton(ctx, everywhere)));
  return pageScreen({ title: s.t('navSecurity'), intro: s.t('secIntro') }, twoFactor.root, password.root, everywhere.root);
}

function passwordForm(ctx: ScreenContext, section: Section): HTMLFormElement {
  const { s } = ctx;
  // The new password's fields are the reset screen's, under the names the API gives its refusals.
  const [fresh, confirm] = newPasswordFields(s);
  const form = new Form(
    s,
    [
      currentPasswordField(s, 'current_password', s.t('secCurrentPassword')),
      { ...fresh!, name: 'new_password' },
      { ...confirm!, check: (v, all) => (v === '' ? s.t('confirmRequired') : v !== all.new_password ? s.t('confirmMismatch') : null) },
    ],
    s.t('secPasswordSubmit'),
    async ({ current_password: current, new_password: next }) => {
      await ctx.api.changePassword(current!, next!);
      for (const name of ['current_password', 'new_password', 'confirm']) form.input(name).value = '';
      section.say(s.t('secPasswordChanged'), 'ok');
    },
  );
  form.submit.classList.remove('btn-block');
  return form.finish();
}

function signOutEverywhereButton(ctx: ScreenContext, section: Section): HTMLButtonElement {
  const { s } = ctx;
  const b = button(s.t('secEverywhereSubmit'), 'danger', () => {
    void (async () => {
      const yes = await confirmDialog(s, {
        title: s.t('secEverywhereConfirmTitle'),
        body: s.t('secEverywhereConfirmBody'),
        confirm: s.t('secEverywhereSubmit'),
        cancel: s.t('secStaySignedIn'),
      });
      if (!yes) return;
      try {
        await ctx.api.signOutEverywhere();
        ctx.signedOut(s.t('secSignedOutEverywhere'));
      } catch (err) {
        section.say(errorText(s, err), 'bad');
      }
    })();
  });
  return b;
}
