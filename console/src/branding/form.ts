/**
 * The branding form (spec 2.9): every field, grouped; a change is sent to the live preview as a
 * draft; Save sends the whole branding (PUT /console/api/branding: an empty field is removed) and
 * the server decides — a refusal lands on the field it names, with its message.
 */
import { h } from '@tawqi/signing-page/dom';
import { button } from '@tawqi/signing-page/kit';
import { ApiError } from '../api.js';
import { errorText } from '../requests/parts.js';
import type { ScreenContext } from '../screen.js';
import type { Say } from '../views/notice.js';
import { contrastLine } from './contrast.js';
import { colorField, fieldMessage, textField, welcomeField, type BrandingInput } from './fields.js';
import { logoUpload } from './logo.js';
import type { Branding, BrandingView } from './model.js';

export interface BrandingForm {
  root: HTMLFormElement;
  /** The branding as the form holds it now (saved or not). */
  draft(): Branding;
}

function inputs(ctx: ScreenContext, v: BrandingView): BrandingInput[] {
  const { s } = ctx;
  const b = v.branding;
  return [
    textField('brand_name', s.t('bpBrandName'), s.t('bpBrandNameHint', { max: v.limits.brand_name_max_chars }), b.brand_name, {
      autocomplete: 'organization',
    }),
    textField('logo_url', s.t('bpLogoUrl'), s.t('bpLogoUrlHint'), b.logo_url, { ltr: true }),
    colorField('brand_color', s.t('bpBrandColor'), s.t('bpBrandColorHint'), s.t('bpPickBrandColor'), b.brand_color),
    colorField('sign_button_color', s.t('bpButtonColor'), s.t('bpButtonColorHint'), s.t('bpPickButtonColor'), b.sign_button_color),
    welcomeField(s, 'sign_welcome_ar', s.t('bpWelcomeAr'), 'ar', b.sign_welcome_ar, v.limits.welcome_max_chars),
    welcomeField(s, 'sign_welcome_en', s.t('bpWelcomeEn'), 'en', b.sign_welcome_en, v.limits.welcome_max_chars),
    textField('from_email', s.t('bpFromEmail'), s.t('bpFromEmailHint'), b.from_email, { ltr: true, type: 'email', autocomplete: 'email' }),
    textField('custom_domain', s.t('bpDomain'), s.t('bpDomainHint'), b.custom_domain, { ltr: true }),
  ];
}

const group = (legend: string, ...children: (Node | null)[]): HTMLFieldSetElement =>
  h('fieldset', { class: 'bp-group' }, h('legend', null, legend), ...children);

export function brandingForm(
  ctx: ScreenContext,
  view: BrandingView,
  messages: { say: Say; clear: () => void },
  saved: (v: BrandingView) => void,
): BrandingForm {
  const { say, clear: clearMessage } = messages;
  const { s } = ctx;
  const fields = inputs(ctx, view);
  const byName = (name: string) => fields.find((f) => f.name === name)!;
  const hide = h('input', { attrs: { type: 'checkbox', name: 'hide_powered' } });
  hide.checked = view.branding.hide_powered === true;
  const logo = logoUpload(ctx, view, byName('logo_url'), say);
  contrastLine(s, byName('sign_button_color'));
  const draft = (): Branding => {
    const out: Branding = {};
    for (const f of fields) if (f.input.value.trim() !== '') out[f.name] = f.input.value.trim();
    if (hide.checked) out.hide_powered = true;
    return out;
  };
  const save = button(s.t('bpSave'), 'primary', () => {}, { type: 'submit' });
  const root = h(
    'form',
    { class: 'form bp-form', attrs: { novalidate: true, 'aria-label': s.t('bpFormLabel') } },
    group(s.t('bpGroupIdentity'), byName('brand_name').root, byName('logo_url').root, logo),
    group(s.t('bpGroupColors'), byName('brand_color').root, byName('sign_button_color').root),
    group(s.t('bpGroupWelcome'), byName('sign_welcome_ar').root, byName('sign_welcome_en').root),
    group(
      s.t('bpGroupDelivery'),
      byName('from_email').root,
      byName('custom_domain').root,
      h('label', { class: 'choice' }, hide, h('span', null, s.t('bpHidePowered'))),
    ),
    h('div', { class: 'actions' }, save),
  );
  root.addEventListener('submit', (event) => {
    event.preventDefault();
    if (save.getAttribute('aria-busy') === 'true') return;
    save.setAttribute('aria-busy', 'true');
    for (const f of fields) fieldMessage(f, null);
    // A message of an earlier action (a logo upload, a save) would be stale next to this answer.
    clearMessage();
    ctx.api
      .call<BrandingView>('PUT', '/branding', draft())
      .then((v) => {
        saved(v);
        say(s.t('bpSaved'), 'ok');
      })
      .catch((err: unknown) => refused(err))
      .finally(() => save.removeAttribute('aria-busy'));
  });
  /** The server's refusal on each field it names (`errors`), the focus on the first; else in the page's alert. */
  const refused = (err: unknown) => {
    const named = err instanceof ApiError ? fields.find((f) => f.name === err.param) : undefined;
    if (!named || !(err instanceof ApiError)) return say(errorText(s, err), 'bad');
    const others = Array.isArray(err.body.errors) ? (err.body.errors as { param?: string }[]) : [];
    for (const e of others) {
      const f = fields.find((x) => x.name === e.param && x !== named);
      if (f) fieldMessage(f, s.t('bpFieldRefused'));
    }
    fieldMessage(named, err.serverMessage ?? s.t('unexpectedError'));
    named.input.focus();
  };
  return { root, draft };
}
