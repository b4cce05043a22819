/** The console API's objects: a user as the console shows them, an audit log entry. */
import type { AuditEntry } from '../store/auditLog.js';
import type { ConsoleUser } from '../store/consoleUsers.js';

export interface ConsoleUserView {
  id: string;
  object: 'console_user';
  account_id: string | null;
  email: string;
  name: string;
  role: ConsoleUser['role'];
  status: ConsoleUser['status'];
  operator: boolean;
  two_factor_enabled: boolean;
  created_at: number;
  last_sign_in_at: number | null;
}

export function presentConsoleUser(u: ConsoleUser): ConsoleUserView {
  return {
    id: u.id,
    object: 'console_user',
    account_id: u.account_id,
    email: u.email,
    name: u.name,
    role: u.role,
    status: u.status,
    operator: u.operator === 1,
    two_factor_enabled: u.totp_enabled_at !== null,
    created_at: u.created_at,
    last_sign_in_at: u.last_sign_in_at,
  };
}

export function presentAuditEntry(e: AuditEntry) {
  return {
    id: e.id,
    object: 'audit_entry' as const,
    account_id: e.account_id,
    user_id: e.user_id,
    actor: e.actor,
    action: e.action,
    target: e.target,
    ip: e.ip,
    detail: e.detail,
    created_at: e.created_at,
  };
}
