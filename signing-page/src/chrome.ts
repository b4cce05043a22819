/**
 * The page around the steps: language and direction, document title, test banner, branding
 * (colours, logo, name, welcome text), the progress steps, the alert and status regions, and the
 * "Powered by Tawqi" footer.
 */
import { bdi, h, replace, safeColor, safeUrl } from './dom.js';
import type { Strings } from './i18n.js';
import type { State, Step } from './types.js';
import { icon } from './views/parts.js';

const VERIFY_STEPS: readonly Step[] = ['access_code', 'otp', 'identity', 'identity_wait', 'identity_declined', 'identity_hold'];
const WELCOME_STEPS: readonly Step[] = [...VERIFY_STEPS, 'review'];

export class Chrome {
  private readonly banner = h('div', { class: 'test-banner', attrs: { role: 'note', hidden: true } });
  private readonly brand = h('div', { class: 'brand' });
  private readonly header = h('header', { class: 'topbar' }, h('div', { class: 'topbar-inner' }, this.brand));
  private readonly progress = h('nav', { class: 'progress', attrs: { hidden: true } });
  private readonly welcome = h('p', { class: 'welcome', attrs: { hidden: true } });
  private readonly slot = h('div', { class: 'slot' });
  private readonly status = h('div', { class: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
  private readonly flash = h('p', { class: 'flash', attrs: { role: 'status' } });
  private readonly alertText = h('p', { class: 'alert-text' });
  private readonly alertClose = h('button', {
    class: 'alert-close',
    attrs: { type: 'button' },
    on: { click: () => this.setAlert(null) },
  });
  private readonly alertBox = h('div', { class: 'alert', attrs: { role: 'alert' } });
  private readonly footer = h('footer', { class: 'footer' });
  private readonly inner = h('div', { class: 'frame' });
  private s: Strings;
  private alertTimer = 0;

  constructor(
    private readonly main: HTMLElement,
    strings: Strings,
  ) {
    this.s = strings;
    // Step content is announced by moving focus to its heading and through the status region;
    // a live <main> would read the whole contract aloud on every change.
    main.removeAttribute('aria-live');
    main.classList.add('app');
    this.alertBox.append(icon('alert'), this.alertText);
    this.alertClose.append(icon('x'));
    replace(this.inner, this.progress, this.welcome, this.flash, this.slot, this.alertBox, this.status);
    replace(main, this.inner);
    main.before(this.banner, this.header);
    main.after(this.footer);
    this.setStrings(strings);
  }

  setStrings(strings: Strings): void {
    this.s = strings;
    const root = document.documentElement;
    root.lang = strings.lang;
    root.dir = strings.dir;
    this.alertClose.setAttribute('aria-label', strings.t('dismiss'));
  }

  /** Where step views go. */
  get content(): HTMLElement {
    return this.slot;
  }

  /** Everything that depends on the State but not on the step's own content. */
  apply(state: State): void {
    const s = this.s;
    document.title = s.t('pageTitle', { title: state.request.title });
    this.banner.hidden = state.livemode;
    replace(this.banner, state.livemode ? null : [icon('alert'), h('span', null, s.t('testBanner'))]);
    document.body.classList.toggle('is-test', !state.livemode);

    const root = document.documentElement;
    const brandColor = safeColor(state.branding.brand_color);
    const buttonColor = safeColor(state.branding.button_color) ?? brandColor;
    // Set or removed (then the shell's values, if any, apply): the console's preview changes them live.
    setVar(root, '--brand', brandColor);
    setVar(root, '--button', buttonColor);
    setVar(root, '--button-ink', buttonColor ? inkOn(buttonColor) : null);

    this.renderBrand(state);
    this.renderProgress(state.step);

    const welcome = state.branding.welcome?.trim() ?? '';
    this.welcome.hidden = welcome === '' || !WELCOME_STEPS.includes(state.step);
    this.welcome.textContent = welcome;

    replace(this.footer, state.branding.hide_powered ? null : h('p', null, icon('pen'), s.t('poweredBy')));
  }

  /** The page's own screens (no State): no progress, no welcome. */
  bare(): void {
    this.progress.hidden = true;
    this.welcome.hidden = true;
  }

  setWide(wide: boolean): void {
    this.inner.classList.toggle('is-wide', wide);
  }

  setAlert(message: string | null): void {
    const text = message ?? '';
    window.clearTimeout(this.alertTimer);
    if (text !== '' && text === this.alertText.textContent) {
      // The same refusal again (a second wrong code): re-insert the text so it is announced again.
      this.alertText.textContent = '';
      this.alertTimer = window.setTimeout(() => {
        this.alertText.textContent = text;
      }, 50);
    } else {
      this.alertText.textContent = text;
    }
    this.alertBox.classList.toggle('is-shown', text !== '');
    if (text) this.alertBox.append(this.alertClose);
    else this.alertClose.remove();
  }

  /** A polite announcement; `visible` also shows it as a short notice above the step. */
  announce(message: string, visible = false): void {
    const region = visible ? this.flash : this.status;
    region.textContent = '';
    // A fresh text node after a tick is announced even when the text repeats.
    window.setTimeout(() => {
      region.textContent = message;
    }, 50);
  }

  clearFlash(): void {
    this.flash.textContent = '';
  }

  private renderBrand(state: State): void {
    const s = this.s;
    const b = state.branding;
    const name = b.brand_name?.trim() || null;
    // Images load over https (or same-origin, or data:), as the page's CSP allows.
    const logoUrl = safeUrl(b.logo_url, { allowData: true, allowRelative: true });
    const logo =
      logoUrl && (logoUrl.startsWith('https:') || logoUrl.startsWith('data:') || logoUrl.startsWith(`${location.origin}/`))
        ? logoUrl
        : null;
    const parts: Node[] = [];
    if (logo) {
      const img = h('img', {
        class: 'logo',
        attrs: { src: logo, alt: s.t('logoAlt', { brand: name ?? s.t('appName') }), decoding: 'async', referrerpolicy: 'no-referrer' },
      });
      img.addEventListener('error', () => img.remove(), { once: true });
      parts.push(img);
    }
    if (name) parts.push(h('span', { class: 'brand-name' }, bdi(name)));
    if (!logo && !name && !b.hide_powered) parts.push(h('span', { class: 'brand-name brand-default' }, icon('pen'), s.t('appName')));
    replace(this.brand, parts);
    this.header.hidden = parts.length === 0;
  }

  private renderProgress(step: Step): void {
    const s = this.s;
    const at = VERIFY_STEPS.includes(step) ? 0 : step === 'review' ? 1 : step === 'signed' || step === 'declined' ? 2 : -1;
    this.progress.hidden = at < 0;
    if (at < 0) return;
    this.progress.setAttribute('aria-label', s.t('progress'));
    const labels = [s.t('stepVerify'), s.t('stepSign'), s.t('stepDone')];
    const done = step === 'signed' || step === 'declined';
    replace(
      this.progress,
      h(
        'ol',
        { class: 'steps' },
        labels.map((label, i) => {
          const complete = i < at || done;
          const current = i === at && !done;
          return h(
            'li',
            { class: ['step', complete && 'is-done', current && 'is-current'], attrs: { 'aria-current': current ? 'step' : null } },
            h('span', { class: 'step-dot', attrs: { 'aria-hidden': 'true' } }, complete ? icon('check') : String(i + 1)),
            h('span', { class: 'step-label' }, label),
            h('span', { class: 'sr-only' }, complete ? ` ${s.t('stepComplete')}` : current ? ` ${s.t('stepCurrent')}` : ''),
          );
        }),
      ),
    );
  }
}

function setVar(el: HTMLElement, name: string, value: string | null): void {
  if (value) el.style.setProperty(name, value);
  else el.style.removeProperty(name);
}

/** White or near-black text on a #rrggbb background, whichever contrasts more. */
export function inkOn(hex: string): string {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  const onWhite = 1.05 / (luminance + 0.05);
  const onBlack = (luminance + 0.05) / 0.05;
  return onWhite >= onBlack ? '#ffffff' : '#111111';
}
