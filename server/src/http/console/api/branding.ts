/**
 * Branding (spec 2.9) for users with branding.manage, Business plan and above:
 * GET /branding, PUT /branding (the whole branding: an absent field is removed),
 * PUT /branding/logo (the image as the body), GET /branding/custom_domain (the DNS record and
 * whether it resolves now). The rules are services/branding.ts's, the same as the CLI's.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { brandingOf } from '../../../domain/branding.js';
import { ApiError } from '../../../errors.js';
import { brandingAccount, brandingView, saveBranding } from '../../../services/branding.js';
import { uploadLogo } from '../../../services/brandingLogo.js';
import { checkCustomDomain, dnsLookups, type DnsLookups } from '../../../services/customDomain.js';
import type { AppContext } from '../../context.js';
import type { ConsoleRoutes } from './routes.js';
import { accountActor } from './actor.js';

/** The logo's bytes, read only up to TAWQI_BRANDING_LOGO_MAX_BYTES: past it, 413 naming that limit. */
function logoBody(ctx: AppContext) {
  const max = ctx.config.TAWQI_BRANDING_LOGO_MAX_BYTES;
  const parse = express.raw({ limit: max, type: () => true });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') {
        return next(
          new ApiError(
            'request_too_large',
            'logo',
            { max_bytes: max },
            {},
            {
              en: `The logo is larger than ${max} bytes.`,
              ar: `حجم الشعار أكبر من ${max} بايت.`,
            },
          ),
        );
      }
      next(err);
    });
  };
}

/**
 * The logo upload reads its own body (an image, not JSON): mounted before the console's JSON parser.
 * The session and permission are checked before a byte of the body is read.
 */
export function brandingRoutes(routes: ConsoleRoutes, ctx: AppContext, dns: DnsLookups = dnsLookups(ctx.config.TAWQI_DNS_SERVERS)): void {
  routes.addOwnBody('put', '/branding/logo', 'branding.manage', logoBody(ctx), async (req, res) => {
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json({ object: 'branding_logo', ...(await uploadLogo(ctx, accountActor(req), bytes, req.headers['content-type'])) });
  });
  const accountOf = (req: Request) => brandingAccount(ctx, req.tawqi.console!.user.account_id!);
  routes.add('get', '/branding', 'branding.manage', async (req, res) => {
    res.json(brandingView(ctx.config, await accountOf(req), ctx.publicUrl));
  });
  routes.add('put', '/branding', 'branding.manage', async (req, res) => {
    await accountOf(req);
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('invalid_request');
    const { account } = await saveBranding(ctx, accountActor(req), () => ({ ...(body as Record<string, unknown>) }));
    res.json(brandingView(ctx.config, account, ctx.publicUrl));
  });
  routes.add('get', '/branding/custom_domain', 'branding.manage', async (req, res) => {
    const domain = brandingOf((await accountOf(req)).branding).custom_domain;
    if (domain === undefined) return void res.json({ object: 'custom_domain', domain: null });
    const status = await checkCustomDomain(dns, domain, ctx.publicUrl);
    res.json({ object: 'custom_domain', ...status, checked_at: Math.floor(ctx.clock.nowMs() / 1000) });
  });
}
