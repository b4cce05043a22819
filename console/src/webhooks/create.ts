/**
 * Add a webhook endpoint (POST /api/v1/webhook_endpoints through the credential, so in the layout's
 * mode): its URL, an optional description, and the events — all of them (`*`, including types
 * added later) or a selection from the catalogue in groups. The signing secret is in the answer
 * only: it is shown once, then the endpoint's page opens.
 */
import { h, nextId } from '@tawqi/signing-page/dom';
import { showSecretOnce } from '../developers/shownOnce.js';
import { checks, Form } from '../form.js';
import type { Key, Strings } from '../i18n.js';
import { at } from '../router.js';
import type { Screen, ScreenContext } from '../screen.js';
import { emptyState, pageScreen, textLink } from '../views/parts.js';
import { ALL_EVENTS, canManage, eventGroups, groupLabel, type WebhookEndpoint } from './model.js';

export function webhookNewScreen(ctx: ScreenContext): Screen {
  const { s } = ctx;
  const back = h('p', null, textLink(s.t('hooksBack'), '/developers/webhooks'));
  const intro = s.t(ctx.livemode ? 'hooksNewIntroLive' : 'hooksNewIntroTest');
  if (!canManage(ctx.session?.permissions)) return pageScreen({ title: s.t('hooksAdd') }, back, emptyState('lock', s.t('hooksNoManage')));
  const picker = eventPicker(s);
  const form = new Form(
    s,
    [
      {
        name: 'url',
        label: s.t('hooksUrl'),
        autocomplete: 'url',
        hint: s.t('hooksUrlHint'),
        check: checks.required(s.t('hooksUrlRequired')),
      },
      { name: 'description', label: s.t('hooksDescriptionOptional'), autocomplete: 'off' },
    ],
    s.t('hooksCreate'),
    async (values) => {
      const events = picker.selected();
      if (events.length === 0) {
        form.alert(s.t('hooksEventsRequired'));
        picker.focus();
        return;
      }
      const made = await ctx.publicApi.post<WebhookEndpoint & { secret: string }>(
        ctx.livemode,
        '/webhook_endpoints',
        { url: values.url, enabled_events: events, ...(values.description ? { description: values.description } : {}) },
        { idempotent: true },
      );
      await showSecretOnce(s, {
        title: s.t('hooksSecretTitle'),
        label: s.t('hooksSecretLabel'),
        secret: made.secret,
        intro: s.t('hooksSecretIntro'),
      });
      ctx.flash(s.t('hooksCreated'));
      ctx.go(at(`/developers/webhooks/${made.id}`));
    },
  );
  const url = form.input('url');
  url.dir = 'ltr';
  url.inputMode = 'url';
  url.spellcheck = false;
  return pageScreen({ title: s.t('hooksAdd'), intro }, back, h('div', { class: 'form-slot create-grid' }, form.finish(picker.root)));
}

interface Picker {
  root: HTMLElement;
  selected(): string[];
  focus(): void;
}

/** All events, or chosen ones: a radio pair, and the catalogue's groups as fieldsets of checkboxes (shown for "chosen"). */
function eventPicker(s: Strings): Picker {
  const name = nextId('scope');
  const radio = (value: 'all' | 'some', label: Key, checked: boolean) => {
    const input = h('input', { attrs: { type: 'radio', name, value, checked } });
    return { input, root: h('label', { class: 'choice' }, input, h('span', null, s.t(label))) };
  };
  const all = radio('all', 'hooksEventsAll', true);
  const some = radio('some', 'hooksEventsSome', false);
  const boxes: HTMLInputElement[] = [];
  const groups = h(
    'div',
    { class: 'hook-groups' },
    eventGroups().map(({ group, types }) =>
      h(
        'fieldset',
        { class: 'hook-group' },
        h('legend', null, groupLabel(s, group)),
        types.map((type) => {
          const box = h('input', { attrs: { type: 'checkbox', value: type } });
          boxes.push(box);
          return h('label', { class: 'choice' }, box, h('code', { attrs: { dir: 'ltr' } }, type));
        }),
      ),
    ),
  );
  const sync = () => (groups.hidden = !some.input.checked);
  all.input.addEventListener('change', sync);
  some.input.addEventListener('change', sync);
  sync();
  const root = h('fieldset', { class: 'hook-events' }, h('legend', { class: 'label' }, s.t('hooksEvents')), all.root, some.root, groups);
  return {
    root,
    selected: () => (all.input.checked ? [ALL_EVENTS] : boxes.filter((b) => b.checked).map((b) => b.value)),
    focus: () => (all.input.checked ? all.input : (boxes[0] ?? some.input)).focus(),
  };
}
