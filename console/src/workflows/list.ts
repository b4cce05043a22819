/**
 * Workflows (/console/workflows): every workflow of the account — the built-in default, drafts,
 * published and archived ones (GET /console/api/workflows; the public GET /flows shows published
 * ones only) — with its state, latest version and last change; "New workflow" for a user with
 * requests.write.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { errorText, statusBadge } from '../requests/parts.js';
import { when } from '../requests/model.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { linkButton, pageScreen } from '../views/parts.js';
import { canWrite, stateTone, workflowsApi, type Workflow } from './model.js';

export function workflowListScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const results = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('navWorkflows'), intro: s.t('wfIntro') }, h('p', { class: 'muted' }, s.t('wfPlanNote')), results);
  if (canWrite(ctx.session?.permissions))
    screen.root
      .querySelector('.page-head')
      ?.append(h('div', { class: 'page-actions' }, linkButton(s.t('wfNew'), '/workflows/new', 'primary')));
  void workflowsApi
    .list(ctx.api)
    .then((list) => {
      replace(results, table(ctx, list.data));
      ctx.announce(s.t('wfCount', { count: list.data.length }));
    })
    .catch((err: unknown) => replace(results, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => results.removeAttribute('aria-busy'));
  return screen;
}

function table(ctx: ScreenContext, rows: Workflow[]): HTMLElement {
  const { s } = ctx;
  return dataTable(s, {
    caption: s.t('wfCaption'),
    columns: ['wfName', 'wfStateCol', 'wfLatest', 'wfUpdated'],
    rows: rows.map((w) =>
      h(
        'tr',
        { attrs: { 'data-workflow': w.id } },
        h(
          'th',
          { attrs: { scope: 'row' } },
          h('a', { class: 'text-link', attrs: { href: at(`/workflows/${w.id}`) } }, bdi(w.name)),
          h('div', { class: 'muted small mono', attrs: { dir: 'ltr' } }, w.id),
        ),
        h(
          'td',
          null,
          statusBadge(s, w.status, stateTone(w), 'wfState_'),
          w.default ? h('span', { class: 'muted small wf-builtin' }, s.t('wfBuiltIn')) : null,
        ),
        h('td', null, w.version === null ? s.t('wfNone') : s.t('wfVersionN', { version: w.version })),
        h('td', { class: 'nowrap' }, when(s, w.updated_at)),
      ),
    ),
  });
}
