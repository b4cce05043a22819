/** The operator's admin screens under /console/admin (nav.ts adds them to ROUTES; ADMIN_NAV links them). */
import type { RouteDef } from '../nav.js';
import { accountScreen } from './account.js';
import { accountsScreen } from './accounts.js';
import { adminAuditScreen } from './audit.js';
import { queueScreen } from './queue.js';
import { roundScreen } from './round.js';
import { statusScreen } from './status.js';

export const ADMIN_ROUTES: readonly RouteDef[] = [
  { path: '/admin', access: 'signed-in', admin: true, screen: accountsScreen },
  { path: '/admin/accounts/:id', access: 'signed-in', admin: true, screen: accountScreen, pattern: /^\/admin\/accounts\/acct_[A-Za-z0-9_]+$/ },
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
