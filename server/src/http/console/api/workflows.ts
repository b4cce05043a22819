/**
 * Workflows from the console (issue 16 point 1), for what the public API has no route for: GET
 * /flows lists only published workflows, so the console reads every workflow (drafts and archived
 * too) with its working copy and versions here, and creates, changes, publishes and archives them.
 * Reading is requests.read; changing is requests.write, since a workflow decides how requests are
 * sent (signature method, channel, cc, expiry) — the same users who create requests.
 */
import { z } from 'zod';
import {
  archiveConsoleWorkflow,
  changeConsoleWorkflow,
  createConsoleWorkflow,
  listConsoleWorkflows,
  publishConsoleWorkflow,
  readConsoleWorkflow,
} from '../../../services/consoleWorkflows.js';
import type { WorkflowPatch } from '../../../services/workflows.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import { accountActor } from './actor.js';
import type { ConsoleRoutes } from './routes.js';

/**
 * The settings a body may change, by type only: their ranges and values are the domain's rules
 * (domain/workflows.ts), checked by the services as for the CLI, the refusal naming the field.
 */
const patchFields = {
  document_mode: z.enum(['fixed', 'per_request']),
  /** The fixed template, or the per-request default; null: none. */
  template_id: z.string().max(100).nullable(),
  signature_method: z.string().max(40),
  channel: z.string().max(40),
  cc: z.array(z.string().max(254)).max(100),
  require_id_attachment: z.boolean(),
  require_access_code: z.boolean(),
  expires_in: z.number(),
  language: z.string().max(10),
  return_url: z.string().max(2048).nullable(),
  ordered: z.boolean(),
  reminders: z.strictObject({ enabled: z.boolean(), interval_hours: z.number(), max: z.number() }).partial(),
};
const changeBody = z.strictObject({ name: z.string().max(200), ...patchFields }).partial();
const createBody = changeBody.required({ name: true });
const emptyBody = z.strictObject({});

/** The body's settings as the services' patch (the name apart); a blank return URL or template is none. */
function patchOf(body: z.infer<typeof changeBody>): WorkflowPatch {
  const { name: _name, ...rest } = body;
  const patch = { ...rest } as WorkflowPatch;
  if (body.return_url === '') patch.return_url = null;
  if (body.template_id === '') patch.template_id = null;
  return patch;
}

export function workflowsRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  routes.add('get', '/workflows', 'requests.read', async (req, res) => {
    res.json({ object: 'list', data: await listConsoleWorkflows(ctx, req.tawqi.console!.user.account_id!) });
  });
  routes.add('get', '/workflows/:id', 'requests.read', async (req, res) => {
    res.json(await readConsoleWorkflow(ctx, req.tawqi.console!.user.account_id!, String(req.params.id)));
  });
  routes.add('post', '/workflows', 'requests.write', async (req, res) => {
    const body = parseWith(createBody, req.body ?? {});
    res.status(201).json(await createConsoleWorkflow(ctx, accountActor(req), body.name, patchOf(body)));
  });
  routes.add('patch', '/workflows/:id', 'requests.write', async (req, res) => {
    const body = parseWith(changeBody, req.body ?? {});
    res.json(await changeConsoleWorkflow(ctx, accountActor(req), String(req.params.id), patchOf(body), body.name));
  });
  routes.add('post', '/workflows/:id/publish', 'requests.write', async (req, res) => {
    parseWith(emptyBody, req.body ?? {});
    res.json(await publishConsoleWorkflow(ctx, accountActor(req), String(req.params.id)));
  });
  routes.add('post', '/workflows/:id/archive', 'requests.write', async (req, res) => {
    parseWith(emptyBody, req.body ?? {});
    res.json(await archiveConsoleWorkflow(ctx, accountActor(req), String(req.params.id)));
  });
}
