/** The account's API version pin: GET (requests.read) and PUT {version_pin: date | null} (developers.manage). */
import { z } from 'zod';
import { readVersionPin, setVersionPin } from '../../../services/consoleVersionPin.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { accountActor } from './actor.js';
import type { ConsoleRoutes } from './routes.js';

const body = z.strictObject({ version_pin: z.string().max(20).nullable() });

export function versionPinRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/version_pin', 'requests.read', async (req, res) => {
    res.json(await readVersionPin(ctx, req.tawqi.console!.user.account_id!));
  });
  routes.add('put', '/version_pin', 'developers.manage', async (req, res) => {
    const { version_pin } = parseWith(body, req.body ?? {});
    res.json(await setVersionPin(ctx, accountActor(req), version_pin));
  });
}
