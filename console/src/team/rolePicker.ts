/**
 * Choosing a role: a radio group (arrow keys move the choice) where each role says in a line what
 * it may do, and the dialog that changes a member's role with it (native <dialog>: Escape closes,
 * the focus stays inside and goes back to the opener).
 */
import { bdi, fillNodes, h, nextId } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { Key, Strings } from '../i18n.js';
import type { TeamRole } from './roles.js';

export interface RolePicker {
  root: HTMLFieldSetElement;
  value(): TeamRole;
  focus(): void;
}

export function rolePicker(
  s: Strings,
  o: { legend: string; roles: readonly TeamRole[]; value: TeamRole; note?: string | null },
): RolePicker {
  const name = nextId('role');
  const noteId = o.note ? nextId('note') : null;
  const inputs = o.roles.map((role) => {
    const input = h('input', { attrs: { type: 'radio', name, value: role, checked: role === o.value } });
    const id = nextId('opt');
    input.id = id;
    const descId = nextId('desc');
    input.setAttribute('aria-describedby', descId);
    return {
      input,
      row: h(
        'div',
        { class: 'role-choice' },
        input,
        h('label', { attrs: { for: id } }, s.t(`role_${role}` as Key)),
        h('p', { id: descId, class: 'hint' }, s.t(`teamRoleAbout_${role}` as Key)),
      ),
    };
  });
  const root = h(
    'fieldset',
    { class: 'role-picker', attrs: { 'aria-describedby': noteId } },
    h('legend', { class: 'label' }, o.legend),
    inputs.map((i) => i.row),
    o.note && noteId ? h('p', { id: noteId, class: 'hint' }, o.note) : null,
  );
  const checked = () => inputs.find((i) => i.input.checked) ?? inputs[0]!;
  return {
    root,
    value: () => checked().input.value as TeamRole,
    focus: () => checked().input.focus(),
  };
}

/** Ask for a member's new role; resolves with it, or null when the dialog is closed without saving. */
export function roleDialog(
  s: Strings,
  o: { member: string; roles: readonly TeamRole[]; current: TeamRole; note: string | null },
): Promise<TeamRole | null> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('dlg');
  return new Promise((resolve) => {
    let answer: TeamRole | null = null;
    const picker = rolePicker(s, { legend: s.t('teamNewRole'), roles: o.roles, value: o.current, note: o.note });
    const form = h(
      'form',
      { class: 'stack', attrs: { method: 'dialog' } },
      picker.root,
      h(
        'div',
        { class: 'actions' },
        button(s.t('teamKeepRole'), 'secondary', () => dialog.close()),
        button(s.t('teamSaveRole'), 'primary', () => {}, { type: 'submit' }),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      answer = picker.value();
      dialog.close();
    });
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', attrs: { 'aria-labelledby': titleId } },
      h('h2', { id: titleId, class: 'subtitle' }, fillNodes(s.t('teamRoleDialogTitle'), { name: bdi(o.member) })),
      form,
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(answer === o.current ? null : answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    picker.focus();
  });
}
