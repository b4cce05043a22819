/**
 * The operator's admin API, `/console/api/admin/…` (issue 16 point 5): for operator console users
 * only (`tawqi user create --operator`); any account user gets `403 forbidden`, no session `401
 * console_session_required`. One router per concern beside this file; a new concern adds its line.
 */
import express from 'express';
import type { AppContext } from '../../../context.js';
import { requireOperator } from '../../session.js';
import { adminAccountsRouter } from './accounts.js';
import { adminAuditLogRouter } from './auditLog.js';
import { adminCompanyVerificationsRouter } from './companyVerifications.js';

export function adminRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.use(requireOperator(ctx));
  router.use(adminAccountsRouter(ctx));
  router.use(adminCompanyVerificationsRouter(ctx));
  router.use(adminAuditLogRouter(ctx));
  return router;
}
