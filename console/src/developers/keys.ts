/**
 * Developers → API keys (issue 15 point 4): the account's keys of the layout's live/test mode with
 * their kind, hint, state and restrictions; create a secret, publishable or read-only key (its
 * secret shown once), rotate, revoke and edit restrictions (keyActions.ts); the API version pin
 * (versionPin.ts). The keys come from the console API (/console/api/keys), which only
 * developers.manage may read: a viewer sees why instead of the list, and the version pin read-only.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import { dataTable } from '../views/dataTable.js';
import { button } from '@tawqi/signing-page/kit';
import type { ApiKeyView } from '../api.js';
import { Form } from '../form.js';
import type { Key } from '../i18n.js';
import { when } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen } from '../views/parts.js';
import { editKey, revokeKey, rotateKey } from './keyActions.js';
import { canManage, isWorking, kindOf, restrictions, stateText, type KeyKind } from './keyModel.js';
import { showSecretOnce } from './shownOnce.js';
import { versionPinSection } from './versionPin.js';

export function apiKeysScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const manage = canManage(ctx.session?.permissions);
  const list = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const reload = (): Promise<void> => loadKeys(ctx, list, reload);
  const screen = pageScreen(
    { title: s.t('navKeys'), intro: s.t(ctx.livemode ? 'keysIntroLive' : 'keysIntroTest') },
    manage ? createSection(ctx, reload) : null,
    listSection(s.t('keysListTitle'), manage ? list : h('div', { class: 'notice tone-info' }, h('p', null, s.t('keysViewerNote')))),
    versionPinSection(ctx, manage),
  );
  if (manage) void reload();
  return screen;
}

function section(title: string, ...children: (HTMLElement | null)[]): HTMLElement {
  return h('section', { class: 'block' }, h('h2', { class: 'subtitle' }, title), ...children);
}

/** The list's heading can take the focus (tabindex −1) when the key the user acted on left the list. */
function listSection(title: string, content: HTMLElement): HTMLElement {
  return h('section', { class: 'block' }, h('h2', { id: 'keys-list-title', class: 'subtitle', attrs: { tabindex: -1 } }, title), content);
}

async function loadKeys(ctx: ScreenContext, list: HTMLElement, reload: () => Promise<void>): Promise<void> {
  const { s } = ctx;
  list.setAttribute('aria-busy', 'true');
  try {
    const mode = ctx.livemode ? 'live' : 'test';
    const all = (await ctx.api.keys()).data.filter((k) => k.mode === mode);
    const working = all.filter(isWorking);
    const gone = all.length - working.length;
    const table = working.length ? keyTable(ctx, working, reload) : emptyState('key', s.t('keysNone'));
    list.replaceChildren(table, ...(gone ? [h('p', { class: 'muted small' }, s.t('keysGone', { count: gone }))] : []));
  } catch (err) {
    list.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
  } finally {
    list.removeAttribute('aria-busy');
  }
}

function keyTable(ctx: ScreenContext, keys: ApiKeyView[], reload: () => Promise<void>): HTMLElement {
  const { s } = ctx;
  return dataTable(s, {
    caption: s.t(ctx.livemode ? 'keysCaptionLive' : 'keysCaptionTest'),
    columns: ['keysName', 'keysType', 'keysState', 'keysRestrictions', 'keysCreated', 'keysActions'],
    rows: keys.map((k) => keyRow(ctx, k, reload)),
    class: 'keys-table',
  });
}

function keyRow(ctx: ScreenContext, k: ApiKeyView, reload: () => Promise<void>): HTMLElement {
  const { s } = ctx;
  const state = stateText(s, k);
  // The reload replaces the row: the focus goes to the same button of the key's new row (a
  // rotation's new key), or, when there is no such button, to the list's heading.
  const after = (p: Promise<string | null>, label: string) =>
    void p.then(async (focusKey) => {
      if (!focusKey) return;
      await reload();
      const buttons = document.querySelectorAll<HTMLButtonElement>(`tr[data-key="${focusKey}"] button`);
      const again = [...buttons].find((b) => b.textContent === label);
      (again ?? document.getElementById('keys-list-title'))?.focus();
    });
  const row = h(
    'tr',
    { attrs: { 'data-key': k.id } },
    h('th', { attrs: { scope: 'row' } }, h('div', null, bdi(k.name)), h('code', { class: 'key-hint', attrs: { dir: 'ltr' } }, k.hint)),
    h('td', { class: 'key-kind' }, s.t(`keysKind_${kindOf(k)}` as Key)),
    h('td', null, h('span', { class: ['pill', `pill-${state.tone}`] }, state.text)),
    h(
      'td',
      { class: 'key-limits' },
      restrictions(s, k).map((line) => h('div', null, line)),
    ),
    h('td', { class: 'nowrap' }, when(s, k.created_at)),
    h(
      'td',
      null,
      h(
        'div',
        { class: 'row-actions' },
        k.state === 'active' ? button(s.t('keysEdit'), 'quiet', () => after(editKey(ctx, k), s.t('keysEdit'))) : null,
        k.state === 'active' ? button(s.t('keysRotate'), 'secondary', () => after(rotateKey(ctx, k), s.t('keysRotate'))) : null,
        button(s.t('keysRevoke'), 'danger', () => after(revokeKey(ctx, k), s.t('keysRevoke'))),
      ),
    ),
  );
  return row;
}

/** Create a key of the current mode: its kind and a name; the secret is then shown once. */
function createSection(ctx: ScreenContext, reload: () => Promise<void>): HTMLElement {
  const { s } = ctx;
  const kind = h(
    'select',
    { class: 'input', attrs: { id: 'key-kind', name: 'kind' } },
    (['secret', 'publishable', 'read_only'] as const).map((k) => h('option', { attrs: { value: k } }, s.t(`keysKind_${k}` as Key))),
  );
  const form = new Form(
    s,
    [{ name: 'name', label: s.t('keysNewName'), autocomplete: 'off', hint: s.t('keysNewNameHint') }],
    s.t('keysCreate'),
    async (values) => {
      const chosen = kind.value as KeyKind;
      const issued = await ctx.api.createKey({
        type: chosen === 'publishable' ? 'publishable' : 'secret',
        mode: ctx.livemode ? 'live' : 'test',
        name: values.name || undefined,
        read_only: chosen === 'read_only' ? true : undefined,
      });
      form.input('name').value = '';
      await reload();
      await showSecretOnce(s, {
        title: s.t('keysCreatedTitle'),
        label: s.t(`keysKind_${chosen}` as Key),
        secret: issued.secret,
        intro: s.t('keysCreatedIntro', { name: issued.key.name }),
      });
    },
  );
  const kindField = h('div', { class: 'field' }, h('label', { attrs: { for: 'key-kind' } }, s.t('keysNewKind')), kind);
  form.input('name').closest('.field')?.before(kindField);
  // A short form: the submit button sits under the fields instead of across the page.
  form.submit.classList.remove('btn-block');
  const done = section(s.t('keysNewTitle'), form.finish());
  done.classList.add('keys-create');
  return done;
}
