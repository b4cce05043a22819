import type { Response } from 'express';

/**
 * The headers every HTML page of the server sends (signing page, /verify, /docs): its own strict CSP,
 * no referrer (a signing URL is a credential, and no page should leak where a visitor came from),
 * and no MIME sniffing. Caching stays each page's decision.
 */
export function setPageHeaders(res: Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
