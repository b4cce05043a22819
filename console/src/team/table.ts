/** The members table of the Team screen and each member's actions, as the role rules (roles.ts) allow them. */
import { bdi, h } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button } from '@tawqi/signing-page/kit';
import type { TeamMember } from '../api.js';
import type { Key } from '../i18n.js';
import { confirmDialog } from '../requests/dialog.js';
import { when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';
import { roleDialog } from './rolePicker.js';
import { grantableRoles, manageBlock, type TeamRole } from './roles.js';

export interface TeamView {
  ctx: ScreenContext;
  manage: boolean;
  reload(): Promise<void>;
  say(text: string, tone: 'ok' | 'bad'): void;
}

const shownName = (m: TeamMember) => m.name || m.email;

export function teamTable(view: TeamView, rows: TeamMember[]): HTMLElement {
  const { s } = view.ctx;
  const me = view.ctx.session!.user.id;
  return dataTable(s, {
    caption: s.t('teamMembers'),
    columns: ['teamMember', 'teamRole', 'teamStatus', 'teamTwoStep', 'teamLastSignIn', view.manage && 'teamActions'],
    rows: rows.map((m) =>
      h(
        'tr',
        { attrs: { 'data-member': m.email } },
        h(
          'th',
          { attrs: { scope: 'row' } },
          h(
            'span',
            { class: 'member-name' },
            bdi(shownName(m)),
            m.id === me ? h('span', { class: 'pill pill-muted' }, s.t('teamYou')) : null,
          ),
          m.name ? h('span', { class: 'member-email', attrs: { dir: 'ltr' } }, m.email) : null,
        ),
        h('td', null, s.t(`role_${m.role}` as Key)),
        h(
          'td',
          null,
          h('span', { class: ['pill', m.status === 'active' ? 'pill-ok' : 'pill-warn'] }, s.t(`teamStatus_${m.status}` as Key)),
        ),
        h(
          'td',
          null,
          h(
            'span',
            { class: ['pill', m.two_factor_enabled ? 'pill-ok' : 'pill-muted'] },
            s.t(m.two_factor_enabled ? 'teamTwoStepOn' : 'teamTwoStepOff'),
          ),
        ),
        h('td', { class: 'nowrap' }, m.last_sign_in_at ? when(s, m.last_sign_in_at) : s.t('teamNever')),
        view.manage ? h('td', { class: 'member-actions' }, memberActions(view, m)) : null,
      ),
    ),
    class: 'team-table',
  });
}

const BLOCK_REASON: Record<'self' | 'owner', Key> = { self: 'teamBlockSelf', owner: 'teamBlockOwner' };

function memberActions(view: TeamView, m: TeamMember): HTMLElement {
  const { s, session } = view.ctx;
  const actor = session!.user;
  const block = manageBlock(actor, session!.permissions, m);
  if (block === 'self' || block === 'owner') return h('span', { class: 'muted small' }, s.t(BLOCK_REASON[block]));
  const name = shownName(m);
  const act = (label: Key, variant: 'secondary' | 'danger', run: () => Promise<void>) => {
    const b = button(s.t(label), variant, () => void guarded(view, b, run));
    b.setAttribute('aria-label', s.t(`${label}Of` as Key, { name }));
    return b;
  };
  if (m.status === 'invited') {
    return h(
      'div',
      { class: 'row-actions' },
      act('teamResend', 'secondary', async () => {
        await view.ctx.api.invite(m.email, m.role as TeamRole);
        view.say(s.t('teamResent', { email: m.email }), 'ok');
      }),
      act('teamCancelInvite', 'danger', async () => {
        const yes = await confirmDialog(s, {
          title: s.t('teamCancelInviteTitle', { email: m.email }),
          body: s.t('teamCancelInviteBody', { email: m.email }),
          confirm: s.t('teamCancelInvite'),
          cancel: s.t('teamKeepInvite'),
        });
        if (!yes) return;
        await view.ctx.api.removeMember(m.id);
        view.say(s.t('teamInviteCanceled', { email: m.email }), 'ok');
        await view.reload();
      }),
    );
  }
  return h(
    'div',
    { class: 'row-actions' },
    act('teamChangeRole', 'secondary', async () => {
      const note = actor.role === 'owner' ? null : s.t('teamOnlyOwnerMakesOwner');
      const role = await roleDialog(s, { member: name, roles: grantableRoles(actor), current: m.role as TeamRole, note });
      if (!role) return;
      await view.ctx.api.changeRole(m.id, role);
      view.say(s.t('teamRoleChanged', { name, role: s.t(`role_${role}` as Key) }), 'ok');
      await view.reload();
    }),
    act('teamRemove', 'danger', async () => {
      const account = session!.account?.name ?? '';
      const yes = await confirmDialog(s, {
        title: s.t('teamRemoveTitle', { name }),
        body: s.t('teamRemoveBody', { name, email: m.email, account }),
        confirm: s.t('teamRemove'),
        cancel: s.t('teamKeepMember'),
      });
      if (!yes) return;
      await view.ctx.api.removeMember(m.id);
      view.say(s.t('teamRemoved', { name }), 'ok');
      await view.reload();
    }),
  );
}

/** Run an action once at a time; a refusal is shown in the page's language. */
async function guarded(view: TeamView, b: HTMLButtonElement, run: () => Promise<void>): Promise<void> {
  b.setAttribute('aria-busy', 'true');
  try {
    await run();
  } catch (err) {
    view.say(errorText(view.ctx.s, err), 'bad');
  } finally {
    b.removeAttribute('aria-busy');
  }
}
