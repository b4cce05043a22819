/**
 * A workflow's page (/console/workflows/wf_…): its state and latest version; the working copy,
 * editable by a user with requests.write (read-only for others, and always for the built-in
 * default); publish (a new version) and archive, each after a confirm dialog; what a session may
 * override; the versions with their settings; a copyable POST /sessions.
 */
import { h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { ListPage } from '../publicApi.js';
import { confirmDialog } from '../requests/dialog.js';
import { when, type Template } from '../requests/model.js';
import { errorText, statusBadge } from '../requests/parts.js';
import type { Screen, ScreenContext } from '../screen.js';
import { messageSlot, type Say } from '../views/notice.js';
import { pageScreen, textLink } from '../views/parts.js';
import { settingsEditor } from './editor.js';
import { canWrite, stateTone, workflowsApi, type WorkflowDetail } from './model.js';
import { overridesSection, section, snippetSection, versionsSection } from './sections.js';
import { settingsList } from './summary.js';

export function workflowDetailScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const id = ctx.place.path.split('/').pop()!;
  const body = h('div', { class: 'wf-detail', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const { slot, say } = messageSlot();
  const screen = pageScreen({ title: s.t('navWorkflows') }, h('p', null, textLink(s.t('wfBack'), '/workflows')), slot, body);
  const load = async (): Promise<void> => {
    const writer = canWrite(ctx.session?.permissions);
    const [w, templates] = await Promise.all([
      workflowsApi.read(ctx.api, id),
      writer ? ctx.publicApi.get<ListPage<Template>>(ctx.livemode, '/templates', { limit: 100 }).then((p) => p.data) : [],
    ]);
    screen.heading.textContent = w.name;
    document.title = w.name;
    body.replaceChildren(...content(ctx, w, templates, { say, reload: load }));
  };
  load()
    .catch((err: unknown) => body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err))))
    .finally(() => body.removeAttribute('aria-busy'));
  return screen;
}

interface Page {
  say: Say;
  reload(): Promise<void>;
}

function stateLine(ctx: ScreenContext, w: WorkflowDetail): HTMLElement {
  const { s } = ctx;
  const version =
    w.version === null
      ? s.t('wfNeverPublished')
      : s.t('wfLatestVersion', { version: w.version, date: when(s, w.published_at ?? w.updated_at) });
  return h(
    'p',
    { class: 'wf-state' },
    statusBadge(s, w.status, stateTone(w), 'wfState_'),
    h('span', null, version),
    w.unpublished_changes && !w.default ? statusBadge(s, 'changed', 'warn', 'wfState_') : null,
  );
}

function content(ctx: ScreenContext, w: WorkflowDetail, templates: Template[], page: Page): Node[] {
  const { s } = ctx;
  const editable = canWrite(ctx.session?.permissions) && !w.default;
  const working = editable
    ? settingsEditor(s, {
        name: w.name,
        settings: w.settings,
        templates,
        submitLabel: s.t('wfSave'),
        onSubmit: async (b) => {
          await workflowsApi.update(ctx.api, w.id, b);
          await page.reload();
          page.say(s.t('wfSaved'), 'ok');
        },
      })
    : settingsList(s, w.settings);
  const note = w.default ? 'wfDefaultNote' : editable ? 'wfWorkingNote' : 'wfReadOnlyNote';
  return [
    stateLine(ctx, w),
    ...(editable ? [actions(ctx, w, page)] : []),
    section('wfWorkingCopy', s, h('p', { class: 'muted' }, s.t(note)), working),
    overridesSection(s),
    versionsSection(s, w),
    snippetSection(ctx, w),
  ];
}

/** Publish (a new version; also brings an archived workflow back) and archive, each confirmed first. */
function actions(ctx: ScreenContext, w: WorkflowDetail, page: Page): HTMLElement {
  const { s } = ctx;
  const next = (w.version ?? 0) + 1;
  const act = async (run: () => Promise<unknown>, done: string) => {
    try {
      await run();
      await page.reload();
      page.say(done, 'ok');
    } catch (err) {
      page.say(errorText(s, err), 'bad');
    }
  };
  const publish = button(s.t('wfPublish'), 'primary', () => {
    void confirmDialog(s, {
      title: s.t('wfPublishTitle', { version: next }),
      body: s.t('wfPublishBody', { version: next }),
      confirm: s.t('wfPublish'),
      tone: 'primary',
    }).then((yes) => (yes ? act(() => workflowsApi.publish(ctx.api, w.id), s.t('wfPublished', { version: next })) : undefined));
  });
  const archive = button(s.t('wfArchive'), 'danger', () => {
    void confirmDialog(s, { title: s.t('wfArchiveTitle'), body: s.t('wfArchiveBody'), confirm: s.t('wfArchive') }).then((yes) =>
      yes ? act(() => workflowsApi.archive(ctx.api, w.id), s.t('wfArchived')) : undefined,
    );
  });
  return h('div', { class: 'page-actions wf-actions' }, publish, w.status === 'archived' ? null : archive);
}
