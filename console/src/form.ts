/**
 * Accessible forms for the console's screens: every input has a label, a hint and a message slot
 * tied with aria-describedby (the signing page's kit.field); a submit checks the fields first,
 * marks each wrong one aria-invalid with its message and moves the focus to the first; a refusal
 * from the server goes on the field it names (`param`) or into the form's alert (role=alert).
 */
import { h } from '@tawqi/signing-page/dom';
import { button, field, icon, setFieldMessage } from '@tawqi/signing-page/kit';
import { ApiError, NetworkError } from './api.js';
import type { Strings } from './i18n.js';

export interface FieldSpec {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'date' | 'tel';
  autocomplete: string;
  hint?: string;
  inputmode?: 'numeric' | 'email' | 'text';
  value?: string;
  readonly?: boolean;
  /** The message for a wrong value, or null when it is fine. */
  check?: (value: string, values: Record<string, string>) => string | null;
}

interface Field {
  spec: FieldSpec;
  root: HTMLElement;
  input: HTMLInputElement;
  message: HTMLElement;
}

export class Form {
  readonly root: HTMLFormElement;
  readonly submit: HTMLButtonElement;
  private readonly fields: Field[];
  private readonly alertText = h('p', { class: 'form-alert-text' });
  private readonly alertBox = h('div', { class: 'notice tone-bad form-alert', attrs: { role: 'alert' } }, icon('alert'), this.alertText);
  private busy = false;

  constructor(
    private readonly s: Strings,
    specs: readonly FieldSpec[],
    submitLabel: string,
    private readonly onSubmit: (values: Record<string, string>) => Promise<void>,
  ) {
    this.fields = specs.map((spec) => {
      const input = h('input', {
        class: 'input',
        attrs: {
          name: spec.name,
          type: spec.type ?? 'text',
          autocomplete: spec.autocomplete,
          inputmode: spec.inputmode,
          readonly: spec.readonly === true,
          dir:
            spec.type === 'email' || spec.type === 'password' || spec.type === 'tel' || spec.type === 'date' || spec.inputmode === 'numeric'
              ? 'ltr'
              : null,
          spellcheck: spec.type === 'text' ? null : 'false',
        },
      });
      input.value = spec.value ?? '';
      const f = field(spec.label, input, spec.hint);
      return { spec, input, message: f.message, root: f.root };
    });
    this.submit = button(submitLabel, 'primary', () => {}, { type: 'submit' });
    this.submit.classList.add('btn-block');
    this.alertBox.hidden = true;
    this.root = h(
      'form',
      { class: 'form', attrs: { novalidate: true } },
      this.alertBox,
      this.fields.map((f) => f.root),
    );
    this.root.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
  }

  /** Put extra content (links, secondary buttons) before the submit button, and the button last. */
  finish(...extra: Node[]): HTMLFormElement {
    this.root.append(...extra, h('div', { class: 'actions' }, this.submit));
    return this.root;
  }

  input(name: string): HTMLInputElement {
    return this.get(name).input;
  }

  /** Show a message from outside the form's own checks (e.g. after a custom call). */
  alert(text: string | null): void {
    this.alertText.textContent = text ?? '';
    this.alertBox.hidden = !text;
  }

  /** Show an error on a field and move the focus to it. */
  fieldError(name: string, text: string): void {
    const f = this.get(name);
    setFieldMessage(f.input, f.message, text, true);
    f.input.focus();
  }

  private get(name: string): Field {
    const f = this.fields.find((x) => x.spec.name === name);
    if (!f) throw new Error(`no field ${name}`);
    return f;
  }

  private async run(): Promise<void> {
    if (this.busy) return;
    this.alert(null);
    const values = Object.fromEntries(this.fields.map((f) => [f.spec.name, f.input.value.trim()]));
    // Passwords keep their spaces: only the other fields are trimmed.
    for (const f of this.fields) if (f.spec.type === 'password') values[f.spec.name] = f.input.value;
    let first: Field | null = null;
    for (const f of this.fields) {
      const problem = f.spec.check?.(values[f.spec.name] ?? '', values) ?? null;
      setFieldMessage(f.input, f.message, problem, problem !== null);
      if (problem && !first) first = f;
    }
    if (first) {
      first.input.focus();
      return;
    }
    this.setBusy(true);
    try {
      await this.onSubmit(values);
    } catch (err) {
      this.report(err);
    } finally {
      this.setBusy(false);
    }
  }

  private report(err: unknown): void {
    if (err instanceof ApiError && err.param && this.fields.some((f) => f.spec.name === err.param)) {
      this.fieldError(err.param, err.serverMessage ?? this.s.t('unexpectedError'));
      return;
    }
    if (err instanceof ApiError) this.alert(err.serverMessage ?? this.s.t('unexpectedError'));
    else if (err instanceof NetworkError) this.alert(this.s.t('networkError'));
    else this.alert(this.s.t('unexpectedError'));
  }

  /** aria-disabled, not disabled: a disabled button would drop the keyboard focus. */
  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.submit.classList.toggle('is-busy', busy);
    if (busy) {
      this.submit.setAttribute('aria-busy', 'true');
      this.submit.setAttribute('aria-disabled', 'true');
    } else {
      this.submit.removeAttribute('aria-busy');
      this.submit.removeAttribute('aria-disabled');
    }
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Field checks shared by the screens. */
export const checks = {
  required: (message: string) => (value: string) => (value === '' ? message : null),
  email: (s: Strings) => (value: string) => (value === '' ? s.t('emailRequired') : EMAIL.test(value) ? null : s.t('emailInvalid')),
};
