/**
 * The labelled controls of the workflow editor: a select, a text or number input, a text area and
 * a checkbox, each with its hint and a message slot tied by aria-describedby (as kit.field does for
 * text inputs), and registered by the API field it edits so a refusal's `param` lands on it.
 */
import { h, nextId, type Child } from '@tawqi/signing-page/dom';

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

export interface Slot {
  control: Control;
  message: HTMLElement;
}

/** The controls by the API field they edit (`expires_in`, `reminders.max`, …). */
export class Controls {
  private readonly slots = new Map<string, Slot>();

  /** The control of `param`, or of the field it is inside (`cc[2]` → `cc`). */
  find(param: string): Slot | null {
    return this.slots.get(param) ?? this.slots.get(param.replace(/\[\d+\]$/, '')) ?? this.slots.get(param.split('.')[0]!) ?? null;
  }

  /** Show `text` on the field of `param` and focus it; false when no control edits that field. */
  refuse(param: string, text: string): boolean {
    const slot = this.find(param);
    if (!slot) return false;
    slot.message.textContent = text;
    slot.message.classList.add('is-error');
    slot.control.setAttribute('aria-invalid', 'true');
    slot.control.focus();
    return true;
  }

  clear(): void {
    for (const { control, message } of this.slots.values()) {
      message.textContent = '';
      message.classList.remove('is-error');
      control.removeAttribute('aria-invalid');
    }
  }

  /** A control with its label above, an optional hint and the message slot. */
  field(name: string, label: string, control: Control, hint?: string): HTMLElement {
    const { hintEl, message } = this.register(name, control, hint);
    return h('div', { class: 'field' }, h('label', { class: 'label', attrs: { for: control.id } }, label), hintEl, control, message);
  }

  /** A checkbox with its label beside it. */
  checkbox(name: string, label: string, checked: boolean, hint?: string): { root: HTMLElement; input: HTMLInputElement } {
    const input = h('input', { attrs: { type: 'checkbox', name, checked } });
    const { hintEl, message } = this.register(name, input, hint);
    const root = h('div', { class: 'field wf-check' }, h('label', { class: 'choice' }, input, h('span', null, label)), hintEl, message);
    return { root, input };
  }

  /** Register a control placed by the caller: its hint and message slot, tied by aria-describedby. */
  register(name: string, control: Control, hint?: string): { hintEl: HTMLElement | null; message: HTMLElement } {
    control.id ||= nextId('wf');
    const hintEl = hint ? h('p', { id: nextId('hint'), class: 'hint' }, hint) : null;
    const message = h('p', { id: nextId('msg'), class: 'field-message' });
    control.setAttribute('aria-describedby', [hintEl?.id, message.id].filter(Boolean).join(' '));
    this.slots.set(name, { control, message });
    return { hintEl, message };
  }
}

/** A select of `values`, each shown by `label`, with `value` chosen. */
export function select(name: string, values: readonly string[], label: (v: string) => Child, value: string): HTMLSelectElement {
  const el = h(
    'select',
    { class: 'input', attrs: { name } },
    values.map((v) => h('option', { attrs: { value: v } }, label(v))),
  );
  el.value = value;
  return el;
}

/** A text input; numbers and addresses read left to right. */
export function input(name: string, value: string, opts: { numeric?: boolean; ltr?: boolean } = {}): HTMLInputElement {
  const el = h('input', {
    class: 'input',
    attrs: {
      name,
      type: 'text',
      autocomplete: 'off',
      inputmode: opts.numeric ? 'numeric' : null,
      dir: opts.numeric || opts.ltr ? 'ltr' : null,
      spellcheck: opts.ltr ? 'false' : null,
    },
  });
  el.value = value;
  return el;
}
