/**
 * The editor's field table: one row per field (key, label, type, required) and a sample value for
 * the previews (not saved). Rows are rebuilt only when one is added or removed, so typing keeps
 * the focus; every change is reported to the editor, which checks the fields against the text.
 */
import { h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Strings } from '../i18n.js';
import { dataTable } from '../views/dataTable.js';
import { FIELD_KEY, FIELD_TYPES, labelOf, type Mismatch, type TemplateField } from './model.js';

interface Row extends TemplateField {
  sample: string;
}

export class FieldTable {
  readonly root = h('div', { class: 'tpl-fields' });
  private rows: Row[];
  private keyInputs: HTMLInputElement[] = [];

  constructor(
    private readonly s: Strings,
    initial: readonly TemplateField[],
    private readonly readOnly: boolean,
    private readonly changed: () => void,
  ) {
    this.rows = initial.map((f) => ({ ...f, sample: '' }));
    this.render();
  }

  fields(): TemplateField[] {
    return this.rows.map(({ key, label, type, required }) => ({ key: key.trim(), label: label.trim(), type, required }));
  }

  /** The sample of each field, or its label in brackets until one is typed. */
  samples(): Record<string, string> {
    return Object.fromEntries(this.rows.map((r) => [r.key.trim(), r.sample || `[${r.label.trim() || r.key.trim()}]`]));
  }

  /** A new field (for a placeholder without one: its key given); the focus goes to its label. */
  add(key = ''): void {
    this.rows.push({ key, label: key ? labelOf(key) : '', type: 'text', required: true, sample: '' });
    this.render();
    this.changed();
    const row = this.root.querySelectorAll('tbody tr')[this.rows.length - 1];
    row?.querySelector<HTMLInputElement>(key ? 'input[name="label"]' : 'input[name="key"]')?.focus();
  }

  remove(key: string): void {
    const row = this.rows.find((r) => r.key.trim() === key);
    if (row) this.removeRow(row);
  }

  private removeRow(row: Row): void {
    this.rows.splice(this.rows.indexOf(row), 1);
    this.render();
    this.changed();
  }

  /** Flag the keys of unused and duplicate fields. */
  mark(m: Mismatch): void {
    this.keyInputs.forEach((input, i) => {
      const key = this.rows[i]!.key.trim();
      const bad = m.unused.includes(key) || m.duplicate.includes(key) || (m.incomplete.includes(i + 1) && !FIELD_KEY.test(key));
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    });
  }

  private render(): void {
    const { s } = this;
    this.keyInputs = [];
    const add = this.readOnly ? null : button(s.t('tplAddField'), 'secondary', () => this.add());
    const table = this.rows.length
      ? dataTable(s, {
          caption: s.t('tplFieldsCaption'),
          columns: ['tplKey', 'tplLabel', 'tplType', 'tplRequired', 'tplSample', !this.readOnly && 'tplActions'],
          class: 'tpl-field-table',
          rows: this.rows.map((r, i) => this.row(r, i)),
        })
      : h('p', { class: 'muted' }, s.t('tplNoFields'));
    this.root.replaceChildren(table, add ? h('div', { class: 'actions' }, add) : '');
  }

  private row(r: Row, i: number): HTMLTableRowElement {
    const { s } = this;
    const n = { n: i + 1 };
    const sample = this.input('sample', r.sample, s.t('tplSampleOf', n), (v) => (r.sample = v));
    if (this.readOnly) {
      const req = s.t(r.required ? 'tplYes' : 'tplNo');
      return h(
        'tr',
        null,
        h('td', { attrs: { dir: 'ltr' } }, r.key),
        h('td', null, r.label),
        h('td', null, s.t(`tplType_${r.type}`)),
        h('td', null, req),
        h('td', null, sample),
      );
    }
    const key = this.input('key', r.key, s.t('tplKeyOf', n), (v) => (r.key = v));
    key.setAttribute('dir', 'ltr');
    key.setAttribute('spellcheck', 'false');
    this.keyInputs.push(key);
    const type = h(
      'select',
      { class: 'input', attrs: { name: 'type', 'aria-label': s.t('tplTypeOf', n) } },
      FIELD_TYPES.map((t) => h('option', { attrs: { value: t, selected: t === r.type } }, s.t(`tplType_${t}`))),
    );
    type.addEventListener('change', () => {
      r.type = type.value as Row['type'];
      this.changed();
    });
    const required = h('input', {
      attrs: { type: 'checkbox', name: 'required', checked: r.required, 'aria-label': s.t('tplRequiredOf', n) },
    });
    required.addEventListener('change', () => {
      r.required = required.checked;
      this.changed();
    });
    const remove = button(s.t('tplRemoveField'), 'quiet', () => this.removeRow(r));
    remove.setAttribute('aria-label', s.t('tplRemoveFieldOf', n));
    const cells = [key, this.input('label', r.label, s.t('tplLabelOf', n), (v) => (r.label = v)), type, required, sample, remove];
    return h(
      'tr',
      { attrs: { 'data-field': r.key } },
      cells.map((c) => h('td', null, c)),
    );
  }

  private input(name: string, value: string, label: string, set: (v: string) => void): HTMLInputElement {
    const input = h('input', { class: 'input', attrs: { name, type: 'text', autocomplete: 'off', 'aria-label': label } });
    input.value = value;
    input.addEventListener('input', () => {
      set(input.value);
      this.changed();
    });
    return input;
  }
}
