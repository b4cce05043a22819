/**
 * API keys from the console (developers.manage): list, create (the secret shown once), rotate with
 * the 24-hour grace or at once, revoke, and change a secret key's IP allowlist or a publishable
 * key's allowed origins and daily cap. The operator's `tawqi key` commands use the same services.
 */
import { z } from 'zod';
import { ROTATION_GRACE_SECONDS } from '../../../domain/keys.js';
import { changeAccountKey, createAccountKey, listAccountKeys, revokeAccountKey, rotateAccountKey } from '../../../services/consoleKeys.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { accountActor } from './actor.js';
import type { ConsoleRoutes } from './routes.js';

const name = z.string().trim().min(1).max(100);
const ips = z.array(z.string().max(100)).max(50);
const origins = z.array(z.string().max(300)).max(50);
const dailyCap = z.number().int().min(1).max(1_000_000).nullable();

const createBody = z.strictObject({
  type: z.enum(['secret', 'publishable']),
  mode: z.enum(['live', 'test']),
  name: name.optional(),
  read_only: z.boolean().optional(),
  allowed_ips: ips.optional(),
  allowed_origins: origins.optional(),
  daily_cap: dailyCap.optional(),
});

const rotateBody = z.strictObject({ expire: z.enum(['24h', 'now']).default('24h') });

const updateBody = z
  .strictObject({ name: name.optional(), allowed_ips: ips.optional(), allowed_origins: origins.optional(), daily_cap: dailyCap.optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one of name, allowed_ips, allowed_origins, daily_cap');

export function keysRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/keys', 'developers.manage', async (req, res) => {
    const keys = await listAccountKeys(ctx, req.tawqi.console!.user.account_id!);
    res.json({ object: 'list', data: keys, has_more: false, next_cursor: null });
  });

  routes.add('post', '/keys', 'developers.manage', async (req, res) => {
    const input = parseWith(createBody, req.body ?? {});
    res.status(201).json(await createAccountKey(ctx, accountActor(req), input));
  });

  routes.add('post', '/keys/:id/rotate', 'developers.manage', async (req, res) => {
    const { expire } = parseWith(rotateBody, req.body ?? {});
    res.json(await rotateAccountKey(ctx, accountActor(req), String(req.params.id), expire === 'now' ? 0 : ROTATION_GRACE_SECONDS));
  });

  routes.add('post', '/keys/:id/revoke', 'developers.manage', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    res.json(await revokeAccountKey(ctx, accountActor(req), String(req.params.id)));
  });

  routes.add('patch', '/keys/:id', 'developers.manage', async (req, res) => {
    const b = parseWith(updateBody, req.body ?? {});
    const settings = { name: b.name, allowedIps: b.allowed_ips, allowedOrigins: b.allowed_origins, dailyCap: b.daily_cap };
    res.json(await changeAccountKey(ctx, accountActor(req), String(req.params.id), settings));
  });
}
