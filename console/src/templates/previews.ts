/**
 * The editor's two previews, updated a moment after one stops typing: the document's text with the
 * sample values, and the final PDF's first page as the server renders it (POST
 * /console/api/template_preview: the sealing renderer, nothing stored), drawn with PDF.js. An answer
 * older than the last request is dropped. `data-state` on the PDF figure says where it stands.
 */
import { h } from '@tawqi/signing-page/dom';
import type { ScreenContext } from '../screen.js';
import { errorText } from '../requests/parts.js';
import { fill, type TemplateDraft } from './model.js';

const TEXT_DELAY_MS = 200;
const PDF_DELAY_MS = 700;
/** The canvas's width in CSS pixels (the figure scales it down on a narrow screen). */
const PDF_WIDTH = 520;

export class Previews {
  readonly root: HTMLElement;
  // A long contract scrolls inside its box (a focusable region, so the keyboard scrolls it too).
  private readonly text = h('div', {
    class: 'tpl-doc',
    attrs: { 'data-preview': 'text', tabindex: 0, role: 'region', 'aria-labelledby': 'tpl-text-head' },
  });
  private readonly canvas = h('canvas', { class: 'tpl-pdf-canvas', attrs: { role: 'img' } });
  private readonly status = h('p', { class: 'muted small', attrs: { role: 'status' } });
  private readonly figure: HTMLElement;
  private textTimer = 0;
  private pdfTimer = 0;
  private sequence = 0;

  constructor(private readonly ctx: ScreenContext) {
    const { s } = ctx;
    this.canvas.setAttribute('aria-label', s.t('tplPdfAlt'));
    this.figure = h('figure', { class: 'tpl-pdf', attrs: { 'data-state': 'blocked' } }, this.canvas, h('figcaption', null, this.status));
    this.root = h(
      'div',
      { class: 'tpl-previews' },
      h(
        'section',
        { class: 'tpl-preview', attrs: { 'aria-labelledby': 'tpl-text-head' } },
        h('h2', { class: 'subtitle', id: 'tpl-text-head' }, s.t('tplTextPreview')),
        this.text,
      ),
      h(
        'section',
        { class: 'tpl-preview', attrs: { 'aria-labelledby': 'tpl-pdf-head' } },
        h('h2', { class: 'subtitle', id: 'tpl-pdf-head' }, s.t('tplPdfPreview')),
        this.figure,
      ),
    );
  }

  /** Schedule both previews of `draft` filled with `values`; the PDF only when the server would accept the draft. */
  update(draft: TemplateDraft, values: Record<string, string>, valid: boolean): void {
    window.clearTimeout(this.textTimer);
    window.clearTimeout(this.pdfTimer);
    this.textTimer = window.setTimeout(() => this.showText(draft, values), TEXT_DELAY_MS);
    const seq = ++this.sequence;
    if (!valid) return this.setState('blocked', this.ctx.s.t('tplPdfBlocked'));
    this.setState('pending', this.ctx.s.t('tplPdfUpdating'));
    this.pdfTimer = window.setTimeout(() => void this.showPdf(seq, draft, values), PDF_DELAY_MS);
  }

  destroy(): void {
    window.clearTimeout(this.textTimer);
    window.clearTimeout(this.pdfTimer);
    this.sequence += 1;
  }

  private showText(draft: TemplateDraft, values: Record<string, string>): void {
    const paragraphs = fill(draft.body, values)
      .split(/\n\s*\n/)
      .map((para) => para.trim())
      .filter(Boolean);
    this.text.setAttribute('dir', draft.language === 'ar' ? 'rtl' : 'ltr');
    this.text.setAttribute('lang', draft.language);
    this.text.replaceChildren(h('h3', { class: 'tpl-doc-title' }, draft.title), ...paragraphs.map((para) => h('p', null, para)));
  }

  private async showPdf(seq: number, draft: TemplateDraft, values: Record<string, string>): Promise<void> {
    const { s } = this.ctx;
    try {
      const answer = await this.ctx.api.call<{ pdf_base64: string }>('POST', '/template_preview', { ...draft, values });
      if (seq !== this.sequence) return;
      // PDF.js (a chunk of its own, see console/build.mjs) is fetched on the first preview.
      const { drawFirstPage } = await import('./pdfPage.js');
      await drawFirstPage(bytesOf(answer.pdf_base64), this.canvas, PDF_WIDTH);
      if (seq !== this.sequence) return;
      this.setState('ready', s.t('tplPdfReady'));
    } catch (err) {
      if (seq === this.sequence) this.setState('error', errorText(s, err));
    }
  }

  private setState(state: 'blocked' | 'pending' | 'ready' | 'error', text: string): void {
    this.figure.setAttribute('data-state', state);
    this.status.textContent = text;
  }
}

function bytesOf(base64: string): Uint8Array {
  const raw = atob(base64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) out[i] = raw.charCodeAt(i);
  return out;
}
