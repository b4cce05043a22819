/**
 * A template's page: /templates/new and /templates/tpl_… . The account's own template opens in
 * the editor (title, language, the text with {{field}} placeholders, the field table, the checks
 * and both previews; saved through POST /api/v1/templates for a new one, PUT
 * /console/api/templates/:id for an edit; duplicate and archive). A library template, an archived
 * one, or any for a user without requests.write opens read-only, with its previews.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { button, field } from '@tawqi/signing-page/kit';
import { canWrite } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot, type Say } from '../views/notice.js';
import { pageScreen } from '../views/parts.js';
import { checksList } from './checks.js';
import { FieldTable } from './fields.js';
import { archiveTemplate, duplicate } from './list.js';
import { isClean, mismatch, type Template, type TemplateDraft } from './model.js';
import { Previews } from './previews.js';

export function templateNewScreen(ctx: ScreenContext): Screen {
  const screen = pageScreen({ title: ctx.s.t('tplNew') });
  const { slot, say } = messageSlot();
  screen.root.append(slot, editor(ctx, null, say, screen));
  return screen;
}

export function templateScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const body = h('div', { class: 'results', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const screen = pageScreen({ title: s.t('tplTemplate') }, body);
  const { slot, say } = messageSlot();
  void ctx.publicApi
    .get<Template>(ctx.livemode, `/templates/${encodeURIComponent(id)}`)
    .then((t) => {
      screen.heading.replaceChildren(bdi(t.title));
      replace(body, slot, editor(ctx, t, say, screen));
    })
    .catch((err: unknown) => replace(body, h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => body.removeAttribute('aria-busy'));
  return screen;
}

/** The editor's inputs for the title, the language and the text. */
function textInputs(ctx: ScreenContext, t: Template | null, readOnly: boolean) {
  const { s } = ctx;
  const title = h('input', {
    class: 'input',
    attrs: { id: 'tpl-title', name: 'title', autocomplete: 'off', maxlength: 200, readonly: readOnly },
  });
  title.value = t?.title ?? '';
  const language = h(
    'select',
    { class: 'input', attrs: { id: 'tpl-language', name: 'language', disabled: readOnly } },
    (['ar', 'en'] as const).map((l) =>
      h('option', { attrs: { value: l, selected: (t?.language ?? s.lang) === l } }, s.t(l === 'ar' ? 'tplLangAr' : 'tplLangEn')),
    ),
  );
  const text = h('textarea', {
    class: ['input', 'tpl-body'],
    attrs: { id: 'tpl-body', name: 'body', rows: 14, readonly: readOnly, spellcheck: 'false' },
  });
  text.value = t?.body ?? '';
  const direction = () => text.setAttribute('dir', language.value === 'ar' ? 'rtl' : 'ltr');
  language.addEventListener('change', direction);
  direction();
  const languageField = h('div', { class: 'field' }, h('label', { attrs: { for: 'tpl-language' } }, s.t('tplLanguage')), language);
  const fields = [field(s.t('tplTitle'), title).root, languageField, field(s.t('tplBody'), text, s.t('tplBodyHint')).root];
  return { title, language, text, root: h('div', { class: 'tpl-text-inputs' }, fields) };
}

function editor(ctx: ScreenContext, t: Template | null, say: Say, screen: Screen): HTMLElement {
  const { s } = ctx;
  const readOnly = !canWrite(ctx.session?.permissions) || (t !== null && (t.source === 'library' || t.archived_at !== null));
  const inputs = textInputs(ctx, t, readOnly);
  const checks = h('div', { class: 'tpl-checks', attrs: { 'aria-live': 'polite' } });
  const previews = new Previews(ctx);
  screen.destroy = () => previews.destroy();
  const draft = (): TemplateDraft => ({
    title: inputs.title.value.trim(),
    language: inputs.language.value === 'en' ? 'en' : 'ar',
    body: inputs.text.value,
    fields: table.fields(),
  });
  const refresh = () => {
    const d = draft();
    const m = mismatch(d.body, d.fields);
    table.mark(m);
    checks.replaceChildren(checksList(s, m, readOnly ? null : { add: (k) => table.add(k), remove: (k) => table.remove(k) }));
    // A placeholder without a field stays visible in the text preview, where one would look for it.
    const values = { ...Object.fromEntries(m.missing.map((k) => [k, `{{${k}}}`])), ...table.samples() };
    previews.update(d, values, isClean(m) && d.title !== '' && d.body.trim() !== '');
  };
  const table = new FieldTable(s, t?.fields ?? [], readOnly, refresh);
  for (const input of [inputs.title, inputs.text]) input.addEventListener('input', refresh);
  inputs.language.addEventListener('change', refresh);
  refresh();
  const notes = [
    t?.source === 'library' ? h('p', { class: 'notice tone-info' }, s.t('tplLibraryNote')) : null,
    t?.archived_at ? h('p', { class: 'notice tone-warn' }, s.t('tplArchivedNote')) : null,
  ];
  return h(
    'div',
    { class: 'tpl-editor' },
    notes,
    h('div', { class: 'tpl-edit-col' }, inputs.root),
    previews.root,
    // Full width below: the field table has six columns.
    h(
      'div',
      { class: 'tpl-fields-col' },
      h('h2', { class: 'subtitle' }, s.t('tplFields')),
      checks,
      table.root,
      actionsOf(ctx, t, readOnly, draft, say),
    ),
  );
}

function actionsOf(ctx: ScreenContext, t: Template | null, readOnly: boolean, draft: () => TemplateDraft, say: Say): HTMLElement {
  const { s } = ctx;
  const write = canWrite(ctx.session?.permissions);
  const copy =
    t && write
      ? button(s.t(t.source === 'library' ? 'tplCopyLibrary' : 'tplDuplicate'), 'secondary', () => void duplicate(ctx, t, say))
      : null;
  if (readOnly) return h('div', { class: 'actions' }, copy);
  const save = button(s.t('tplSave'), 'primary', () => void saveDraft(ctx, t, draft(), save, say));
  const archive = t
    ? button(s.t('tplArchive'), 'quiet', () => void archiveTemplate(ctx, t, say).then((done) => done && ctx.go(at('/templates'))))
    : null;
  return h('div', { class: 'actions' }, save, copy, archive);
}

async function saveDraft(ctx: ScreenContext, t: Template | null, d: TemplateDraft, save: HTMLButtonElement, say: Say): Promise<void> {
  const { s } = ctx;
  if (!d.title || !d.body.trim()) return say(s.t('tplNeedTitleBody'), 'bad');
  if (!isClean(mismatch(d.body, d.fields))) return say(s.t('tplFixFirst'), 'bad');
  save.setAttribute('aria-busy', 'true');
  try {
    if (!t) {
      const created = await ctx.publicApi.post<Template>(ctx.livemode, '/templates', d, { idempotent: true });
      ctx.flash(s.t('tplCreated', { title: created.title }));
      return ctx.go(at(`/templates/${created.id}`));
    }
    const edit = await ctx.api.call<{ template: Template; replaced: string | null }>('PUT', `/templates/${encodeURIComponent(t.id)}`, d);
    if (!edit.replaced) return say(s.t('tplSaved'), 'ok');
    ctx.flash(s.t('tplSavedAsNew'));
    ctx.go(at(`/templates/${edit.template.id}`));
  } catch (err) {
    say(errorText(s, err), 'bad');
  } finally {
    save.removeAttribute('aria-busy');
  }
}
