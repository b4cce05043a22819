/**
 * GET /console/api/admin/status — the platform status (services/platformStatus.ts) for operator
 * users only (`tawqi user create --operator`); an account's user, whatever the role, gets
 * 403 forbidden. Its own file, mounted with one line, beside the rest of /admin.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../../../errors.js';
import { platformStatus } from '../../../services/platformStatus.js';
import type { AppContext } from '../../context.js';
import { requireConsoleUser } from '../session.js';

/** After requireConsoleUser: the signed-in user must be an operator. */
function operatorOnly(req: Request, _res: Response, next: NextFunction): void {
  const user = req.tawqi.console!.user;
  if (!user.operator || user.account_id !== null) {
    throw new ApiError('forbidden', null, {}, {}, { en: 'Only operators may open the admin pages.', ar: 'صفحات الإدارة للمشغّلين فقط.' });
  }
  next();
}

export function adminStatusRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.get('/admin/status', requireConsoleUser(ctx), operatorOnly, async (_req, res) => {
    res.json(await platformStatus(ctx));
  });
  return router;
}
