/**
 * A workflow's settings read-only, as a description list: the built-in default workflow, a
 * viewer's view of the working copy, and each published version.
 */
import { bdi, h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import { channelLabel, languageLabel, methodLabel, templateOf, yesNo, type WorkflowSettings } from './model.js';

const ltr = (text: string) => h('span', { class: 'mono', attrs: { dir: 'ltr' } }, text);

function documentText(s: Strings, st: WorkflowSettings): Node[] {
  const template = templateOf(st);
  const mode = s.t(st.document.mode === 'fixed' ? 'wfDocFixed' : 'wfDocPerRequest');
  return template ? [document.createTextNode(`${mode} · `), ltr(template)] : [document.createTextNode(mode)];
}

function remindersText(s: Strings, st: WorkflowSettings): string {
  const r = st.reminders;
  return r.enabled ? s.t('wfRemindersOn', { hours: r.interval_hours, max: r.max }) : s.t('wfRemindersOff');
}

export function settingsList(s: Strings, st: WorkflowSettings): HTMLElement {
  const rows: [Key, Node | string | Node[]][] = [
    ['wfDocument', documentText(s, st)],
    ['wfSignatureMethod', methodLabel(s, st.signature_method)],
    ['wfChannel', channelLabel(s, st.channel)],
    [
      'wfCc',
      st.cc.length
        ? h(
            'span',
            { class: 'wf-cc' },
            st.cc.map((c) => ltr(c)),
          )
        : s.t('wfNone'),
    ],
    ['wfRequireId', yesNo(s, st.require_id_attachment)],
    ['wfAccessCode', yesNo(s, st.require_access_code)],
    ['wfExpiresIn', s.t('wfDays', { days: st.expires_in })],
    ['wfLanguage', languageLabel(s, st.language)],
    ['wfReturnUrl', st.return_url ? bdi(st.return_url) : s.t('wfNone')],
    ['wfOrdered', yesNo(s, st.ordered)],
    ['wfReminders', remindersText(s, st)],
  ];
  return h(
    'dl',
    { class: 'wf-settings' },
    rows.map(([label, value]) => h('div', { class: 'wf-setting' }, h('dt', null, s.t(label)), h('dd', null, value))),
  );
}
