/**
 * The workflow editor: the name and every setting of spec 4.2, in one form. The values are sent as
 * typed; the server checks them with the CLI's rules (domain/workflows.ts) and a refusal lands on
 * the field it names, which takes the focus. Used to create a workflow and to edit a working copy.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button, icon } from '@tawqi/signing-page/kit';
import { ApiError } from '../api.js';
import type { Strings } from '../i18n.js';
import type { Template } from '../requests/model.js';
import { errorText } from '../requests/parts.js';
import { Controls, input, select } from './controls.js';
import { CHANNELS, channelLabel, LANGUAGES, languageLabel, methodLabel, SIGNATURE_METHODS, templateOf } from './model.js';
import type { WorkflowBody, WorkflowSettings } from './model.js';

export interface EditorOptions {
  name: string;
  settings: WorkflowSettings;
  templates: readonly Template[];
  submitLabel: string;
  onSubmit(body: WorkflowBody): Promise<void>;
}

/** The template chooser: none, the account's own templates, then the ready-made library (and the current one if neither lists it). */
function templateSelect(s: Strings, templates: readonly Template[], current: string | null): HTMLSelectElement {
  const option = (t: Pick<Template, 'id' | 'title'>) => h('option', { attrs: { value: t.id } }, `${t.title} (${t.id})`);
  const group = (label: string, list: readonly Template[]) => (list.length ? h('optgroup', { attrs: { label } }, list.map(option)) : null);
  const known = current === null || templates.some((t) => t.id === current);
  const el = h(
    'select',
    { class: 'input', attrs: { name: 'template_id' } },
    h('option', { attrs: { value: '' } }, s.t('wfTemplateNone')),
    known ? null : option({ id: current, title: current }),
    group(
      s.t('wfTemplatesOwn'),
      templates.filter((t) => t.source === 'custom'),
    ),
    group(
      s.t('wfTemplatesLibrary'),
      templates.filter((t) => t.source !== 'custom'),
    ),
  );
  el.value = current ?? '';
  return el;
}

/** The document's mode (a radio pair) and its template (the fixed one, or the per-request default). */
function documentPart(s: Strings, c: Controls, st: WorkflowSettings, templates: readonly Template[]) {
  const group = nextId('mode');
  const radio = (value: 'fixed' | 'per_request', label: string) => {
    const el = h('input', { attrs: { type: 'radio', name: group, value, checked: st.document.mode === value } });
    return { el, root: h('label', { class: 'choice' }, el, h('span', null, label)) };
  };
  const fixed = radio('fixed', s.t('wfDocFixed'));
  const perRequest = radio('per_request', s.t('wfDocPerRequest'));
  const template = templateSelect(s, templates, templateOf(st));
  const modeMessage = c.register('document_mode', fixed.el).message;
  const root = h(
    'fieldset',
    { class: 'wf-group' },
    h('legend', { class: 'label' }, s.t('wfDocument')),
    h('p', { class: 'hint' }, s.t('wfDocumentHint')),
    h('div', { class: 'wf-radios' }, fixed.root, perRequest.root),
    modeMessage,
    c.field('template_id', s.t('wfTemplate'), template, s.t('wfTemplateHint')),
  );
  return { root, mode: () => (fixed.el.checked ? 'fixed' : 'per_request') as 'fixed' | 'per_request', template };
}

function remindersPart(s: Strings, c: Controls, st: WorkflowSettings) {
  const enabled = c.checkbox('reminders.enabled', s.t('wfRemindersEnabled'), st.reminders.enabled);
  const hours = input('reminders.interval_hours', String(st.reminders.interval_hours), { numeric: true });
  const max = input('reminders.max', String(st.reminders.max), { numeric: true });
  const root = h(
    'fieldset',
    { class: 'wf-group' },
    h('legend', { class: 'label' }, s.t('wfReminders')),
    enabled.root,
    h(
      'div',
      { class: 'wf-pair' },
      c.field('reminders.interval_hours', s.t('wfReminderHours'), hours, s.t('wfReminderHoursHint')),
      c.field('reminders.max', s.t('wfReminderMax'), max, s.t('wfReminderMaxHint')),
    ),
  );
  return { root, value: () => ({ enabled: enabled.input.checked, interval_hours: Number(hours.value), max: Number(max.value) }) };
}

