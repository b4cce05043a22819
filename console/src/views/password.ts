/**
 * Forgot password (POST /password_reset: 202 whatever the email, so the screen says the same thing
 * whether an account exists) and reset password, opened from the emailed link
 * /console/reset#token=…: the token is in the fragment, which the browser never sends, so it
 * reaches no server or proxy log; it is read once and the address replaced at once
 * (history.replaceState), so it stays out of the history, bookmarks and screenshots; the page's
 * no-referrer policy keeps it out of every Referer.
 */
import { h } from '@tawqi/signing-page/dom';
import { p } from '@tawqi/signing-page/kit';
import { checks, Form, type FieldSpec } from '../form.js';
import type { Strings } from '../i18n.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cardScreen, linkButton, textLink } from './parts.js';

/** The shortest password the console asks for (the server has the last word and names its own rule). */
export const MIN_PASSWORD = 10;

export function forgotPasswordScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const screen = cardScreen({ icon: 'mail', title: s.t('forgotTitle'), intro: s.t('forgotIntro') });
  const form = new Form(
    s,
    [{ name: 'email', label: s.t('email'), type: 'email', autocomplete: 'username', inputmode: 'email', check: checks.email(s) }],
    s.t('forgotSubmit'),
    async ({ email }) => {
      await ctx.api.requestPasswordReset(email!);
      screen.heading.textContent = s.t('forgotSentTitle');
      form.root.replaceWith(p('lead', s.t('forgotSentBody', { email: email! })));
      screen.root.querySelector('.lead')?.remove();
      screen.heading.focus();
    },
  );
  screen.root.append(form.finish(), h('p', { class: 'card-foot' }, textLink(s.t('backToSignIn'), '/sign-in')));
  return screen;
}

/** The new password and its confirmation. */
export function newPasswordFields(s: Strings): FieldSpec[] {
  return [
    {
      name: 'password',
      label: s.t('newPassword'),
      type: 'password',
      autocomplete: 'new-password',
      hint: s.t('passwordHint', { min: MIN_PASSWORD }),
      check: (v) =>
        v === '' ? s.t('passwordRequired') : [...v].length < MIN_PASSWORD ? s.t('passwordTooShort', { min: MIN_PASSWORD }) : null,
    },
    {
      name: 'confirm',
      label: s.t('confirmPassword'),
      type: 'password',
      autocomplete: 'new-password',
      check: (v, all) => (v === '' ? s.t('confirmRequired') : v !== all.password ? s.t('confirmMismatch') : null),
    },
  ];
}

/**
 * The token of an emailed link, taken out of the address bar at once: in the fragment (#token=…),
 * or in the query (?token=…) of the links sent before the token moved to the fragment. A
 * re-render (the language switch) finds the address already clean, so the token read first is
 * kept for the page's life.
 */
const taken = new Map<string, string>();
export function takeToken(ctx: ScreenContext, path: string): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') || ctx.place.query.get('token');
  if (token) {
    taken.set(path, token);
    window.history.replaceState(null, '', at(path));
  }
  return taken.get(path) ?? null;
}

/** A link that cannot be used: say so and offer the way forward. */
export function invalidLinkScreen(ctx: ScreenContext, body: string, action: HTMLElement): Screen {
  return cardScreen(
    { icon: 'alert', tone: 'warn', title: ctx.s.t('linkInvalidTitle'), intro: body },
    h('div', { class: 'actions' }, action),
  );
}

export function resetPasswordScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const token = takeToken(ctx, '/reset');
  if (!token) return invalidLinkScreen(ctx, s.t('linkInvalidBody'), linkButton(s.t('requestNewLink'), '/forgot-password', 'primary'));
  const screen = cardScreen({ icon: 'lock', title: s.t('resetTitle'), intro: s.t('resetIntro') });
  const form = new Form(s, newPasswordFields(s), s.t('resetSubmit'), async ({ password }) => {
    await ctx.api.confirmPasswordReset(token, password!);
    taken.delete('/reset');
    ctx.flash(s.t('resetDoneBody'));
    ctx.go(at('/sign-in'), { replace: true });
  });
  screen.root.append(form.finish());
  return screen;
}
