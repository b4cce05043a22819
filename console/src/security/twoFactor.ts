/**
 * Two-step verification on the Security screen. Off: a button starts enrolment
 * (POST /two_factor/setup → the QR code and the key as text); a code from the app confirms it
 * (POST /two_factor/confirm → the recovery codes, shown this once with copy and download). On: the
 * codes left, and turning it off with the password. Each step moves the focus to its heading.
 *
 * The QR code arrives as an SVG document. It is shown through an <img> with a data: address
 * (the page's CSP allows data: images): an image cannot run script or pull in styles, and the
 * markup never enters the page's DOM.
 */
import { h } from '@tawqi/signing-page/dom';
import { button, icon, p } from '@tawqi/signing-page/kit';
import type { TwoFactorSetup } from '../api.js';
import { Form, type FieldSpec } from '../form.js';
import type { Strings } from '../i18n.js';
import { errorText } from '../requests/parts.js';
import { codeField, digits } from '../views/twoFactor.js';
import type { ScreenContext } from '../screen.js';
import { copyButton, downloadButton } from './copy.js';

export interface Section {
  root: HTMLElement;
  say(text: string, tone: 'ok' | 'bad'): void;
}

/** The user's password again, before a security change. */
export const currentPasswordField = (s: Strings, name: string, label: string): FieldSpec => ({
  name,
  label,
  type: 'password',
  autocomplete: 'current-password',
  check: (v) => (v === '' ? s.t('passwordRequired') : null),
});

export function twoFactorSection(ctx: ScreenContext, section: Section): void {
  void new TwoFactorPart(ctx, section).load();
}

/** The section's states, each drawn in its body with its own heading. */
class TwoFactorPart {
  private readonly s: Strings;
  private readonly body: HTMLElement;

  constructor(
    private readonly ctx: ScreenContext,
    private readonly section: Section,
  ) {
    this.s = ctx.s;
    this.body = section.root.querySelector<HTMLElement>('.tf-body')!;
  }

  async load(focus = false): Promise<void> {
    this.body.setAttribute('aria-busy', 'true');
    try {
      const status = await this.ctx.api.twoFactorStatus();
      const heading = status.enabled ? this.on(status.recovery_codes_remaining) : this.off();
      if (focus) heading.focus();
    } catch (err) {
      this.show(
        this.s.t('secTfTitle'),
        h('div', { class: 'notice tone-bad', attrs: { role: 'alert' } }, icon('alert'), h('p', null, errorText(this.s, err))),
      );
    } finally {
      this.body.removeAttribute('aria-busy');
    }
  }

  private show(title: string, ...content: Node[]): HTMLElement {
    const heading = h('h3', { class: 'subtitle step-title', attrs: { tabindex: -1 } }, title);
    this.body.replaceChildren(heading, ...content);
    return heading;
  }

  private off(): HTMLElement {
    const { s } = this;
    const start = async () => {
      try {
        this.enrol(await this.ctx.api.twoFactorSetup());
      } catch (err) {
        this.section.say(errorText(s, err), 'bad');
      }
    };
    return this.show(
      s.t('secTfOffTitle'),
      p(null, s.t('secTfOffBody')),
      h(
        'div',
        { class: 'actions' },
        button(s.t('secTfStart'), 'primary', () => void start()),
      ),
    );
  }

  private enrol(setup: TwoFactorSetup): void {
    const { s, ctx } = this;
    const form = new Form(s, [codeField(s)], s.t('secTfConfirm'), async ({ code }) =>
      this.codes((await ctx.api.twoFactorConfirm(digits(code!))).recovery_codes),
    );
    form.submit.classList.remove('btn-block');
    const manual = h('code', { class: 'secret-text', attrs: { dir: 'ltr' } }, grouped(setup.secret));
    this.show(
      s.t('secTfSetupTitle'),
      h(
        'ol',
        { class: 'tf-steps' },
        h('li', null, p(null, s.t('secTfScan')), qrImage(setup.qr_svg, s.t('secTfQrAlt'))),
        h(
          'li',
          null,
          p(null, s.t('secTfManual')),
          manual,
          copyButton(s, s.t('secCopyKey'), () => setup.secret, ctx.announce),
        ),
        h(
          'li',
          null,
          p(null, s.t('secTfEnterCode')),
          withCancel(
            form.finish(),
            button(s.t('secTfCancel'), 'secondary', () => void this.load(true)),
          ),
        ),
      ),
    ).focus();
  }

  /** The recovery codes, this once: copy, download, and "saved" back to the section's state. */
  private codes(list: string[]): void {
    const { s, ctx } = this;
    const file = () => `${s.t('secCodesFileHeading', { email: ctx.session?.user.email ?? '' })}\n\n${list.join('\n')}\n`;
    this.show(
      s.t('secCodesTitle'),
      h('div', { class: 'notice tone-warn' }, icon('alert'), h('p', null, s.t('secCodesWarning'))),
      h(
        'ol',
        { class: 'recovery-codes', attrs: { dir: 'ltr', 'aria-label': s.t('secCodesTitle') } },
        list.map((c) => h('li', null, h('code', null, c))),
      ),
      h(
        'div',
        { class: 'actions' },
        copyButton(s, s.t('secCopyCodes'), () => list.join('\n'), ctx.announce),
        downloadButton(s.t('secDownloadCodes'), 'tawqi-recovery-codes.txt', file),
        button(s.t('secCodesDone'), 'primary', () => void this.load(true)),
      ),
    ).focus();
  }

  private on(remaining: number): HTMLElement {
    const { s } = this;
    const form = new Form(s, [currentPasswordField(s, 'password', s.t('password'))], s.t('secTfDisable'), async ({ password }) => {
      await this.ctx.api.twoFactorDisable(password!);
      this.section.say(s.t('secTfDisabled'), 'ok');
      await this.load(true);
    });
    form.submit.className = 'btn btn-danger';
    return this.show(
      s.t('secTfOnTitle'),
      p(null, s.t('secTfOnBody', { count: remaining })),
      h('h4', { class: 'label' }, s.t('secTfDisableTitle')),
      p('muted', s.t('secTfDisableBody')),
      form.finish(),
    );
  }
}

/** The form with a second button beside its submit button. */
function withCancel(form: HTMLFormElement, cancel: HTMLButtonElement): HTMLFormElement {
  form.querySelector('.actions')?.prepend(cancel);
  return form;
}

/** The key in groups of four, easier to type; the copy button copies it without spaces. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

function qrImage(svg: string, alt: string): HTMLImageElement {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return h('img', { class: 'qr-code', attrs: { src: `data:image/svg+xml;base64,${btoa(binary)}`, alt, width: 200, height: 200 } });
}
