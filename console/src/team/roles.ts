/**
 * The console's roles as the page shows them: a copy of the server's table and rule
 * (server/src/domain/consoleRoles.ts, which the console may not import). test/console/team-security.test.ts
 * checks that the two agree; this file imports nothing, so the test can load it. The server has the
 * last word: a control this hides is also refused there.
 */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type TeamRole = (typeof ROLES)[number];

export const PERMISSIONS = [
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
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS: Record<TeamRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  // Company verification binds the company: the owner alone.
  admin: PERMISSIONS.filter((p) => p !== 'company.verify'),
  developer: ['requests.read', 'requests.write', 'developers.manage', 'users.read'],
  viewer: ['requests.read', 'users.read'],
};

/** Why `actor` may not change or remove `target`, or null when they may (domain/consoleRoles.ts mayManage). */
export type ManageBlock = 'noPermission' | 'self' | 'owner' | null;

export function manageBlock(
  actor: { id: string; role: string },
  permissions: readonly string[],
  target: { id: string; role: string },
): ManageBlock {
  if (!permissions.includes('users.manage')) return 'noPermission';
  if (actor.id === target.id) return 'self';
  if (actor.role !== 'owner' && target.role === 'owner') return 'owner';
  return null;
}

/** The roles `actor` may give: an admin does not make owners. */
export function grantableRoles(actor: { role: string }): readonly TeamRole[] {
  return actor.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
}
