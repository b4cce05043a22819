/**
 * The signature input: a signature_pad canvas to draw on, or — the keyboard alternative — a name
 * typed into a field and drawn into the same canvas. The canvas follows its box and the screen's
 * pixel ratio and keeps the drawing (scaled) when it resizes. Export is a trimmed PNG data URL.
 */
import SignaturePad, { type PointGroup } from 'signature_pad';
import { h, nextId } from './dom.js';
import type { Strings } from './i18n.js';

export type SignatureMode = 'draw' | 'type';

const INK = '#10204b';
const ARABIC = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;
const LATIN_FONTS = '"Segoe Script", "Bradley Hand", "Snell Roundhand", "Brush Script MT", "URW Chancery L", "Z003", cursive';
const ARABIC_FONTS =
  '"Aref Ruqaa", "Diwan Thuluth", "DecoType Naskh", "Noto Naskh Arabic", "Amiri", "Geeza Pro", "Traditional Arabic", "Noto Sans Arabic", serif';
/** Where the signature line sits, as a fraction of the pad's height (matches the CSS line). */
const BASELINE = 0.7;
/** Largest exported image, in pixels: keeps the upload small and the PDF fast. */
const MAX_EXPORT = { width: 900, height: 320 };
const TYPED_MAX_LENGTH = 80;
/** Export resolution, independent of the screen's pixel ratio. */
const EXPORT_RATIO = 3;
const PAD_OPTIONS = {
  penColor: INK,
  minWidth: 0.9,
  maxWidth: 2.8,
  velocityFilterWeight: 0.6,
  throttle: 8,
  backgroundColor: 'rgba(0,0,0,0)',
} as const;

export interface SignatureInputOptions {
  strings: Strings;
  /** Suggested as the typed name's placeholder. */
  signerName: string;
  /** Called whenever the signature becomes empty or not empty. */
  onChange: () => void;
  /** Polite announcement for screen readers. */
  announce: (message: string) => void;
}

export class SignatureInput {
  readonly root: HTMLElement;
  private mode: SignatureMode = 'draw';
  private readonly canvas: HTMLCanvasElement;
  private readonly pad: SignaturePad;
  private readonly typed: HTMLInputElement;
  private readonly typeBox: HTMLElement;
  private readonly padBox: HTMLElement;
  private readonly clearButton: HTMLButtonElement;
  private readonly radios: Record<SignatureMode, HTMLInputElement>;
  /** The drawing, kept while the typed mode is shown. */
  private strokes: PointGroup[] = [];
  private cssWidth = 0;
  private cssHeight = 0;
  private ratio = 1;
  private readonly observer: ResizeObserver;
  private dprQuery: MediaQueryList | null = null;
  private readonly onDprChange = () => this.resize(true);

  constructor(private readonly o: SignatureInputOptions) {
    const s = o.strings;
    const name = nextId('sig-mode');
    const radio = (mode: SignatureMode, label: string) => {
      const input = h('input', {
        attrs: { type: 'radio', name, value: mode, checked: mode === 'draw' },
        on: { change: () => this.setMode(mode) },
      });
      return { input, label: h('label', { class: 'segment' }, input, h('span', null, label)) };
    };
    const draw = radio('draw', s.t('sigDraw'));
    const type = radio('type', s.t('sigType'));
    this.radios = { draw: draw.input, type: type.input };

    this.canvas = h('canvas', { class: 'sig-canvas', attrs: { role: 'img', 'aria-label': s.t('padLabel') } });
    this.padBox = h(
      'div',
      { class: 'sig-pad is-empty' },
      this.canvas,
      h('span', { class: 'sig-placeholder', attrs: { 'aria-hidden': 'true' } }, s.t('padPlaceholder')),
      h('span', { class: 'sig-line', attrs: { 'aria-hidden': 'true' } }),
    );

    const typedId = nextId('sig-typed');
    const hintId = nextId('sig-typed-hint');
    this.typed = h('input', {
      id: typedId,
      class: 'input',
      attrs: {
        type: 'text',
        autocomplete: 'name',
        maxlength: TYPED_MAX_LENGTH,
        spellcheck: 'false',
        placeholder: o.signerName.slice(0, TYPED_MAX_LENGTH),
        'aria-describedby': hintId,
        dir: 'auto',
      },
      on: {
        input: () => {
          this.renderTyped();
          this.changed();
        },
      },
    });
    this.typeBox = h(
      'div',
      { class: 'field sig-type', attrs: { hidden: true } },
      h('label', { attrs: { for: typedId } }, s.t('typeLabel')),
      this.typed,
      h('p', { id: hintId, class: 'hint' }, s.t('typeHint')),
    );

    this.clearButton = h(
      'button',
      { class: 'btn btn-quiet btn-small', attrs: { type: 'button' }, on: { click: () => this.clear() } },
      s.t('sigClear'),
    );

    this.root = h(
      'div',
      { class: 'sig' },
      h('fieldset', { class: 'segmented' }, h('legend', { class: 'sr-only' }, s.t('sigMode')), draw.label, type.label),
      this.typeBox,
      this.padBox,
      h('div', { class: 'sig-tools' }, this.clearButton),
    );

    this.pad = new SignaturePad(this.canvas, PAD_OPTIONS);
    this.pad.addEventListener('beginStroke', () => this.padBox.classList.remove('is-empty'));
    this.pad.addEventListener('endStroke', () => {
      this.strokes = this.pad.toData();
      this.changed();
    });

    this.observer = new ResizeObserver(() => this.resize(false));
    this.observer.observe(this.canvas);
    this.watchPixelRatio();
  }

