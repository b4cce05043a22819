/**
 * What the API keys screen does to one key, each behind a dialog: rotate (the 24-hour grace or at
 * once, the difference explained; the new secret shown once), revoke (the dialog names the key) and
 * edit a secret key's IP allowlist or a publishable key's allowed origins and daily cap (a refusal
 * from the server lands on the field it names, in the page language). Each resolves to whether the
 * key changed, so the list reloads only then.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { button, field, icon, setFieldMessage } from '@tawqi/signing-page/kit';
import { ApiError, type ApiKeyView, type KeyChanges } from '../api.js';
import { confirmDialog } from '../requests/dialog.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';
import { kindOf, listOf } from './keyModel.js';
import { showSecretOnce } from './shownOnce.js';

const named = (k: ApiKeyView): string => `${k.name} (${k.hint})`;

export async function revokeKey(ctx: ScreenContext, k: ApiKeyView): Promise<boolean> {
  const { s } = ctx;
  const yes = await confirmDialog(s, {
    title: s.t('keysRevokeTitle', { key: named(k) }),
    body: s.t('keysRevokeBody'),
    confirm: s.t('keysRevokeConfirm'),
    cancel: s.t('keysCancel'),
  });
  if (!yes) return false;
  try {
    await ctx.api.revokeKey(k.id);
    ctx.announce(s.t('keysRevoked', { key: named(k) }));
    return true;
  } catch (err) {
    ctx.announce(errorText(s, err));
    return false;
  }
}

export async function rotateKey(ctx: ScreenContext, k: ApiKeyView): Promise<boolean> {
  const { s } = ctx;
  const group = nextId('rot');
  const choice = (value: '24h' | 'now', label: string, hint: string, checked: boolean) => {
    const id = nextId('rot');
    const hintId = nextId('rot');
    return h(
      'div',
      { class: 'choice' },
      h('input', { id, attrs: { type: 'radio', name: group, value, checked, 'aria-describedby': hintId } }),
      h('label', { attrs: { for: id } }, label),
      h('p', { id: hintId, class: 'hint' }, hint),
    );
  };
  const options = h(
    'fieldset',
    { class: 'choice-group' },
    h('legend', null, s.t('keysRotateWhen')),
    choice('24h', s.t('keysRotateGrace'), s.t('keysRotateGraceHint'), true),
    choice('now', s.t('keysRotateNow'), s.t('keysRotateNowHint'), false),
  );
  const yes = await confirmDialog(s, {
    title: s.t('keysRotateTitle', { key: named(k) }),
    body: s.t('keysRotateBody'),
    confirm: s.t('keysRotateConfirm'),
    cancel: s.t('keysCancel'),
    extra: options,
    tone: 'primary',
  });
  if (!yes) return false;
  const expire = options.querySelector<HTMLInputElement>('input:checked')?.value === 'now' ? 'now' : '24h';
  try {
    const issued = await ctx.api.rotateKey(k.id, expire);
    await showSecretOnce(s, {
      title: s.t('keysRotatedTitle'),
      label: s.t(`keysKind_${kindOf(k)}`),
      secret: issued.secret,
      intro: s.t(expire === 'now' ? 'keysRotatedNowIntro' : 'keysRotatedGraceIntro'),
    });
    return true;
  } catch (err) {
    ctx.announce(errorText(s, err));
    return false;
  }
}

interface EditField {
  name: keyof KeyChanges;
  input: HTMLInputElement | HTMLTextAreaElement;
  message: HTMLElement;
  root: HTMLElement;
}

/** The fields a key's kind may change, filled with its current values. */
function editFields(ctx: ScreenContext, k: ApiKeyView): EditField[] {
  const { s } = ctx;
  const area = (name: keyof KeyChanges, label: string, hint: string, value: string): EditField => {
    const input = h('textarea', { class: 'input key-list-input', attrs: { name, rows: 4, dir: 'ltr', spellcheck: 'false' } });
    input.value = value;
    return { name, input, ...field(label, input, hint) };
  };
  if (k.type === 'secret') return [area('allowed_ips', s.t('keysIps'), s.t('keysIpsHint'), k.allowed_ips.join('\n'))];
  const cap = h('input', { class: 'input', attrs: { name: 'daily_cap', inputmode: 'numeric', dir: 'ltr', autocomplete: 'off' } });
  cap.value = k.daily_cap === null ? '' : String(k.daily_cap);
  return [
    area('allowed_origins', s.t('keysOrigins'), s.t('keysOriginsHint'), k.allowed_origins.join('\n')),
    { name: 'daily_cap', input: cap, ...field(s.t('keysCap'), cap, s.t('keysCapHint')) },
  ];
}

/** The changes the fields ask for, or the field whose value cannot be sent as it is. */
function changesOf(fields: EditField[]): KeyChanges | { wrong: EditField } {
  const changes: KeyChanges = {};
  for (const f of fields) {
    const text = f.input.value.trim();
    if (f.name === 'daily_cap') {
      if (text !== '' && !/^\d+$/.test(text)) return { wrong: f };
      changes.daily_cap = text === '' ? null : Number(text);
    } else changes[f.name] = listOf(text);
  }
  return changes;
}

export function editKey(ctx: ScreenContext, k: ApiKeyView): Promise<boolean> {
  const { s } = ctx;
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = nextId('edit');
  const fields = editFields(ctx, k);
  const alertText = h('p', null);
  const alertBox = h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, icon('alert'), alertText);
  alertBox.hidden = true;
  return new Promise((resolve) => {
    let changed = false;
    const save = button(s.t('keysSave'), 'primary', () => {}, { type: 'submit' });
    const form = h(
      'form',
      { class: 'form', attrs: { novalidate: true, method: 'dialog' } },
      alertBox,
      fields.map((f) => f.root),
      h(
        'div',
        { class: 'actions' },
        button(s.t('keysCancel'), 'secondary', () => dialog.close()),
        save,
      ),
    );
    const dialog = h(
      'dialog',
      { class: ['confirm-dialog', 'edit-dialog'], attrs: { 'aria-labelledby': titleId } },
      h('h2', { id: titleId, class: 'subtitle' }, s.t('keysEditTitle', { key: named(k) })),
      form,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void submitEdit(ctx, k, fields, alertBox, alertText).then((ok) => {
        if (!ok) return;
        changed = true;
        dialog.close();
      });
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(changed);
    });
    document.body.append(dialog);
    dialog.showModal();
    fields[0]?.input.focus();
  });
}

async function submitEdit(
  ctx: ScreenContext,
  k: ApiKeyView,
  fields: EditField[],
  alertBox: HTMLElement,
  alertText: HTMLElement,
): Promise<boolean> {
  const { s } = ctx;
  alertBox.hidden = true;
  for (const f of fields) setFieldMessage(f.input, f.message, null, false);
  const changes = changesOf(fields);
  if ('wrong' in changes) {
    setFieldMessage(changes.wrong.input, changes.wrong.message, s.t('keysCapInvalid'), true);
    changes.wrong.input.focus();
    return false;
  }
  try {
    await ctx.api.updateKey(k.id, changes);
    ctx.announce(s.t('keysSaved', { key: named(k) }));
    return true;
  } catch (err) {
    const target = err instanceof ApiError ? fields.find((f) => f.name === err.param?.replace(/\[.*$/, '')) : undefined;
    if (target) {
      setFieldMessage(target.input, target.message, errorText(s, err), true);
      target.input.focus();
    } else {
      alertText.textContent = errorText(s, err);
      alertBox.hidden = false;
    }
    return false;
  }
}