/** Every setting as a control, and a function reading the body to send. */
function settingsParts(s: Strings, c: Controls, o: EditorOptions) {
  const st = o.settings;
  const name = input('name', o.name);
  const doc = documentPart(s, c, st, o.templates);
  const method = select('signature_method', SIGNATURE_METHODS, (m) => methodLabel(s, m), st.signature_method);
  const channel = select('channel', CHANNELS, (v) => channelLabel(s, v), st.channel);
  const language = select('language', LANGUAGES, (v) => languageLabel(s, v), st.language);
  const cc = h('textarea', { class: 'input', attrs: { name: 'cc', rows: 3, dir: 'ltr', spellcheck: 'false' } });
  cc.value = st.cc.join('\n');
  const expires = input('expires_in', String(st.expires_in), { numeric: true });
  const returnUrl = input('return_url', st.return_url ?? '', { ltr: true });
  const idAttachment = c.checkbox('require_id_attachment', s.t('wfRequireId'), st.require_id_attachment, s.t('wfRequireIdHint'));
  const accessCode = c.checkbox('require_access_code', s.t('wfAccessCode'), st.require_access_code, s.t('wfAccessCodeHint'));
  const ordered = c.checkbox('ordered', s.t('wfOrdered'), st.ordered, s.t('wfOrderedHint'));
  const reminders = remindersPart(s, c, st);
  const parts = [
    c.field('name', s.t('wfName'), name),
    doc.root,
    c.field('signature_method', s.t('wfSignatureMethod'), method, s.t('wfSignatureMethodHint')),
    c.field('channel', s.t('wfChannel'), channel, s.t('wfChannelHint')),
    c.field('cc', s.t('wfCc'), cc, s.t('wfCcHint')),
    c.field('expires_in', s.t('wfExpiresIn'), expires, s.t('wfExpiresInHint')),
    c.field('language', s.t('wfLanguage'), language),
    c.field('return_url', s.t('wfReturnUrl'), returnUrl, s.t('wfReturnUrlHint')),
    idAttachment.root,
    accessCode.root,
    ordered.root,
    reminders.root,
  ];
  const body = (): WorkflowBody => ({
    name: name.value.trim(),
    document_mode: doc.mode(),
    template_id: doc.template.value || null,
    signature_method: method.value,
    channel: channel.value,
    cc: cc.value.split(/[\s,;]+/).filter(Boolean),
    require_id_attachment: idAttachment.input.checked,
    require_access_code: accessCode.input.checked,
    expires_in: Number(expires.value.trim() || Number.NaN),
    language: language.value,
    return_url: returnUrl.value.trim() || null,
    ordered: ordered.input.checked,
    reminders: reminders.value(),
  });
  return { parts, body };
}

/** The form: the settings, a form-level alert for a refusal that names no field, and the submit button. */
export function settingsEditor(s: Strings, o: EditorOptions): HTMLFormElement {
  const c = new Controls();
  const { parts, body } = settingsParts(s, c, o);
  const alertText = h('p');
  const alertBox = h('div', { class: 'notice tone-bad form-alert', attrs: { role: 'alert', tabindex: -1 } }, icon('alert'), alertText);
  alertBox.hidden = true;
  const submit = button(o.submitLabel, 'primary', () => {}, { type: 'submit' });
  const form = h('form', { class: 'form wf-editor', attrs: { novalidate: true } }, alertBox, parts, h('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (submit.getAttribute('aria-busy') === 'true') return;
    c.clear();
    alertBox.hidden = true;
    submit.setAttribute('aria-busy', 'true');
    submit.setAttribute('aria-disabled', 'true');
    o.onSubmit(body())
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.param && c.refuse(err.param, errorText(s, err))) return;
        alertText.textContent = errorText(s, err);
        alertBox.hidden = false;
        alertBox.focus();
      })
      .finally(() => {
        submit.removeAttribute('aria-busy');
        submit.removeAttribute('aria-disabled');
      });
  });
  return form;
}
