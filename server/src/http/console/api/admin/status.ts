/**
 * GET /console/api/admin/status — the platform status (services/platformStatus.ts) for operator
 * users only (`tawqi user create --operator`); an account's user, whatever the role, gets
 * 403 forbidden. Its own file, mounted with one line, beside the rest of /admin.
 */
import { platformStatus } from '../../../../services/platformStatus.js';
import type { AppContext } from '../../../context.js';
import type { ConsoleRoutes } from '../routes.js';

export function adminStatusRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/admin/status', 'operator', async (_req, res) => {
    res.json(await platformStatus(ctx));
  });
}
