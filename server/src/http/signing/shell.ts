import { randomBytes } from 'node:crypto';
import { AGENT_PORTS } from '@tawqi/shared';
import type { Response } from 'express';
import { escapeHtml } from '../../sealing/html.js';
import { setPageHeaders } from '../pageHeaders.js';

const COLOR = /^#[0-9a-fA-F]{6}$/;
/** The desktop signing agent's WebSocket (qes with a token): loopback, on the protocol's ports only. */
const AGENT_CONNECT_SRC = AGENT_PORTS.map((port) => `ws://127.0.0.1:${port}`).join(' ');

export interface ShellOptions {
  language: 'ar' | 'en';
  pageToken: string | null;
  brandColor?: string | null;
  buttonColor?: string | null;
  /** Origins that may frame the page; empty: none. */
  frameAncestors: readonly string[];
  /** The console's branding preview (preview.ts): the app with a sample request, no page token. */
  preview?: boolean;
  /** A server-rendered message instead of the app (invalid link). */
  message?: { title: string; text: string };
}

/**
 * The HTML shell of the signing page: strict CSP with a per-response nonce for the one style tag,
 * no referrer (the URL is a credential), never cached, framed only by the allowed origins.
 */
export function sendShell(res: Response, o: ShellOptions, status = 200): void {
  const nonce = randomBytes(16).toString('base64');
  const ancestors = o.frameAncestors.length > 0 ? o.frameAncestors.join(' ') : "'none'";
  setPageHeaders(
    res,
    `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' data: https:; connect-src 'self' ${AGENT_CONNECT_SRC}; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors ${ancestors}`,
  );
  res.setHeader('Cache-Control', 'no-store');
  const dir = o.language === 'ar' ? 'rtl' : 'ltr';
  const vars = [
    o.brandColor && COLOR.test(o.brandColor) ? `--brand: ${o.brandColor};` : '',
    o.buttonColor && COLOR.test(o.buttonColor) ? `--button: ${o.buttonColor};` : '',
  ].join(' ');
  const title = o.language === 'ar' ? 'توقيع المستند' : 'Sign the document';
  const body = o.message
    ? `<main id="app" class="message"><h1>${escapeHtml(o.message.title)}</h1><p>${escapeHtml(o.message.text)}</p></main>`
    : `<main id="app"></main>
  <noscript>${o.language === 'ar' ? 'تحتاج هذه الصفحة إلى JavaScript.' : 'This page needs JavaScript.'}</noscript>
  <script type="module" src="/sign/assets/app.js"></script>`;
  res.status(status).type('html').send(`<!doctype html>
<html lang="${o.language}" dir="${dir}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  ${o.pageToken ? `<meta name="tawqi-page-token" content="${escapeHtml(o.pageToken)}">` : ''}
  <meta name="tawqi-api" content="/sign/api">${o.preview ? '\n  <meta name="tawqi-preview" content="branding">' : ''}
  <title>${title}</title>
  <link rel="stylesheet" href="/sign/assets/app.css">
  <style nonce="${nonce}">:root { ${vars} }</style>
</head>
<body>
  ${body}
</body>
</html>`);
}
