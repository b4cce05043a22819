/** The team: /console/api/users, /users/invitations, /users/:id; the invitation link: /invitations/lookup, /invitations/accept. */
import { z } from 'zod';
import { CONSOLE_ROLES } from '../../../domain/consoleRoles.js';
import { acceptInvitation, changeRole, describeInvitation, inviteUser, listTeam, removeUser } from '../../../services/consoleTeam.js';
import { rateWindows } from '../../../store/rateWindows.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { actingOf, throttle } from './acting.js';
import { answerSignedIn, clientOf } from './auth.js';
import { RESET_IP_LIMIT } from './passwords.js';
import type { ConsoleRoutes } from './routes.js';

const role = z.enum(CONSOLE_ROLES);
const inviteBody = z.strictObject({ email: z.email().max(320), role });
const roleBody = z.strictObject({ role });
const lookupBody = z.strictObject({ token: z.string().min(1).max(200) });
const acceptBody = z.strictObject({
  token: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(100),
  password: z.string().min(1).max(1000),
});

export function teamRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  // Accepting without a session is limited per address like the password reset (each try hashes a password).
  const perIp = rateWindows(ctx.store, { scope: 'console_accept_ip', ...RESET_IP_LIMIT });

  routes.add('get', '/users', 'users.read', async (req, res) => {
    res.json({ data: await listTeam(ctx, actingOf(req)) });
  });

  routes.add('post', '/users/invitations', 'users.manage', async (req, res) => {
    const body = parseWith(inviteBody, req.body ?? {});
    res.status(201).json(await inviteUser(ctx, actingOf(req), body));
  });

  routes.add('patch', '/users/:id', 'users.manage', async (req, res) => {
    const body = parseWith(roleBody, req.body ?? {});
    res.json(await changeRole(ctx, actingOf(req), String(req.params.id), body.role));
  });

  routes.add('delete', '/users/:id', 'users.manage', async (req, res) => {
    await removeUser(ctx, actingOf(req), String(req.params.id));
    res.json({ id: String(req.params.id), deleted: true });
  });

  // The token in the body, never the path: a path reaches access logs (this server's, a proxy's).
  routes.add('post', '/invitations/lookup', 'public', async (req, res) => {
    const { token } = parseWith(lookupBody, req.body ?? {});
    res.json(await describeInvitation(ctx, token));
  });

  routes.add('post', '/invitations/accept', 'public', async (req, res) => {
    const body = parseWith(acceptBody, req.body ?? {});
    await throttle(perIp, req.tawqi.clientIp, ctx.clock.nowMs());
    answerSignedIn(ctx, req, res, await acceptInvitation(ctx, body, clientOf(req)));
  });
}
