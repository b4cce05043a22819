/**
 * Company verification from the console (spec part 5), for the account's users:
 * - `GET /company_verification` (any user of the account): the state, the latest round, the
 *   representative's check, the documents, the limits;
 * - `POST /company_verification/representative {name}` (company.verify): start the representative's
 *   identity check → `{verification_id, url, provider, simulated}` (send the representative to `url`);
 * - `POST /company_verification/documents?file_name=…` (company.verify): the file's bytes as the body,
 *   any Content-Type (the type is read from the bytes) → 201 the document;
 * - `GET /company_verification/documents/:id` (company.verify): the bytes;
 * - `DELETE /company_verification/documents/:id` (company.verify): out of the next submission;
 * - `POST /company_verification/submit` (company.verify): pending, for the operator's review.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { EXTENSION, type CompanyDocumentType } from '../../../domain/companyDocuments.js';
import {
  companyVerificationView,
  documentTooLarge,
  readAccountDocument,
  removeDocument,
  startRepresentativeCheck,
  submitCompanyVerification,
  uploadCompanyDocument,
} from '../../../services/companyVerification.js';
import type { CompanyDocument } from '../../../store/companyVerifications.js';
import type { AppContext } from '../../context.js';
import { parseWith } from '../../routes/registry.js';
import type { ConsoleRoutes } from './routes.js';
import { accountActor } from './actor.js';

const representativeBody = z.strictObject({ name: z.string().trim().min(2).max(200) });
const uploadQuery = z.strictObject({ file_name: z.string().max(500).optional() });

/** The file body: read up to the configured size; past it, `413 request_too_large` naming the limit (the body-parser drains the rest). */
function fileBody(ctx: AppContext) {
  const max = ctx.config.TAWQI_COMPANY_DOCUMENT_MAX_BYTES;
  const parse = express.raw({ type: () => true, limit: max });
  return (req: Request, res: Response, next: NextFunction): void => {
    parse(req, res, (err?: unknown) => {
      if ((err as { type?: string } | undefined)?.type === 'entity.too.large') return next(documentTooLarge(max));
      next(err);
    });
  };
}

/** Send a stored document: its detected type, as an attachment, never rendered in the console's origin. */
export function sendCompanyDocument(res: Response, doc: CompanyDocument, bytes: Buffer): void {
  const ext = EXTENSION[doc.content_type as CompanyDocumentType] ?? 'bin';
  const utf8Name = encodeURIComponent(doc.file_name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  res.setHeader('Content-Type', doc.content_type);
  res.setHeader('Content-Disposition', `attachment; filename="${doc.id}.${ext}"; filename*=UTF-8''${utf8Name}`);
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'no-store');
  res.send(bytes);
}

export function companyVerificationRoutes(routes: ConsoleRoutes, ctx: AppContext): void {
  // The upload reads its own body (a file), before the console's JSON parser.
  routes.addOwnBody('post', '/company_verification/documents', 'company.verify', fileBody(ctx), async (req, res) => {
    const q = parseWith(uploadQuery, req.query);
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(await uploadCompanyDocument(ctx, accountActor(req), q.file_name ?? '', bytes));
  });

  routes.add('get', '/company_verification', 'account', async (req, res) => {
    res.json(await companyVerificationView(ctx, req.tawqi.console!.user.account_id!));
  });

  routes.add('post', '/company_verification/representative', 'company.verify', async (req, res) => {
    const { name } = parseWith(representativeBody, req.body ?? {});
    res.status(201).json(await startRepresentativeCheck(ctx, accountActor(req), name));
  });

  routes.add('get', '/company_verification/documents/:id', 'company.verify', async (req, res) => {
    const { doc, bytes } = await readAccountDocument(ctx, req.tawqi.console!.user.account_id!, String(req.params.id));
    sendCompanyDocument(res, doc, bytes);
  });

  routes.add('delete', '/company_verification/documents/:id', 'company.verify', async (req, res) => {
    await removeDocument(ctx, accountActor(req), String(req.params.id));
    res.status(204).end();
  });

  routes.add('post', '/company_verification/submit', 'company.verify', async (req, res) => {
    parseWith(z.strictObject({}), req.body ?? {});
    await submitCompanyVerification(ctx, accountActor(req));
    res.json(await companyVerificationView(ctx, req.tawqi.console!.user.account_id!));
  });
}
