import type { Request } from 'express';
import type { AuditActor } from '../../../services/consoleAudit.js';
import { actorOf } from '../../../services/consoleSignIn.js';

/**
 * The signed-in account user as the audit log records them. Only after requireConsoleUser with a
 * permission: an operator (no account) holds none of an account's permissions, so never gets here.
 */
export function accountActor(req: Request): AuditActor & { account_id: string } {
  const user = req.tawqi.console!.user;
  return { ...actorOf(user, req.tawqi.clientIp), account_id: user.account_id! };
}
