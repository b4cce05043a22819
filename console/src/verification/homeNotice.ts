/**
 * The console home's reminder while the company is not verified: live keys answer 403
 * kyb_required until it is, so the home page says so and links to the Company verification page.
 * Nothing is shown once approved, to an operator (no account), or when the state cannot be read.
 */
import { fillNodes, h } from '@tawqi/signing-page/dom';
import { icon, p } from '@tawqi/signing-page/kit';
import type { ScreenContext } from '../screen.js';
import { textLink } from '../views/parts.js';
import { verificationApi } from './model.js';

export function verificationNotice(ctx: ScreenContext): HTMLElement {
  const { s } = ctx;
  const slot = h('div', { class: 'kyb-home' });
  if (!ctx.session?.account) return slot;
  slot.setAttribute('aria-busy', 'true');
  void verificationApi(ctx.api)
    .view()
    .finally(() => slot.removeAttribute('aria-busy'))
    .then(
      (v) => {
        if (v.status === 'approved') return;
        const code = h('code', { class: 'mono', attrs: { dir: 'ltr' } }, '403 kyb_required');
        slot.replaceChildren(
          h(
            'div',
            { class: ['notice', v.status === 'rejected' ? 'tone-bad' : 'tone-warn'] },
            icon('shield'),
            h(
              'div',
              null,
              p(null, ...fillNodes(s.t(`kybHome_${v.status}`), { error: code })),
              textLink(s.t('kybHomeLink'), '/verification'),
            ),
          ),
        );
      },
      () => undefined,
    );
  return slot;
}
