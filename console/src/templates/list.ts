/**
 * Templates (issue 16 point 1): the account's own templates and the ready-made library, searched by
 * title (GET /api/v1/templates through the credential: scope=mine, then the library). A user with
 * requests.write opens, duplicates and archives their own (console API, after a confirm dialog for
 * archiving) and copies a library template into their own; a viewer reads them.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { ListPage } from '../publicApi.js';
import { confirmDialog } from '../requests/dialog.js';
import { canWrite, when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { dataTable } from '../views/dataTable.js';
import { messageSlot, type Say } from '../views/notice.js';
import { emptyState, linkButton, pageScreen } from '../views/parts.js';
import type { Template } from './model.js';

const LIMIT = 100;

export function templateListScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const mine = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const library = h('div', { class: 'results' });
  const search = h('input', { class: 'input', attrs: { id: 'tpl-search', type: 'search', name: 'q', autocomplete: 'off' } });
  search.value = ctx.place.query.get('q') ?? '';
  const form = h(
    'form',
    { class: 'tpl-search', attrs: { role: 'search' } },
    h('label', { class: 'label', attrs: { for: 'tpl-search' } }, s.t('tplSearch')),
    h(
      'div',
      { class: 'tpl-search-row' },
      search,
      button(s.t('tplSearchGo'), 'secondary', () => undefined, { type: 'submit' }),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.go(at(`/templates${search.value.trim() ? `?q=${encodeURIComponent(search.value.trim())}` : ''}`));
  });
  const { slot, say } = messageSlot();
  const screen = pageScreen(
    { title: s.t('navTemplates'), intro: s.t('tplIntro') },
    slot,
    form,
    h('h2', { class: 'subtitle' }, s.t('tplMine')),
    mine,
    h('h2', { class: 'subtitle' }, s.t('tplLibrary')),
    library,
  );
  if (canWrite(ctx.session?.permissions))
    screen.root
      .querySelector('.page-head')
      ?.append(h('div', { class: 'page-actions' }, linkButton(s.t('tplNew'), '/templates/new', 'primary')));
  const load = async (): Promise<void> => {
    const q = search.value.trim() || undefined;
    try {
      const [own, all] = await Promise.all([
        ctx.publicApi.get<ListPage<Template>>(ctx.livemode, '/templates', { scope: 'mine', search: q, limit: LIMIT }),
        ctx.publicApi.get<ListPage<Template>>(ctx.livemode, '/templates', { search: q, limit: LIMIT }),
      ]);
      const shelf = all.data.filter((t) => t.source === 'library');
      replace(
        mine,
        own.data.length ? table(ctx, own.data, 'tplCaptionMine', load, say) : emptyState('doc', s.t(q ? 'tplNoneFound' : 'tplNoneMine')),
      );
      replace(library, shelf.length ? table(ctx, shelf, 'tplCaptionLibrary', load, say) : emptyState('doc', s.t('tplNoneFound')));
      ctx.announce(s.t('tplCount', { mine: own.data.length, library: shelf.length }));
    } catch (err) {
      replace(mine, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
    } finally {
      mine.removeAttribute('aria-busy');
    }
  };
  void load();
  return screen;
}

function table(
  ctx: ScreenContext,
  rows: Template[],
  caption: 'tplCaptionMine' | 'tplCaptionLibrary',
  reload: () => Promise<void>,
  say: Say,
): HTMLElement {
  const { s } = ctx;
  const write = canWrite(ctx.session?.permissions);
  return dataTable(s, {
    caption: s.t(caption),
    columns: ['tplTitle', 'tplLanguage', 'tplFieldCount', 'reqCreated', write && 'tplActions'],
    class: 'tpl-table',
    rows: rows.map((t) =>
      h(
        'tr',
        { attrs: { 'data-template': t.id } },
        h('th', { attrs: { scope: 'row' } }, h('a', { class: 'text-link', attrs: { href: at(`/templates/${t.id}`) } }, bdi(t.title))),
        h('td', null, s.t(t.language === 'ar' ? 'tplLangAr' : 'tplLangEn')),
        h('td', null, String(t.fields.length)),
        h('td', { class: 'nowrap' }, t.source === 'library' ? s.t('tplSourceLibrary') : when(s, t.created_at)),
        write ? h('td', null, h('div', { class: 'tpl-row-actions' }, rowActions(ctx, t, reload, say))) : null,
      ),
    ),
  });
}

function rowActions(ctx: ScreenContext, t: Template, reload: () => Promise<void>, say: Say): HTMLElement[] {
  const { s } = ctx;
  const copy = button(s.t(t.source === 'library' ? 'tplCopyLibrary' : 'tplDuplicate'), 'secondary', () => void duplicate(ctx, t, say));
  copy.setAttribute('aria-label', s.t(t.source === 'library' ? 'tplCopyLibraryOf' : 'tplDuplicateOf', { title: t.title }));
  if (t.source === 'library') return [copy];
  const archive = button(
    s.t('tplArchive'),
    'quiet',
    () =>
      void archiveTemplate(ctx, t, say).then(async (done) => {
        if (done) await reload();
      }),
  );
  archive.setAttribute('aria-label', s.t('tplArchiveOf', { title: t.title }));
  return [copy, archive];
}

/** A custom copy (own or library template), then its editor. */
export async function duplicate(ctx: ScreenContext, t: Template, say: Say): Promise<void> {
  const { s } = ctx;
  try {
    const copy = await ctx.api.call<Template>('POST', `/templates/${encodeURIComponent(t.id)}/duplicate`, {});
    ctx.flash(s.t('tplDuplicated', { title: copy.title }));
    ctx.go(at(`/templates/${copy.id}`));
  } catch (err) {
    say(errorText(s, err), 'bad');
  }
}

/** Archive after a confirm dialog that says what follows; true when archived. */
export async function archiveTemplate(ctx: ScreenContext, t: Template, say: Say): Promise<boolean> {
  const { s } = ctx;
  const yes = await confirmDialog(s, {
    title: s.t('tplArchiveTitle', { title: t.title }),
    body: s.t('tplArchiveBody'),
    confirm: s.t('tplArchive'),
  });
  if (!yes) return false;
  try {
    await ctx.api.call('POST', `/templates/${encodeURIComponent(t.id)}/archive`, {});
    say(s.t('tplArchived', { title: t.title }), 'ok');
    return true;
  } catch (err) {
    say(errorText(s, err), 'bad');
    return false;
  }
}
