/**
 * The Team screen (/console/team): the account's users (GET /users) with their role, status,
 * two-step verification and last sign-in; for a user with users.manage an invitation form, and per
 * member the changes the role rules allow (roles.ts): change the role, remove (after a confirm
 * dialog naming the person), resend or cancel a pending invitation. A change the rules forbid is
 * not offered; its reason is shown instead. A user without users.manage sees the list only.
 */
import { h } from '@tawqi/signing-page/dom';
import { icon, p } from '@tawqi/signing-page/kit';
import type { TeamMember } from '../api.js';
import { checks, Form } from '../form.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot } from '../views/notice.js';
import { pageScreen } from '../views/parts.js';
import { rolePicker } from './rolePicker.js';
import { rolesTable } from './rolesTable.js';
import { grantableRoles } from './roles.js';
import { teamTable, type TeamView } from './table.js';

export function teamScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const manage = ctx.session?.permissions.includes('users.manage') ?? false;
  const messages = messageSlot();
  const list = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, p('muted', s.t('loading')));
  const view: TeamView = { ctx, manage, reload: () => load(), say: messages.say };
  const screen = pageScreen(
    { title: s.t('navTeam'), intro: s.t(manage ? 'teamIntro' : 'teamIntroReadOnly') },
    messages.slot,
    manage ? inviteSection(view) : null,
    h(
      'section',
      { class: 'team-members', attrs: { 'aria-labelledby': 'team-members-title' } },
      h('h2', { id: 'team-members-title', class: 'subtitle' }, s.t('teamMembers')),
      list,
    ),
    rolesTable(s),
  );
  const load = async (): Promise<void> => {
    list.setAttribute('aria-busy', 'true');
    try {
      const { data } = await ctx.api.team();
      list.replaceChildren(teamTable(view, sortMembers(data)));
      ctx.announce(s.t('teamCount', { count: data.length }));
    } catch (err) {
      list.replaceChildren(
        h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, icon('alert'), h('p', null, errorText(s, err))),
      );
    } finally {
      list.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

/** Active members first, then invitations; each by name (or email). */
function sortMembers(rows: TeamMember[]): TeamMember[] {
  const key = (m: TeamMember) => `${m.status === 'active' ? 0 : 1}${(m.name || m.email).toLowerCase()}`;
  return [...rows].sort((a, b) => key(a).localeCompare(key(b)));
}

function inviteSection(view: TeamView): HTMLElement {
  const { s, session } = view.ctx;
  const actor = session!.user;
  const roles = grantableRoles(actor);
  const picker = rolePicker(s, {
    legend: s.t('teamRole'),
    roles,
    value: 'developer',
    note: actor.role === 'owner' ? null : s.t('teamOnlyOwnerMakesOwner'),
  });
  const form = new Form(
    s,
    [{ name: 'email', label: s.t('teamInviteEmail'), type: 'email', autocomplete: 'off', inputmode: 'email', check: checks.email(s) }],
    s.t('teamInviteSubmit'),
    async ({ email }) => {
      await view.ctx.api.invite(email!, picker.value());
      form.input('email').value = '';
      view.say(s.t('teamInvited', { email: email! }), 'ok');
      await view.reload();
    },
  );
  form.submit.classList.remove('btn-block');
  const root = h(
    'section',
    { class: 'team-invite', attrs: { 'aria-labelledby': 'team-invite-title' } },
    h('h2', { id: 'team-invite-title', class: 'subtitle' }, s.t('teamInviteTitle')),
    p('muted', s.t('teamInviteIntro')),
    form.finish(picker.root),
  );
  return root;
}
