/** What an account's user sees at /console/admin/…: the operator's admin is not theirs (the server answers 403 anyway). */
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';

export function adminNotAllowedScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  return pageScreen(
    { title: s.t('admNotAllowedTitle') },
    emptyState('shield', s.t('admNotAllowed'), linkButton(s.t('goHome'), '', 'secondary')),
  );
}
