/** The signed-in screens of this first part: the home page, the sections still to fill, and "not found". */
import { bdi, fillNodes, h } from '@tawqi/signing-page/dom';
import { icon, type IconName } from '@tawqi/signing-page/kit';
import type { Key } from '../i18n.js';
import type { Screen, ScreenContext } from '../screen.js';
import { verificationNotice } from '../verification/homeNotice.js';
import { emptyState, linkButton, pageScreen } from './parts.js';

export function homeScreen(ctx: ScreenContext): Screen {
  const { s, session } = ctx;
  const name = session?.user.name || session?.user.email || '';
  const account = session?.account?.name ?? '';
  const tile = (iconName: IconName, title: Key, body: Key, action: Key, path: string) =>
    h(
      'li',
      { class: 'tile' },
      h('div', { class: 'tile-head' }, h('span', { class: 'tile-icon' }, icon(iconName)), h('h2', { class: 'subtitle' }, s.t(title))),
      h('p', { class: 'muted' }, s.t(body)),
      linkButton(s.t(action), path, 'secondary'),
    );
  const screen = pageScreen(
    { title: s.t('homeGreeting', { name }), intro: fillNodes(s.t('homeIntro'), { account: h('strong', null, bdi(account)) }) },
    verificationNotice(ctx),
    h(
      'ul',
      { class: 'tiles' },
      tile('inbox', 'navRequests', 'homeRequestsBody', 'homeRequestsAction', '/requests'),
      tile('code', 'navDevelopers', 'homeDevelopersBody', 'homeDevelopersAction', '/developers/api-keys'),
      tile('users', 'navTeam', 'homeTeamBody', 'homeTeamAction', '/team'),
    ),
  );
  screen.title = s.t('homeTitle');
  return screen;
}

export function notFoundScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  return pageScreen({ title: s.t('notFoundTitle') }, emptyState('alert', s.t('notFoundBody'), linkButton(s.t('goHome'), '', 'primary')));
}
