/** The side navigation of the signed-in console, and the routes of every screen. */
import type { IconName } from '@tawqi/signing-page/kit';
import type { Key } from './i18n.js';
import type { ScreenFactory } from './screen.js';
import { auditLogScreen } from './audit/log.js';
import { billingScreen } from './billing/screen.js';
import { brandingScreen } from './branding/screen.js';
import { accountScreen } from './admin/account.js';
import { accountsScreen } from './admin/accounts.js';
import { adminAuditScreen } from './admin/audit.js';
import { queueScreen } from './admin/queue.js';
import { roundScreen } from './admin/round.js';
import { statusScreen } from './admin/status.js';
import { identityReviewScreen } from './identity/review.js';
import { homeScreen } from './views/home.js';
import { apiKeysScreen } from './developers/keys.js';
import { requestDetailScreen, requestListScreen, requestNewScreen } from './requests/screens.js';
import { logDetailScreen, logListScreen } from './logs/screens.js';
import { inviteScreen } from './views/invite.js';
import { forgotPasswordScreen, resetPasswordScreen } from './views/password.js';
import { securityScreen } from './security/screen.js';
import { teamScreen } from './team/screen.js';
import { templateListScreen, templateNewScreen, templateScreen } from './templates/screens.js';
import { signInScreen } from './views/signIn.js';
import { twoFactorScreen } from './views/twoFactor.js';
import { verificationScreen } from './verification/screen.js';
import { eventDetailScreen, eventListScreen, webhookDetailScreen, webhookListScreen, webhookNewScreen } from './webhooks/screens.js';
import { workflowDetailScreen, workflowListScreen, workflowNewScreen } from './workflows/screens.js';

export interface NavLink {
  path: string;
  label: Key;
  icon: IconName;
  /** Shown only to a user with this permission (domain/consoleRoles.ts on the server). */
  permission?: string;
}

export interface NavGroup {
  label: Key;
  icon: IconName;
  links: NavLink[];
}

export const NAV: readonly (NavLink | NavGroup)[] = [
  { path: '', label: 'navHome', icon: 'home' },
  { path: '/requests', label: 'navRequests', icon: 'inbox' },
  { path: '/templates', label: 'navTemplates', icon: 'doc' },
  { path: '/workflows', label: 'navWorkflows', icon: 'pen' },
  { path: '/identity-review', label: 'navIdentity', icon: 'userCheck' },
  {
    label: 'navDevelopers',
    icon: 'code',
    links: [
      { path: '/developers/api-keys', label: 'navKeys', icon: 'key' },
      { path: '/developers/webhooks', label: 'navWebhooks', icon: 'zap' },
      { path: '/developers/events', label: 'navEvents', icon: 'activity' },
      { path: '/developers/logs', label: 'navLogs', icon: 'list' },
    ],
  },
  { path: '/team', label: 'navTeam', icon: 'users' },
  { path: '/verification', label: 'navVerification', icon: 'id' },
  { path: '/security', label: 'navSecurity', icon: 'shield' },
  { path: '/audit-log', label: 'navAudit', icon: 'clipboard', permission: 'audit.read' },
  { path: '/billing', label: 'navBilling', icon: 'doc', permission: 'billing.read' },
  { path: '/branding', label: 'navBranding', icon: 'pen', permission: 'branding.manage' },
];

/** The operator's navigation (an operator user has no account: none of the account's screens). */
export const ADMIN_NAV: readonly NavLink[] = [
  { path: '/admin', label: 'admNavAccounts', icon: 'users' },
  { path: '/admin/company-verifications', label: 'admNavReviews', icon: 'shield' },
  { path: '/admin/status', label: 'admNavStatus', icon: 'activity' },
  { path: '/admin/audit-log', label: 'admNavAudit', icon: 'clipboard' },
];

export interface RouteDef {
  /** The path below /console ('' is the home page). */
  path: string;
  /** Signed-out screens are open to anyone; the others need a session (else: sign-in, then back). */
  access: 'public' | 'signed-in';
  screen: ScreenFactory;
  /** Paths with an id in them (/requests/sr_…): matched by this instead of `path`. */
  pattern?: RegExp;
  /** The operator's admin (/admin/…): operators only; the other screens are the account's. */
  admin?: true;
}

