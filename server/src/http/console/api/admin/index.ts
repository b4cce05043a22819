/**
 * The operator's admin API, `/console/api/admin/…` (issue 16 point 5): for operator console users
 * only (`tawqi user create --operator`); any account user gets `403 forbidden`, no session `401
 * console_session_required`. One file per concern beside this one; a new concern adds its line.
 */
import type { AppContext } from '../../../context.js';
import { adminStatusRoutes } from './status.js';
import type { ConsoleRoutes } from '../routes.js';
import { adminAccountsRoutes } from './accounts.js';
import { adminAuditLogRoutes } from './auditLog.js';
import { adminCompanyVerificationsRoutes } from './companyVerifications.js';

/** Every admin route is declared with the `operator` access (api/routes.ts). */
export function adminRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  adminAccountsRoutes(routes, ctx);
  adminCompanyVerificationsRoutes(routes, ctx);
  adminAuditLogRoutes(routes, ctx);
  adminStatusRoutes(routes, ctx);
}
