/** Step `access_code`: the code the sender shared separately; attempts left; locked. */
import { h } from '../dom.js';
import type { State } from '../types.js';
import type { View, ViewContext } from './context.js';
import { actions, button, card, docChip, field, heading, isBusy, p, setFieldMessage } from './parts.js';

const LOW_ATTEMPTS = 3;

export function accessView(ctx: ViewContext, initial: State): View {
  const { s } = ctx;
  if (initial.access?.locked) return lockedView(ctx, initial);

  const input = h('input', {
    class: 'input input-code',
    attrs: {
      type: 'text',
      name: 'access_code',
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      required: true,
      maxlength: 64,
      dir: 'ltr',
    },
  });
  const { root: fieldRoot, message } = field(s.t('accessLabel'), input);
  const submit = button(s.t('accessSubmit'), 'primary', () => undefined, { type: 'submit' });
  const title = heading(s.t('accessTitle'));

  const showAttempts = (left: number | null, invalid: boolean) => {
    setFieldMessage(input, message, left === null ? null : s.plural('attemptsLeft', left), invalid);
  };

  const form = h(
    'form',
    {
      class: 'form',
      attrs: { novalidate: true },
      on: {
        submit: (event) => {
          event.preventDefault();
          if (isBusy(submit)) return;
          const code = input.value.trim();
          if (code === '') {
            setFieldMessage(input, message, s.t('accessEmpty'), true);
            input.focus();
            return;
          }
          void ctx
            .act([submit], () => ctx.api.accessCode(code), {
              onError: (e) => {
                if (e.attemptsLeft !== null) showAttempts(e.attemptsLeft, true);
                input.select();
                input.focus();
              },
            })
            .then((state) => state && ctx.show(state));
        },
      },
    },
    fieldRoot,
    actions(submit),
  );

  const root = card({ tone: 'brand', icon: 'lock', title, chip: docChip(s, initial) }, p('lead', s.t('accessIntro')), form);
  // Attempts left are shown when they run low or after a wrong code, not as clutter up front.
  const left = initial.access?.attempts_left ?? null;
  if (left !== null && left <= LOW_ATTEMPTS) showAttempts(left, false);

  return {
    root,
    heading: title,
    focusTarget: input,
    update: (state) => !state.access?.locked,
  };
}

function lockedView(ctx: ViewContext, state: State): View {
  const { s } = ctx;
  const title = heading(s.t('accessLockedTitle'));
  return { root: card({ tone: 'bad', icon: 'lock', title, chip: docChip(s, state) }, p('lead', s.t('accessLockedBody'))), heading: title };
}
