/**
 * The HTML of the public verification page. It wears the signing page's clothes — the same
 * stylesheet (/sign/assets/app.css), test banner, top bar with the sender's branding, card and
 * footer — and is complete without script: the one script (/sign/assets/verify.js) only adds the
 * in-browser file check. Every value from a person (title, masked names) is escaped and isolated
 * (<bdi>), so an Arabic name cannot be reordered by the text around it.
 */
import { isLogoPath } from '../../domain/branding.js';
import type { Language } from '@tawqi/shared';
import type { Verification } from '@tawqi/shared/api';
import { escapeHtml as esc } from '../../sealing/html.js';
import { SWITCH_LANG, VERIFY_TEXT, type VerifyText } from './text.js';

export interface VerifyBranding {
  brandName: string | null;
  logoUrl: string | null;
  brandColor: string | null;
  hidePowered: boolean;
}

export const DEFAULT_BRANDING: VerifyBranding = { brandName: null, logoUrl: null, brandColor: null, hidePowered: false };

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** The signing page's icons (signing-page/src/views/parts.ts), drawn the same way. */
export const ICONS = {
  check: ['M20 6 9 17l-5-5'],
  x: ['M18 6 6 18', 'm6 6 12 12'],
  alert: ['M12 3 2 20h20z', 'M12 10v4', 'M12 17h.01'],
  shield: ['M12 3 4 6v6c0 5 3.5 8 8 9 4.5-1 8-4 8-9V6z', 'm9 12 2 2 4-4'],
  doc: ['M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z', 'M14 3v5h5', 'M9 13h6', 'M9 17h4'],
  pen: ['M4 20h4L19 9l-4-4L4 16z', 'm13.5 6.5 4 4'],
  search: ['M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z', 'm20 20-4-4'],
} as const;

export const icon = (name: keyof typeof ICONS): string =>
  `<svg viewBox="0 0 24 24" class="icon" aria-hidden="true" focusable="false">${ICONS[name].map((d) => `<path d="${d}"></path>`).join('')}</svg>`;

