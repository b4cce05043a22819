/**
 * The read-only sections of a workflow's page: what a session may override (spec 4.2), the
 * published versions with their settings, and a copyable POST /sessions for the workflow.
 */
import { h } from '@tawqi/signing-page/dom';
import type { Key, Strings } from '../i18n.js';
import { when } from '../requests/model.js';
import type { ScreenContext } from '../screen.js';
import { copyable } from '../views/copy.js';
import { dataTable } from '../views/dataTable.js';
import { emptyState } from '../views/parts.js';
import type { WorkflowDetail } from './model.js';
import { settingsList } from './summary.js';

/** Overrides a request may carry (domain/workflows.ts OVERRIDES), and fields refused with 400 invalid_override. */
const OVERRIDES = ['signature_method', 'channel', 'cc', 'require_id_attachment', 'expires_in', 'language', 'return_url'] as const;
const REFUSED = ['document', 'ordered', 'reminders', 'require_access_code'] as const;

export function section(title: Key, s: Strings, ...children: (Node | null)[]): HTMLElement {
  return h('section', { class: 'wf-section' }, h('h2', { class: 'subtitle' }, s.t(title)), ...children);
}

const codeList = (names: readonly string[]) =>
  h(
    'ul',
    { class: 'wf-codes' },
    names.map((n) => h('li', null, h('code', { attrs: { dir: 'ltr' } }, n))),
  );

export function overridesSection(s: Strings): HTMLElement {
  return section(
    'wfOverridesTitle',
    s,
    h('p', { class: 'muted' }, s.t('wfOverridesIntro')),
    codeList(OVERRIDES),
    h('p', { class: 'muted' }, s.t('wfOverridesRefused')),
    codeList(REFUSED),
  );
}

export function versionsSection(s: Strings, w: WorkflowDetail): HTMLElement {
  if (w.versions.length === 0) return section('wfVersions', s, emptyState('clock', s.t('wfNoVersions')));
  return section(
    'wfVersions',
    s,
    dataTable(s, {
      caption: s.t('wfVersionsCaption', { name: w.name }),
      columns: ['wfVersion', 'wfPublishedAt', 'wfSettings'],
      class: 'wf-versions',
      rows: w.versions.map((v) =>
        h(
          'tr',
          { attrs: { 'data-version': String(v.version) } },
          h('th', { attrs: { scope: 'row' } }, s.t('wfVersionN', { version: v.version })),
          h('td', { class: 'nowrap' }, when(s, v.published_at)),
          h('td', null, h('details', null, h('summary', null, s.t('wfShowSettings')), settingsList(s, v.settings))),
        ),
      ),
    }),
  );
}

/** POST /sessions for this workflow, with the key of the layout's mode (and a template when the request must name one). */
export function snippetSection(ctx: ScreenContext, w: WorkflowDetail): HTMLElement {
  const { s } = ctx;
  const st = w.settings;
  const needsTemplate = st.document.mode === 'per_request' && !st.document.default_template_id;
  const body = {
    workflow_id: w.id,
    ...(needsTemplate ? { template_id: 'tpl_…' } : {}),
    signers: [{ name: 'Signer name', email: 'signer@example.com' }],
  };
  const key = ctx.livemode ? 'sk_…' : 'sk_test_…';
  const snippet = [
    `curl -X POST ${location.origin}/api/v1/sessions \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    '  -H "Content-Type: application/json" \\',
    `  -d '${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}'`,
  ].join('\n');
  return section(
    'wfSnippetTitle',
    s,
    h('p', { class: 'muted' }, s.t('wfSnippetIntro')),
    copyable(s, snippet, s.t('wfSnippetCopy'), (m) => ctx.announce(m), true),
  );
}
