/** The account's API version pin: GET (requests.read) and PUT {version_pin: date | null} (developers.manage). */
import express from 'express';
import { z } from 'zod';
import { readVersionPin, setVersionPin } from '../../../services/consoleVersionPin.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { requireConsoleUser } from '../session.js';
import { accountActor } from './actor.js';

const body = z.strictObject({ version_pin: z.string().max(20).nullable() });

export function versionPinRouter(ctx: AppContext): express.Router {
  const router = express.Router();
  router.get('/version_pin', requireConsoleUser(ctx, 'requests.read'), async (req, res) => {
    res.json(await readVersionPin(ctx, req.tawqi.console!.user.account_id!));
  });
  router.put('/version_pin', requireConsoleUser(ctx, 'developers.manage'), async (req, res) => {
    const { version_pin } = parseWith(body, req.body ?? {});
    res.json(await setVersionPin(ctx, accountActor(req), version_pin));
  });
  return router;
}
