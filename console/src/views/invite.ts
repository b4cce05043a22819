/**
 * Accepting an invitation from the emailed link /console/invite#token=…: the invitation's account,
 * email and role (POST /invitations/lookup), then the new member's name and password
 * (POST /invitations/accept). The token leaves the address bar as on the reset screen.
 */
import { bdi, fillNodes, h, replace } from '@tawqi/signing-page/dom';
import { p } from '@tawqi/signing-page/kit';
import { ApiError, type Invitation } from '../api.js';
import { checks, Form } from '../form.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { cardScreen, linkButton } from './parts.js';
import { invalidLinkScreen, newPasswordFields, takeToken } from './password.js';

export function inviteScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const token = takeToken(ctx, '/invite');
  const back = () => linkButton(s.t('goToSignIn'), '/sign-in', 'primary');
  if (!token) return invalidLinkScreen(ctx, s.t('inviteInvalidBody'), back());
  const body = h('div', { class: 'stack' }, p('muted', s.t('inviteChecking')));
  const screen = cardScreen({ icon: 'users', title: s.t('inviteTitle', { account: '…' }) }, body);
  screen.root.setAttribute('aria-busy', 'true');

  const fill = (invitation: Invitation) => {
    screen.heading.textContent = s.t('inviteTitle', { account: invitation.account_name });
    const intro = fillNodes(s.t('inviteIntro'), {
      role: h('strong', null, s.t(`role_${invitation.role}`)),
      email: h('strong', null, bdi(invitation.email)),
    });
    const form = new Form(
      s,
      [
        { name: 'name', label: s.t('yourName'), autocomplete: 'name', check: checks.required(s.t('nameRequired')) },
        ...newPasswordFields(s),
      ],
      s.t('inviteSubmit'),
      async ({ name, password }) => {
        const accepted = await ctx.api.acceptInvitation(token, name!, password!);
        if (accepted?.csrf_token) return ctx.signedIn();
        ctx.flash(s.t('inviteDoneBody', { email: invitation.email }));
        ctx.go(at(`/sign-in`), { replace: true });
      },
    );
    replace(body, p('lead', intro), form.finish());
  };

  ctx.api.invitation(token).then(
    (invitation) => {
      screen.root.removeAttribute('aria-busy');
      fill(invitation);
    },
    (err: unknown) => {
      const gone = err instanceof ApiError && (err.status === 404 || err.status === 410);
      const message = gone
        ? s.t('inviteInvalidBody')
        : err instanceof ApiError && err.serverMessage
          ? err.serverMessage
          : s.t('networkError');
      screen.root.removeAttribute('aria-busy');
      screen.heading.textContent = s.t('linkInvalidTitle');
      replace(body, p('lead', message), h('div', { class: 'actions' }, back()));
    },
  );
  return screen;
}
