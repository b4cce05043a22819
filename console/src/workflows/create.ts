/**
 * A new workflow (/console/workflows/new): the editor with the base settings (those of the
 * built-in default); saving creates a draft (POST /console/api/workflows) and opens its page,
 * where it is published.
 */
import { h } from '@tawqi/signing-page/dom';
import type { ListPage } from '../publicApi.js';
import type { Template } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen, textLink } from '../views/parts.js';
import { settingsEditor } from './editor.js';
import { canWrite, workflowsApi } from './model.js';

export function workflowNewScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const back = h('p', null, textLink(s.t('wfBack'), '/workflows'));
  if (!canWrite(ctx.session?.permissions)) return pageScreen({ title: s.t('wfNew') }, back, emptyState('lock', s.t('wfNoWrite')));
  const slot = h('div', { class: 'form-slot', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('wfNew'), intro: s.t('wfNewIntro') }, back, slot);
  // The base settings are the default workflow's: read them rather than keep a copy here.
  void Promise.all([
    workflowsApi.read(ctx.api, 'wf_default'),
    ctx.publicApi.get<ListPage<Template>>(ctx.livemode, '/templates', { limit: 100 }),
  ])
    .then(([base, templates]) => {
      const form = settingsEditor(s, {
        name: '',
        settings: base.settings,
        templates: templates.data,
        submitLabel: s.t('wfCreate'),
        onSubmit: async (body) => {
          const made = await workflowsApi.create(ctx.api, body);
          ctx.flash(s.t('wfCreated'));
          ctx.go(at(`/workflows/${made.id}`));
        },
      });
      slot.replaceChildren(form);
    })
    .catch((err: unknown) => slot.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => slot.removeAttribute('aria-busy'));
  return screen;
}