export const ROUTES: readonly RouteDef[] = [
  { path: '', access: 'signed-in', screen: homeScreen },
  { path: '/sign-in', access: 'public', screen: signInScreen },
  { path: '/sign-in/two-factor', access: 'public', screen: twoFactorScreen },
  { path: '/forgot-password', access: 'public', screen: forgotPasswordScreen },
  { path: '/reset', access: 'public', screen: resetPasswordScreen },
  { path: '/invite', access: 'public', screen: inviteScreen },
  { path: '/requests', access: 'signed-in', screen: requestListScreen },
  { path: '/requests/new', access: 'signed-in', screen: requestNewScreen },
  { path: '/requests/:id', access: 'signed-in', screen: requestDetailScreen, pattern: /^\/requests\/sr_[A-Za-z0-9_]+$/ },
  { path: '/templates', access: 'signed-in', screen: templateListScreen },
  { path: '/templates/new', access: 'signed-in', screen: templateNewScreen },
  { path: '/templates/:id', access: 'signed-in', screen: templateScreen, pattern: /^\/templates\/tpl_[A-Za-z0-9_]+$/ },
  { path: '/identity-review', access: 'signed-in', screen: identityReviewScreen },
  { path: '/audit-log', access: 'signed-in', screen: auditLogScreen },
  { path: '/billing', access: 'signed-in', screen: billingScreen },
  { path: '/developers/api-keys', access: 'signed-in', screen: apiKeysScreen },
  { path: '/developers/logs', access: 'signed-in', screen: logListScreen },
  { path: '/developers/logs/:id', access: 'signed-in', screen: logDetailScreen, pattern: /^\/developers\/logs\/req_[A-Za-z0-9_-]+$/ },
  { path: '/developers/webhooks', access: 'signed-in', screen: webhookListScreen },
  { path: '/developers/webhooks/new', access: 'signed-in', screen: webhookNewScreen },
  {
    path: '/developers/webhooks/:id',
    access: 'signed-in',
    screen: webhookDetailScreen,
    pattern: /^\/developers\/webhooks\/we_[A-Za-z0-9_]+$/,
  },
  { path: '/developers/events', access: 'signed-in', screen: eventListScreen },
  { path: '/developers/events/:id', access: 'signed-in', screen: eventDetailScreen, pattern: /^\/developers\/events\/evt_[A-Za-z0-9_]+$/ },
  { path: '/workflows', access: 'signed-in', screen: workflowListScreen },
  { path: '/workflows/new', access: 'signed-in', screen: workflowNewScreen },
  { path: '/workflows/:id', access: 'signed-in', screen: workflowDetailScreen, pattern: /^\/workflows\/wf_[A-Za-z0-9_]+$/ },
  { path: '/team', access: 'signed-in', screen: teamScreen },
  { path: '/security', access: 'signed-in', screen: securityScreen },
  { path: '/verification', access: 'signed-in', screen: verificationScreen },
  { path: '/branding', access: 'signed-in', screen: brandingScreen },
  // The operator's admin (ADMIN_NAV): operators only.
  { path: '/admin', access: 'signed-in', admin: true, screen: accountsScreen },
  {
    path: '/admin/accounts/:id',
    access: 'signed-in',
    admin: true,
    screen: accountScreen,
    pattern: /^\/admin\/accounts\/acct_[A-Za-z0-9_]+$/,
  },
  { path: '/admin/company-verifications', access: 'signed-in', admin: true, screen: queueScreen },
  {
    path: '/admin/company-verifications/:id',
    access: 'signed-in',
    admin: true,
    screen: roundScreen,
    pattern: /^\/admin\/company-verifications\/kyb_[A-Za-z0-9_]+$/,
  },
  { path: '/admin/status', access: 'signed-in', admin: true, screen: statusScreen },
  { path: '/admin/audit-log', access: 'signed-in', admin: true, screen: adminAuditScreen },
];

export const findRoute = (path: string): RouteDef | null =>
  ROUTES.find((r) => (r.pattern ? r.pattern.test(path) : r.path === path)) ?? null;
