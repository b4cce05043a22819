/**
 * Templates from the console, for what the public API has no route for (issue 16 point 1): edit a
 * custom template, duplicate one (own or library), archive one (requests.write), and preview a
 * draft as the final PDF's first page (requests.read: it stores nothing). Listing, reading and
 * creating are the public API's (GET/POST /templates), called with the console credential.
 * Templates belong to the account, not to a mode: these routes have no live/test switch.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { templateCreateSchema } from '../../../domain/templates.js';
import { presentTemplate } from '../../../presenters/account.js';
import { archiveTemplate, duplicateTemplate, editTemplate, previewTemplatePdf } from '../../../services/templates.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { accountActor } from './actor.js';
import type { ConsoleRoutes } from './routes.js';

/** Sample values of the preview: one per field key, as a request's signer would give them. */
const previewBody = templateCreateSchema.extend({
  values: z.record(z.string().max(64), z.string().max(1000)).default({}),
});

const accountOf = (req: Request): string => req.tawqi.console!.user.account_id!;

export function templatesRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('put', '/templates/:id', 'requests.write', async (req, res) => {
    const body = parseWith(templateCreateSchema, req.body ?? {});
    const { template, replaced } = await editTemplate(ctx, accountActor(req), String(req.params.id), body);
    res.json({ template: presentTemplate(template), replaced });
  });

  routes.add('post', '/templates/:id/duplicate', 'requests.write', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    res.status(201).json(presentTemplate(await duplicateTemplate(ctx, accountActor(req), String(req.params.id))));
  });

  routes.add('post', '/templates/:id/archive', 'requests.write', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    res.json(presentTemplate(await archiveTemplate(ctx, accountActor(req), String(req.params.id))));
  });

  routes.add('post', '/template_preview', 'requests.read', async (req, res) => {
    const { values, ...draft } = parseWith(previewBody, req.body ?? {});
    const pdf = await previewTemplatePdf(ctx, accountOf(req), draft, values);
    // JSON like every console answer (the console's client reads JSON); the page draws it with PDF.js.
    res.json({ content_type: 'application/pdf', pdf_base64: Buffer.from(pdf).toString('base64') });
  });
}