/** A date as the reader's language writes it, always in UTC (the page has no idea of the reader's zone). */
function when(t: number | null, lang: Language, none: string): string {
  if (t === null) return none;
  const date = new Date(t * 1000);
  const text = new Intl.DateTimeFormat(lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(date);
  return `<time datetime="${date.toISOString()}">${esc(text)} UTC</time>`;
}

/** Logos load over https or as data: images, as the page's CSP allows. */
function safeLogo(url: string | null): string | null {
  if (!url) return null;
  if (/^data:image\/(png|jpeg|gif|webp|avif);base64,[a-z0-9+/=]+$/i.test(url)) return url;
  if (isLogoPath(url)) return url; // an uploaded logo, served by this server (img-src 'self')
  return URL.canParse(url) && new URL(url).protocol === 'https:' ? url : null;
}

function topbar(lang: Language, t: VerifyText, b: VerifyBranding): string {
  const logo = safeLogo(b.logoUrl);
  const name = b.brandName?.trim() || null;
  const parts = [
    logo ? `<img class="logo" src="${esc(logo)}" alt="${esc(name ?? t.appName)}" referrerpolicy="no-referrer">` : '',
    name ? `<span class="brand-name"><bdi>${esc(name)}</bdi></span>` : '',
    !logo && !name ? `<span class="brand-name brand-default">${icon('pen')}${t.appName}</span>` : '',
  ].join('');
  const other = SWITCH_LANG[lang];
  return `<div class="topbar"><div class="topbar-inner"><div class="brand">${parts}</div>
<a class="lang-switch" href="?lang=${other}" lang="${other}" hreflang="${other}">${t.switchTo}</a></div></div>`;
}

/** The page around a card: head (CSP nonce for the brand colour), banner, top bar, footer. */
export function page(o: {
  lang: Language;
  nonce: string;
  branding: VerifyBranding;
  test: boolean;
  title: string;
  main: string;
  /** The page's script under /sign/assets (default verify.js, the file check). */
  script?: 'verify' | 'validate';
}): string {
  const t = VERIFY_TEXT[o.lang];
  const brand = o.branding.brandColor && COLOR.test(o.branding.brandColor) ? `--brand: ${o.branding.brandColor};` : '';
  return `<!doctype html>
<html lang="${o.lang}" dir="${o.lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(o.title)}</title>
<link rel="stylesheet" href="/sign/assets/app.css">
<style nonce="${o.nonce}">:root { ${brand} }</style>
<script type="module" src="/sign/assets/${o.script ?? 'verify'}.js"></script>
</head>
<body${o.test ? ' class="is-test"' : ''}>
<header>
${o.test ? `<div class="test-banner" role="note">${icon('alert')}<span>${t.testNotice}</span></div>` : ''}
${topbar(o.lang, t, o.branding)}
</header>
<main id="main" class="app verify"><div class="frame">
${o.main}
</div></main>
${o.branding.hidePowered ? '' : `<footer class="footer"><p>${icon('pen')}${t.poweredBy}</p></footer>`}
</body>
</html>`;
}

const fact = (label: string, value: string, extra = ''): string => `<div class="fact"${extra}><dt>${label}</dt><dd>${value}</dd></div>`;

const INTEGRITY_TONE = { intact: 'ok', modified: 'bad', unknown: 'warn' } as const;

function factsCard(v: Verification, lang: Language, t: VerifyText): string {
  const tone = INTEGRITY_TONE[v.integrity];
  const status = (t as Record<string, string>)[`status_${v.status}`] ?? esc(v.status);
  const level = (t as Record<string, string>)[`legal_${v.document.legal_level}`] ?? esc(v.document.legal_level);
  const code = (s: string | null) => (s ? `<code class="hash" dir="ltr">${esc(s)}</code>` : t.none);
  return `<section class="card tone-${tone}" aria-labelledby="verify-title">
<div class="card-head"><div class="badge">${icon(tone === 'ok' ? 'shield' : tone === 'bad' ? 'x' : 'alert')}</div>
<h1 class="title" id="verify-title">${t.pageTitle}</h1></div>
<p class="lead">${t.found}: <bdi class="doc-title">${esc(v.document.title)}</bdi></p>
<dl class="facts">
${fact(t.reference, `<code dir="ltr">${esc(v.reference)}</code>`)}
${fact(t.status, status, ` data-status="${esc(v.status)}"`)}
${fact(t.integrity, `<strong class="integrity tone-${tone}">${t[v.integrity]}</strong>`, ` data-integrity="${v.integrity}"`)}
${fact(t.level, level)}
${fact(t.format, `<span dir="ltr">${esc(v.document.format)}</span>`)}
${fact(t.completed, when(v.completed_at, lang, t.none))}
${fact(t.sealed, when(v.sealed_at, lang, t.none))}
${fact(t.hash, code(v.document.sha256))}
${fact(t.pdfHash, code(v.document.pdf_sha256))}
</dl>
</section>`;
}

function partiesCard(v: Verification, lang: Language, t: VerifyText): string {
  const items = v.parties.map(
    (p) =>
      `<li class="party"><span class="party-name"><bdi>${esc(p.name)}</bdi></span><span class="muted">${
        p.signed_at === null ? t.notSigned : `${t.signedAt} ${when(p.signed_at, lang, t.none)}`
      }</span></li>`,
  );
  return `<section class="card" aria-labelledby="parties-title">
<h2 class="subtitle" id="parties-title">${t.parties}</h2>
<ul class="parties">${items.join('')}</ul>
<p class="hint">${t.partiesNote}</p>
</section>`;
}

/**
 * The file check: the sealed file's hash, the hashes it had before its archive renewals (an earlier
 * download: the same signed document, fewer timestamps) and the script's texts ride on data attributes.
 */
function checkCard(v: Verification, t: VerifyText, earlier: readonly string[]): string {
  const sha = v.document.pdf_sha256;
  const texts = (['checking', 'match', 'earlier', 'mismatch', 'notPdf', 'readError', 'fileLabel', 'fileHash'] as const)
    .map((k) => ` data-t-${k.toLowerCase()}="${esc(t[k])}"`)
    .join('');
  const body = sha
    ? `<div class="dropzone" data-dropzone hidden>
<input class="sr-only" type="file" id="check-file" accept="application/pdf,.pdf" aria-describedby="check-privacy">
<label class="btn btn-secondary" for="check-file">${icon('doc')}${t.checkChoose}</label>
<span class="muted">${t.checkDrop}</span>
</div>
<p class="hint" id="check-privacy">${t.checkPrivacy}</p>
<div class="check-result" role="status" aria-live="polite"></div>
<noscript><p class="hint">${t.checkNeedsScript}</p></noscript>`
    : `<p class="hint">${t.checkUnavailable}</p>`;
  const attributes = sha ? ` data-sha256="${esc(sha)}" data-earlier-sha256="${esc(earlier.join(' '))}"${texts}` : '';
  return `<section class="card" id="check" aria-labelledby="check-title"${attributes}>
<h2 class="subtitle" id="check-title">${t.checkTitle}</h2>
<p>${t.checkBody}</p>
${body}
</section>`;
}

/** The found document: facts, parties, the file check and the trust note. */
export function verificationMain(v: Verification, lang: Language, earlierPdfSha256: readonly string[]): string {
  const t = VERIFY_TEXT[lang];
  return [
    factsCard(v, lang, t),
    partiesCard(v, lang, t),
    checkCard(v, t, earlierPdfSha256),
    `<p class="hint trust-note">${t.trust}</p>`,
  ].join('\n');
}

export function notFoundMain(lang: Language): string {
  const t = VERIFY_TEXT[lang];
  return `<section class="card tone-warn" aria-labelledby="verify-title">
<div class="card-head"><div class="badge">${icon('search')}</div><h1 class="title" id="verify-title">${t.notFoundTitle}</h1></div>
<p class="lead">${t.notFoundBody}</p>
</section>`;
}
