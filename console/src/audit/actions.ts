/**
 * What each audit action means, in the page's language: a table from the action code (written by
 * the server, services/console*.ts) to a text key. A sentence may name fields of the entry's
 * detail (`{email}`, `{role}`, …); roles are shown by their names. An action not in the table is
 * shown as its code, so a new server action is never hidden.
 */
import type { Key, Strings } from '../i18n.js';

export const AUDIT_ACTIONS: Readonly<Record<string, Key>> = {
  'console.signed_in': 'auditAct_signedIn',
  'console.sign_in_failed': 'auditAct_signInFailed',
  'console.signed_out_everywhere': 'auditAct_signedOutEverywhere',
  'user.created': 'auditAct_userCreated',
  'user.invited': 'auditAct_userInvited',
  'user.joined': 'auditAct_userJoined',
  'user.role_changed': 'auditAct_roleChanged',
  'user.removed': 'auditAct_userRemoved',
  'two_factor.enabled': 'auditAct_twoFactorOn',
  'two_factor.disabled': 'auditAct_twoFactorOff',
  'two_factor.recovery_codes_regenerated': 'auditAct_recoveryCodes',
  'password.reset_requested': 'auditAct_resetRequested',
  'password.reset': 'auditAct_passwordReset',
  'password.changed': 'auditAct_passwordChanged',
  'key.created': 'auditAct_keyCreated',
  'key.rotated': 'auditAct_keyRotated',
  'key.revoked': 'auditAct_keyRevoked',
  'key.updated': 'auditAct_keyUpdated',
  'webhook_secret.rotated': 'auditAct_secretRotated',
  'webhook_endpoint.created': 'auditAct_endpointCreated',
  'webhook_endpoint.updated': 'auditAct_endpointUpdated',
  'webhook_endpoint.deleted': 'auditAct_endpointDeleted',
  'webhook_endpoint.tested': 'auditAct_endpointTested',
  'version_pin.changed': 'auditAct_versionPin',
  'template.updated': 'auditAct_templateUpdated',
  'template.duplicated': 'auditAct_templateDuplicated',
  'template.archived': 'auditAct_templateArchived',
  'workflow.created': 'auditAct_workflowCreated',
  'workflow.updated': 'auditAct_workflowUpdated',
  'workflow.published': 'auditAct_workflowPublished',
  'workflow.archived': 'auditAct_workflowArchived',
  'api.request': 'auditAct_apiRequest',
  'admin.plan_changed': 'admAct_planChanged',
  'admin.wallet_topped_up': 'admAct_walletToppedUp',
  'admin.sends_added': 'admAct_sendsAdded',
  'admin.company_document_downloaded': 'admAct_documentDownloaded',
  'admin.company_verification_approved': 'admAct_kybApproved',
  'admin.company_verification_rejected': 'admAct_kybRejected',
};

/** Detail fields holding a role: shown by the role's name. */
const ROLE_FIELDS = new Set(['role', 'from', 'to']);
const ROLES = new Set(['owner', 'admin', 'developer', 'viewer', 'operator']);

/** The sentence for an entry: its action's text with the detail's fields filled in, or the action code. */
export function auditSentence(s: Strings, action: string, detail: Record<string, unknown>): string {
  const key = AUDIT_ACTIONS[action];
  if (!key) return action;
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const text = String(v);
    vars[k] = ROLE_FIELDS.has(k) && ROLES.has(text) ? s.t(`role_${text}` as Key) : text;
  }
  // A placeholder the entry has no value for reads as a dash rather than as `{name}`.
  return s.t(key, vars).replace(/\{\w+\}/g, '—');
}
