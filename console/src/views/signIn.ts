/** Sign-in: email and password (POST /sign_in); a second factor, when on, is the next screen. */
import { h } from '@tawqi/signing-page/dom';
import { checks, Form } from '../form.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cardScreen, textLink } from './parts.js';

export function signInScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const form = new Form(
    s,
    [
      { name: 'email', label: s.t('email'), type: 'email', autocomplete: 'username', inputmode: 'email', check: checks.email(s) },
      {
        name: 'password',
        label: s.t('password'),
        type: 'password',
        autocomplete: 'current-password',
        check: checks.required(s.t('passwordRequired')),
      },
    ],
    s.t('signInSubmit'),
    async ({ email, password }) => {
      const result = await ctx.api.signIn(email!, password!);
      if (result.two_factor_required) {
        const next = ctx.place.query.get('next');
        ctx.go(at(`/sign-in/two-factor${next ? `?next=${encodeURIComponent(next)}` : ''}`));
        return;
      }
      await ctx.signedIn();
    },
  );
  return cardScreen(
    { icon: 'lock', title: s.t('signInTitle'), intro: s.t('signInIntro') },
    form.finish(h('p', { class: 'form-links' }, textLink(s.t('forgotLink'), '/forgot-password'))),
  );
}
