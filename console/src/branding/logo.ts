/**
 * The logo upload: the file's type and size are checked here for a quick answer (the server decides,
 * by the bytes), then PUT /console/api/branding/logo stores it like other files and points the
 * branding at it at once; the stored logo is shown, and the logo address field follows.
 */
import { h } from '@tawqi/signing-page/dom';
import { field, setFieldMessage } from '@tawqi/signing-page/kit';
import type { ScreenContext } from '../screen.js';
import type { Say } from '../views/notice.js';
import { errorText } from '../requests/parts.js';
import type { BrandingInput } from './fields.js';
import type { BrandingView } from './model.js';

/** An uploaded logo is served by this server, so the console (img-src 'self') can show it. */
const STORED = /^\/branding\/logos\/[A-Za-z0-9_]+-[0-9a-f]{64}\.(png|jpg|svg)$/;

export function logoUpload(ctx: ScreenContext, view: BrandingView, logoUrl: BrandingInput, say: Say): HTMLElement {
  const { s } = ctx;
  const { logo_max_bytes: max, logo_types: types } = view.limits;
  const file = h('input', { class: 'input bp-file', attrs: { type: 'file', name: 'logo', accept: types.join(',') } });
  const f = field(s.t('bpLogoFile'), file, s.t('bpLogoFileHint', { kb: Math.floor(max / 1024) }));
  const shown = h('div', { class: 'bp-logo-shown' });
  const show = (url: string) => {
    shown.replaceChildren(
      STORED.test(url)
        ? h(
            'figure',
            null,
            h('img', { class: 'bp-logo', attrs: { src: url, alt: s.t('bpLogoStored') } }),
            h('figcaption', null, s.t('bpLogoStored')),
          )
        : '',
    );
  };
  show(view.branding.logo_url ?? '');
  const problem = (text: string | null) => {
    setFieldMessage(file, f.message, text, text !== null);
    if (text) file.focus();
  };
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    if (!types.includes(chosen.type)) return problem(s.t('bpLogoType'));
    if (chosen.size > max) return problem(s.t('bpLogoSize', { kb: Math.floor(max / 1024) }));
    problem(null);
    ctx.api
      .call<{ logo_url: string }>('PUT', '/branding/logo', chosen)
      .then((r) => {
        logoUrl.input.value = r.logo_url;
        logoUrl.input.dispatchEvent(new Event('input', { bubbles: true }));
        show(r.logo_url);
        file.value = '';
        say(s.t('bpLogoUploaded'), 'ok');
      })
      .catch((err: unknown) => problem(errorText(s, err)));
  });
  logoUrl.input.addEventListener('input', () => show(logoUrl.input.value.trim()));
  return h('div', { class: 'bp-logo-upload' }, f.root, shown);
}
