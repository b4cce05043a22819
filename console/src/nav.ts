/** The side navigation of the signed-in console, and the routes of every screen. */
import type { IconName } from '@tawqi/signing-page/kit';
import type { Key } from './i18n.js';
import type { ScreenFactory } from './screen.js';
import { auditLogScreen } from './audit/log.js';
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
import { eventDetailScreen, eventListScreen, webhookDetailScreen, webhookListScreen, webhookNewScreen } from './webhooks/screens.js';

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
  { path: '/security', label: 'navSecurity', icon: 'shield' },
  { path: '/audit-log', label: 'navAudit', icon: 'clipboard', permission: 'audit.read' },
];

export interface RouteDef {
  /** The path below /console ('' is the home page). */
  path: string;
  /** Signed-out screens are open to anyone; the others need a session (else: sign-in, then back). */
  access: 'public' | 'signed-in';
  screen: ScreenFactory;
  /** Paths with an id in them (/requests/sr_…): matched by this instead of `path`. */
  pattern?: RegExp;
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
  { path: '/team', access: 'signed-in', screen: teamScreen },
  { path: '/security', access: 'signed-in', screen: securityScreen },
];

export const findRoute = (path: string): RouteDef | null =>
  ROUTES.find((r) => (r.pattern ? r.pattern.test(path) : r.path === path)) ?? null;
