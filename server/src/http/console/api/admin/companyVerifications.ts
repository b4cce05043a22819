/**
 * The company verification review queue in the admin console:
 * - `GET /admin/company_verifications?limit=&starting_after=`: submitted rounds, pending first
 *   (oldest first), then decided ones (newest first);
 * - `GET /admin/company_verifications/:id`: a round, its representative's check, its documents;
 * - `GET /admin/company_verifications/:id/documents/:document_id`: a document's bytes (audited);
 * - `POST /admin/company_verifications/:id/approve` (the account's live keys then pass kyb_required);
 * - `POST /admin/company_verifications/:id/reject {reason}` (the owner reads the reason, and may submit again).
 */
import type { Request } from 'express';
import { z } from 'zod';
import { decideCompanyVerification, isQueued, reviewDetail, reviewDocument, reviewQueue } from '../../../../services/companyReview.js';
import { actorOf } from '../../../../services/consoleSignIn.js';
import type { AppContext } from '../../../context.js';
import type { ConsoleRoutes } from '../routes.js';
import { checkCursor, limitParam, listPage } from '../../../lists.js';
import { parseWith } from '../../../routes/registry.js';
import { sendCompanyDocument } from '../companyVerification.js';

const pageQuery = z.strictObject({ limit: limitParam(100), starting_after: z.string().min(1).max(100).optional() });
const rejectBody = z.strictObject({ reason: z.string().trim().min(3).max(1000) });

const operatorOf = (req: Request) => actorOf(req.tawqi.console!.user, req.tawqi.clientIp);

export function adminCompanyVerificationsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/admin/company_verifications', 'operator', async (req, res) => {
    const q = parseWith(pageQuery, req.query);
    await checkCursor(q.starting_after, (id) => isQueued(ctx, id));
    res.json(listPage(await reviewQueue(ctx, q.limit, q.starting_after), q.limit));
  });

  routes.add('get', '/admin/company_verifications/:id', 'operator', async (req, res) => {
    res.json(await reviewDetail(ctx, String(req.params.id)));
  });

  routes.add('get', '/admin/company_verifications/:id/documents/:document_id', 'operator', async (req, res) => {
    const { doc, bytes } = await reviewDocument(ctx, operatorOf(req), String(req.params.id), String(req.params.document_id));
    sendCompanyDocument(res, doc, bytes);
  });

  routes.add('post', '/admin/company_verifications/:id/approve', 'operator', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    res.json(await decideCompanyVerification(ctx, operatorOf(req), String(req.params.id), 'approve', null));
  });

  routes.add('post', '/admin/company_verifications/:id/reject', 'operator', async (req, res) => {
    const { reason } = parseWith(rejectBody, req.body ?? {});
    res.json(await decideCompanyVerification(ctx, operatorOf(req), String(req.params.id), 'reject', reason));
  });
}
