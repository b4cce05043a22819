/**
 * The second step of a sign-in with two-step verification on: a 6-digit code from the
 * authenticator app, or (switched with a button) one of the recovery codes.
 */
import { h, replace } from '@tawqi/signing-page/dom';
import { button, p } from '@tawqi/signing-page/kit';
import { Form, type FieldSpec } from '../form.js';
import type { Strings } from '../i18n.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cardScreen, textLink } from './parts.js';

/** Digits typed on an Arabic or Persian keyboard (٠–٩, ۰–۹) count as ASCII digits; spaces are dropped. */
export const digits = (text: string) =>
  text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String((d.charCodeAt(0) & 0xf) % 10)).replace(/\s+/g, '');

/** The authenticator app's 6-digit code (sign-in and enrolment alike). */
export const codeField = (s: Strings): FieldSpec => ({
  name: 'code',
  label: s.t('codeLabel'),
  autocomplete: 'one-time-code',
  inputmode: 'numeric',
  hint: s.t('codeHint'),
  check: (v) => (/^\d{6}$/.test(digits(v)) ? null : s.t('codeInvalid')),
});

export function twoFactorScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const slot = h('div', { class: 'two-factor' });
  const intro = p('lead', s.t('twoFactorIntro'));

  const codeForm = (): HTMLFormElement => {
    const form = new Form(s, [codeField(s)], s.t('verifySubmit'), async ({ code }) => {
      await ctx.api.signInTwoFactor({ code: digits(code!) });
      await ctx.signedIn();
    });
    form.input('code').classList.add('input-otp');
    form.input('code').maxLength = 6;
    return form.finish(
      h(
        'p',
        { class: 'form-links' },
        button(s.t('useRecovery'), 'link', () => show('recovery')),
      ),
    );
  };

  const recoveryForm = (): HTMLFormElement => {
    const form = new Form(
      s,
      [{ name: 'recovery_code', label: s.t('recoveryLabel'), autocomplete: 'off', check: (v) => (v ? null : s.t('recoveryRequired')) }],
      s.t('verifySubmit'),
      async ({ recovery_code }) => {
        await ctx.api.signInTwoFactor({ recovery_code: recovery_code! });
        await ctx.signedIn();
      },
    );
    form.input('recovery_code').classList.add('input-code');
    form.input('recovery_code').dir = 'ltr';
    return form.finish(
      h(
        'p',
        { class: 'form-links' },
        button(s.t('useCode'), 'link', () => show('code')),
      ),
    );
  };

  /** Switch between the two forms; the focus goes to the new field (the switch button is gone). */
  function show(which: 'code' | 'recovery'): void {
    intro.textContent = which === 'code' ? s.t('twoFactorIntro') : s.t('recoveryIntro');
    const form = which === 'code' ? codeForm() : recoveryForm();
    replace(slot, form);
    form.querySelector('input')?.focus();
  }

  replace(slot, codeForm());
  return cardScreen(
    { icon: 'shield', title: s.t('twoFactorTitle') },
    intro,
    slot,
    h('p', { class: 'card-foot' }, textLink(s.t('backToSignIn'), '/sign-in')),
  );
}
