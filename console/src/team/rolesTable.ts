/** "What each role can do": the permission table of the README, drawn from the same data (roles.ts). */
import { h } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';
import { PERMISSIONS, ROLE_PERMISSIONS, ROLES } from './roles.js';

export function rolesTable(s: Strings): HTMLElement {
  const yes = () => h('span', { class: 'perm-yes' }, icon('check'), h('span', { class: 'sr-only' }, s.t('teamPermYes')));
  const no = () =>
    h(
      'span',
      { class: 'perm-no' },
      h('span', { attrs: { 'aria-hidden': 'true' } }, '–'),
      h('span', { class: 'sr-only' }, s.t('teamPermNo')),
    );
  return h(
    'section',
    { class: 'team-roles', attrs: { 'aria-labelledby': 'team-roles-title' } },
    h('h2', { id: 'team-roles-title', class: 'subtitle' }, s.t('teamRolesTitle')),
    h(
      'ul',
      { class: 'role-abouts' },
      ROLES.map((r) => h('li', null, h('strong', null, s.t(`role_${r}` as Key)), ' — ', s.t(`teamRoleAbout_${r}` as Key))),
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'data-table perm-table' },
        h('caption', { class: 'sr-only' }, s.t('teamRolesTitle')),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { attrs: { scope: 'col' } }, s.t('teamPermission')),
            ROLES.map((r) => h('th', { attrs: { scope: 'col' } }, s.t(`role_${r}` as Key))),
          ),
        ),
        h(
          'tbody',
          null,
          PERMISSIONS.map((perm) =>
            h(
              'tr',
              null,
              h('th', { attrs: { scope: 'row' } }, s.t(`teamPerm_${perm.replace('.', '_')}` as Key)),
              ROLES.map((r) => h('td', null, ROLE_PERMISSIONS[r].includes(perm) ? yes() : no())),
            ),
          ),
        ),
      ),
    ),
  );
}
