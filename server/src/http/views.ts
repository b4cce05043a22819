import type { Request } from 'express';
import type { AppContext } from './context.js';
import type { ObjectView } from '../services/objects.js';

/**
 * The view a response uses: secret keys get links and full contacts; publishable keys get masked
 * contacts and no links, except that their creation response keeps the contacts they just sent
 * (spec part 5 rule 7, 4.1 rule 4).
 */
export function viewFor(ctx: AppContext, req: Request, opts: { creation?: boolean } = {}): ObjectView {
  const publishable = req.tawqi.auth?.publishable ?? false;
  return {
    links: publishable ? null : { publicUrl: ctx.publicUrl, linkKey: ctx.secrets.linkKey },
    mask: publishable && !opts.creation,
    currency: req.tawqi.auth?.account.currency ?? ctx.config.TAWQI_CURRENCY,
    publicUrl: ctx.publicUrl,
  };
}
