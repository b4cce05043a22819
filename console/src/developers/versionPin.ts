/**
 * The API version pin (spec: Svc-Version): the version the account's requests use when they send
 * no Svc-Version header. Shown to every role; pinned and unpinned by developers.manage (the server
 * audits the change and refuses an unknown version).
 */
import { h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import type { VersionPin } from '../api.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';

export function versionPinSection(ctx: ScreenContext, manage: boolean): HTMLElement {
  const { s } = ctx;
  const body = h('div', { class: 'version-pin', attrs: { 'aria-busy': 'true' } }, h('p', { class: 'muted' }, s.t('loading')));
  const show = (pin: VersionPin) => {
    body.replaceChildren(...pinView(ctx, pin, manage, show));
    body.removeAttribute('aria-busy');
  };
  ctx.api
    .versionPin()
    .then(show)
    .catch((err: unknown) => {
      body.replaceChildren(h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, errorText(s, err)));
      body.removeAttribute('aria-busy');
    });
  return h(
    'section',
    { class: 'block' },
    h('h2', { class: 'subtitle' }, s.t('keysPinTitle')),
    h('p', { class: 'muted' }, s.t('keysPinIntro')),
    body,
  );
}

function pinView(ctx: ScreenContext, pin: VersionPin, manage: boolean, show: (pin: VersionPin) => void): HTMLElement[] {
  const { s } = ctx;
  const version = (date: string) => h('code', { attrs: { dir: 'ltr' } }, date);
  const current = h(
    'p',
    { class: 'pin-current' },
    pin.version_pin ? [s.t('keysPinPinned'), ' ', version(pin.version_pin)] : [s.t('keysPinNone'), ' ', version(pin.default_version)],
  );
  if (!manage) return [current];
  const select = h(
    'select',
    { class: 'input', attrs: { id: 'pin-version', name: 'version' } },
    pin.versions.map((v) =>
      h(
        'option',
        { attrs: { value: v.date, selected: v.date === (pin.version_pin ?? pin.default_version) } },
        v.sunset ? s.t('keysPinSunset', { date: v.date, sunset: v.sunset }) : v.date,
      ),
    ),
  );
  const message = h('p', { class: 'field-message', attrs: { id: 'pin-message' } });
  select.setAttribute('aria-describedby', 'pin-message');
  const change = (to: string | null) => async () => {
    message.textContent = '';
    message.classList.remove('is-error');
    try {
      const next = await ctx.api.setVersionPin(to);
      show(next);
      // The buttons were replaced: keep the keyboard user on the choice.
      document.getElementById('pin-version')?.focus();
      ctx.announce(to ? s.t('keysPinDone', { date: to }) : s.t('keysPinCleared'));
    } catch (err) {
      message.textContent = errorText(s, err);
      message.classList.add('is-error');
    }
  };
  return [
    current,
    h(
      'div',
      { class: 'pin-form' },
      h('div', { class: 'field' }, h('label', { attrs: { for: 'pin-version' } }, s.t('keysPinChoose')), select),
      button(s.t('keysPinSet'), 'secondary', () => void change(select.value)()),
      pin.version_pin ? button(s.t('keysPinUnset'), 'quiet', () => void change(null)()) : null,
    ),
    message,
  ];
}
