/**
 * The branding preview of the signing page (the console's Branding screen): `GET /sign/preview?lang=ar|en`
 * sends the real page shell and bundle in preview mode — no page token, so no signer, no session and
 * nothing the page could change; the page shows a fixed sample request and takes the console's unsaved
 * branding by postMessage from its own origin (signing-page/src/preview.ts). Framed by this origin only.
 */
import type express from 'express';
import { sendShell } from './shell.js';

export function previewRoute(router: express.Router): void {
  router.get('/preview', (req, res) => {
    const language = req.query.lang === 'en' ? 'en' : req.query.lang === 'ar' ? 'ar' : req.tawqi.lang;
    sendShell(res, { language, pageToken: null, frameAncestors: ["'self'"], preview: true });
  });
}
