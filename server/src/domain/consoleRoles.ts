/**
 * Who may do what in the console: the permission table of the README ("The console"), as data.
 * The README's table is checked against this one (test/console/roles.test.ts). Pure: no I/O.
 */
export const CONSOLE_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export const CONSOLE_PERMISSIONS = [
  'requests.read',
  'requests.write',
  'developers.manage',
  'users.read',
  'users.manage',
  'audit.read',
  'branding.manage',
  'billing.read',
  'company.verify',
] as const;
export type ConsolePermission = (typeof CONSOLE_PERMISSIONS)[number];

/** What each permission covers, for the README table and the console's screens. */
export const PERMISSION_SCOPE: Record<ConsolePermission, string> = {
  'requests.read': 'requests, events, logs, identity queue',
  'requests.write': 'create, cancel, remind, identity decisions, workflows',
  'developers.manage': 'keys, webhook endpoints and secrets, version pin',
  'users.read': 'the team list',
  'users.manage': 'invite, change role, remove; an admin cannot touch the owner or make an owner',
  'audit.read': 'the audit log',
  'branding.manage': 'the signing page and email branding, logo, custom domain (Business plan and above)',
  'billing.read': 'plan, balances, wallet ledger, usage per month, prices, daily-cap notices',
  'company.verify': "company verification: the representative's identity check, company documents, submission",
};

export const ROLE_PERMISSIONS: Record<ConsoleRole, readonly ConsolePermission[]> = {
  owner: CONSOLE_PERMISSIONS,
  // Company verification binds the company: the owner alone (every user reads its state).
  admin: CONSOLE_PERMISSIONS.filter((p) => p !== 'company.verify'),
  developer: ['requests.read', 'requests.write', 'developers.manage', 'users.read'],
  viewer: ['requests.read', 'users.read'],
};

export function isConsoleRole(value: unknown): value is ConsoleRole {
  return typeof value === 'string' && (CONSOLE_ROLES as readonly string[]).includes(value);
}

/** The permissions of a user's role; an operator (issue 16) holds none of an account's. */
export function permissionsOf(role: string): readonly ConsolePermission[] {
  return isConsoleRole(role) ? ROLE_PERMISSIONS[role] : [];
}

export function hasPermission(role: string, permission: ConsolePermission): boolean {
  return permissionsOf(role).includes(permission);
}

/**
 * Whether `actor` may give `target` the role `to` (or remove them, `to` null): users.manage, and an
 * admin neither touches an owner nor makes one. Nobody changes their own role (the last owner
 * cannot demote themselves out of the account).
 */
export function mayManage(actor: { id: string; role: string }, target: { id: string; role: string }, to: ConsoleRole | null): boolean {
  if (!hasPermission(actor.role, 'users.manage') || actor.id === target.id) return false;
  if (actor.role === 'owner') return true;
  return target.role !== 'owner' && to !== 'owner';
}
