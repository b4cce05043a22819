/**
 * What an uploaded logo is, by its bytes (never by its name or Content-Type), and whether an SVG
 * is safe to serve. Pure: no I/O.
 *
 * SVG: refused, not sanitised, when it could carry script or pull in anything from outside. A
 * sanitiser has to parse SVG/XML exactly as every browser does to be safe (entities, CDATA,
 * namespaces, encodings); a refusal only has to find one thing it does not allow. So an SVG is
 * accepted only when it is plain drawing: elements from an allow-list, no event attributes, no
 * references but in-document ones (`#id`), no DOCTYPE/ENTITY/CDATA/processing instructions, no
 * character references (which could spell `javascript:`) and no `<style>`. The file is also
 * served with a `sandbox` CSP and nosniff, and the signing page shows it through `<img>`, where
 * SVG script never runs anyway; the refusal keeps the file safe when opened on its own.
 */
export type LogoType = 'png' | 'jpg' | 'svg';

export const LOGO_CONTENT_TYPES: Record<LogoType, string> = { png: 'image/png', jpg: 'image/jpeg', svg: 'image/svg+xml' };

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

const startsWith = (bytes: Uint8Array, magic: number[]): boolean => magic.every((b, i) => bytes[i] === b);

/** The SVG's text when the bytes are UTF-8 text starting (after an XML declaration and comments) with `<svg`. */
function svgText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  return /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(text) ? text : null;
}

/** The logo's type by its magic bytes, or null when it is none of PNG, JPEG, SVG. */
export function sniffLogo(bytes: Uint8Array): LogoType | null {
  if (startsWith(bytes, PNG)) return 'png';
  if (startsWith(bytes, JPEG)) return 'jpg';
  return svgText(bytes) === null ? null : 'svg';
}

const SVG_ELEMENTS = new Set([
  'svg',
  'g',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'defs',
  'lineargradient',
  'radialgradient',
  'stop',
  'title',
  'desc',
  'clippath',
  'mask',
  'symbol',
  'metadata',
]);

/** Why this SVG is refused (the first reason found), or null when it is plain drawing. */
export function svgScriptRisk(bytes: Uint8Array): string | null {
  const text = svgText(bytes);
  if (text === null) return 'not an SVG document';
  const body = text.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '').replace(/<!--[\s\S]*?-->/g, '');
  if (/<!|<\?/.test(body)) return 'DOCTYPE, ENTITY, CDATA or processing instruction';
  if (/&#|&[a-z][a-z0-9]*;/i.test(body.replace(/&(amp|lt|gt|quot|apos);/g, ''))) return 'character or entity reference';
  for (const m of body.matchAll(/<\/?\s*([a-zA-Z][\w:.-]*)/g)) {
    const name = m[1]!.toLowerCase();
    if (!SVG_ELEMENTS.has(name.replace(/^svg:/, ''))) return `element <${m[1]}>`;
  }
  if (/\son[a-z]+\s*=/i.test(body)) return 'event handler attribute';
  for (const m of body.matchAll(/\s((?:[\w-]+:)?href)\s*=\s*(["'])(.*?)\2/gi))
    if (!m[3]!.startsWith('#')) return `${m[1]} outside the document`;
  if (/url\(\s*(?!["']?#)/i.test(body)) return 'url() outside the document';
  if (/javascript:|data:|@import/i.test(body)) return 'javascript:, data: or @import';
  return null;
}