  isEmpty(): boolean {
    return this.mode === 'draw' ? this.pad.isEmpty() : this.typed.value.trim() === '';
  }

  /**
   * The signature as a PNG data URL: redrawn at {@link EXPORT_RATIO}× whatever the screen's pixel
   * ratio (sharp in the PDF), trimmed to the ink with a small margin, at most {@link MAX_EXPORT}.
   */
  toDataURL(): string {
    const source = this.renderAt(EXPORT_RATIO);
    const { width, height } = source;
    const ctx = source.getContext('2d', { willReadFrequently: true });
    if (!ctx || width === 0 || height === 0) return source.toDataURL('image/png');
    const pixels = ctx.getImageData(0, 0, width, height).data;
    let top = height;
    let left = width;
    let right = -1;
    let bottom = -1;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if ((pixels[(y * width + x) * 4 + 3] ?? 0) > 8) {
          if (x < left) left = x;
          if (x > right) right = x;
          if (y < top) top = y;
          if (y > bottom) bottom = y;
        }
      }
    }
    if (right < 0) return source.toDataURL('image/png');
    const margin = 6 * EXPORT_RATIO;
    left = Math.max(0, left - margin);
    top = Math.max(0, top - margin);
    right = Math.min(width - 1, right + margin);
    bottom = Math.min(height - 1, bottom + margin);
    const sw = right - left + 1;
    const sh = bottom - top + 1;
    const scale = Math.min(1, MAX_EXPORT.width / sw, MAX_EXPORT.height / sh);
    const out = document.createElement('canvas');
    out.width = Math.max(1, Math.round(sw * scale));
    out.height = Math.max(1, Math.round(sh * scale));
    const octx = out.getContext('2d');
    if (!octx) return source.toDataURL('image/png');
    octx.imageSmoothingQuality = 'high';
    octx.drawImage(source, left, top, sw, sh, 0, 0, out.width, out.height);
    return out.toDataURL('image/png');
  }

  /** The current signature drawn on a detached canvas at `ratio` × the pad's CSS size. */
  private renderAt(ratio: number): HTMLCanvasElement {
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(this.cssWidth * ratio));
    canvas.height = Math.max(1, Math.round(this.cssHeight * ratio));
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) return canvas;
    ctx.scale(ratio, ratio);
    if (this.mode === 'draw') {
      const pad = new SignaturePad(canvas, PAD_OPTIONS);
      pad.off();
      pad.fromData(this.pad.toData(), { clear: false });
    } else {
      this.drawTyped(ctx);
    }
    return canvas;
  }

  setDisabled(disabled: boolean): void {
    if (disabled) this.pad.off();
    else if (this.mode === 'draw') this.pad.on();
    this.typed.disabled = disabled;
    this.clearButton.disabled = disabled;
    this.radios.draw.disabled = disabled;
    this.radios.type.disabled = disabled;
    this.padBox.classList.toggle('is-disabled', disabled);
  }

  destroy(): void {
    this.observer.disconnect();
    this.dprQuery?.removeEventListener('change', this.onDprChange);
    this.pad.off();
  }

  clear(): void {
    if (this.mode === 'draw') {
      this.pad.clear();
      this.strokes = [];
    } else {
      this.typed.value = '';
      this.renderTyped();
      this.typed.focus();
    }
    this.padBox.classList.add('is-empty');
    this.changed();
    this.o.announce(this.o.strings.t('sigCleared'));
  }

  private setMode(mode: SignatureMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    const s = this.o.strings;
    this.typeBox.hidden = mode !== 'type';
    this.padBox.classList.toggle('is-typed', mode === 'type');
    this.canvas.setAttribute('aria-label', s.t(mode === 'draw' ? 'padLabel' : 'typePreview'));
    if (mode === 'type') {
      this.pad.off();
      this.renderTyped();
    } else {
      this.pad.on();
      this.pad.clear();
      if (this.strokes.length > 0) this.pad.fromData(this.strokes);
      this.padBox.classList.toggle('is-empty', this.strokes.length === 0);
    }
    this.changed();
  }

  private changed(): void {
    if (this.mode === 'type') this.padBox.classList.toggle('is-empty', this.typed.value.trim() === '');
    this.o.onChange();
  }

  /** Size the backing store to the box × devicePixelRatio; redraw, scaled to the new width. */
  private resize(force: boolean): void {
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    const ratio = Math.max(window.devicePixelRatio || 1, 1);
    if (width === 0 || height === 0) return;
    if (!force && width === this.cssWidth && height === this.cssHeight && ratio === this.ratio) return;
    const factor = this.cssWidth > 0 ? width / this.cssWidth : 1;
    this.cssWidth = width;
    this.cssHeight = height;
    this.ratio = ratio;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.getContext('2d')?.scale(ratio, ratio);
    if (factor !== 1) this.strokes = scaleStrokes(this.strokes, factor);
    if (this.mode === 'draw') {
      this.pad.clear();
      if (this.strokes.length > 0) this.pad.fromData(this.strokes);
    } else {
      this.renderTyped();
    }
  }

  private watchPixelRatio(): void {
    this.dprQuery?.removeEventListener('change', this.onDprChange);
    this.dprQuery = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    this.dprQuery.addEventListener(
      'change',
      () => {
        this.onDprChange();
        this.watchPixelRatio();
      },
      { once: true },
    );
  }

  /** Show the typed name on the pad. */
  private renderTyped(): void {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.restore();
    if (this.mode !== 'type') return;
    this.canvas.dir = ARABIC.test(this.typed.value) ? 'rtl' : 'ltr';
    this.drawTyped(ctx);
  }

  /** Draw the typed name as the signature, as large as fits on the line (CSS pixel units). */
  private drawTyped(ctx: CanvasRenderingContext2D): void {
    const text = this.typed.value.trim();
    if (text === '' || this.cssWidth === 0) return;
    const arabic = ARABIC.test(text);
    const family = arabic ? ARABIC_FONTS : LATIN_FONTS;
    const style = arabic ? '' : 'italic ';
    const maxWidth = this.cssWidth * 0.88;
    let size = Math.round(this.cssHeight * (arabic ? 0.38 : 0.42));
    ctx.font = `${style}${size}px ${family}`;
    while (size > 12 && ctx.measureText(text).width > maxWidth) {
      size -= 2;
      ctx.font = `${style}${size}px ${family}`;
    }
    if ('direction' in ctx) ctx.direction = arabic ? 'rtl' : 'ltr';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'alphabetic';
    ctx.fillStyle = INK;
    ctx.fillText(text, this.cssWidth / 2, this.cssHeight * BASELINE - size * 0.08, maxWidth);
  }
}

/** Scale a drawing's points and pen widths by one factor (the pad keeps its aspect ratio). */
function scaleStrokes(groups: PointGroup[], factor: number): PointGroup[] {
  return groups.map((g) => ({
    ...g,
    minWidth: g.minWidth * factor,
    maxWidth: g.maxWidth * factor,
    dotSize: g.dotSize * factor,
    points: g.points.map((p) => ({ ...p, x: p.x * factor, y: p.y * factor })),
  }));
}
