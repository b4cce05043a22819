/**
 * GET /console/api/identity_reviews?livemode= (requests.read): the identity review queue — signers
 * held on a name mismatch and identity checks in review. Decisions go through the public API
 * (POST /signers/{id}/identity_match) with the console credential, so they emit the spec's events.
 */
import { z } from 'zod';
import { listIdentityReviews } from '../../../services/identityReviews.js';
import { findVerification } from '../../../store/identityVerifications.js';
import type { AppContext } from '../../context.js';
import { checkCursor, limitParam, listPage } from '../../lists.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';

const query = z.strictObject({
  livemode: z.enum(['true', 'false']).transform((v) => v === 'true'),
  limit: limitParam(100),
  starting_after: z.string().min(1).max(100).optional(),
});

export function identityReviewsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/identity_reviews', 'requests.read', async (req, res) => {
    const q = parseWith(query, req.query);
    const accountId = req.tawqi.console!.user.account_id!;
    await checkCursor(q.starting_after, async (id) => (await findVerification(ctx.store.db, accountId, q.livemode, id)) !== undefined);
    const items = await listIdentityReviews(ctx.store.db, {
      accountId,
      livemode: q.livemode,
      limit: q.limit,
      startingAfter: q.starting_after,
    });
    res.json(listPage(items, q.limit));
  });
}
